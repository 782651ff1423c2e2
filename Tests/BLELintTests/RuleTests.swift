import BLELint
import BLETimeline
import Foundation
import TestSupport
import Testing

/// Each rule on real captures: the case it must report, and the cases it must not.
@Suite struct ScanBeforePoweredOnTests {
    @Test func scanEnableBeforeResetAnsweredCommandDisallowed() {
        let f = bumble("scan_before_init.central").of("scan-before-powered-on")
        #expect(f.count == 1)
        #expect(f.first?.frames == [1, 2, 3])
        #expect(f.first?.severity == .error)
        #expect(f.first?.message.contains("0x0C Command Disallowed") == true)
        #expect(f.first?.byteOffset == 16)  // first record right after the btsnoop header
    }

    @Test(arguments: ["clean_heart_rate.central", "scan_before_init.peripheral", "reconnect_storm.central"])
    func normalPowerOnIsClean(_ name: String) {
        let r = bumble(name)
        #expect(r.of("scan-before-powered-on").isEmpty)
        #expect(r.notEvaluable("scan-before-powered-on") == nil)
    }

    @Test func aclOnlyCaptureIsNotEvaluable() {
        let r = lint("public/btsnoop-android_revcar-acl-only.log")
        #expect(r.notEvaluable("scan-before-powered-on") != nil)
    }
}

@Suite struct OversizedWriteTests {
    @Test func fortyByteWriteRequestAtMTU23() throws {
        let f = bumble("oversized_and_unchecked_writes.central").of("oversized-write")
        #expect(f.count == 1)  // the Prepare Write parts (18 bytes = MTU−5) are fine
        let w = try #require(f.first)
        #expect(w.frames == [57, 60])
        #expect(w.handle == 0x0012)
        #expect(w.connection == 1 && w.peer == "DC:C0:57:00:00:05")
        for part in ["Write Request", "0x0012", "40 bytes", "ATT_MTU is 23", "at most 20"] {
            #expect(w.message.contains(part), "\(part)")
        }
    }

    @Test func notificationsUpToMTUMinus3AreFine() {
        // 5,040 notifications of 20…244 bytes at ATT_MTU 247: the longest is exactly MTU−3.
        let r = bumble("long_notify_stream.peripheral")
        #expect(r.of("oversized-write").isEmpty)
        #expect(r.notEvaluable("oversized-write") == nil)
    }

    @Test func peripheralSideReceivedWritesAreNotThisHostsFault() {
        #expect(bumble("oversized_and_unchecked_writes.peripheral").of("oversized-write").isEmpty)
    }
}

@Suite struct UncheckedWriteTests {
    @Test func writesTheCharacteristicsDoNotAllow() {
        let f = bumble("oversized_and_unchecked_writes.central").of("unchecked-write")
        // Frame 415 (01 00 to the declaration 0x0011) is a guessed CCCD: read-or-notify-without-property
        // reports it, this rule does not (RulesBatchATests.guessedCCCDIsReportedOnce).
        #expect(f.map(\.firstFrame) == [73, 76])
        #expect(f[0].message.contains("0x03 Write Not Permitted") && f[0].message.contains("without Write"))
        #expect(f[0].frames == [73, 75])
        #expect(f[1].message.contains("Write Command") && f[1].message.contains("without Write Without Response"))
    }

    @Test(arguments: ["two_peripherals_concurrent.central", "cached_reconnect.central", "clean_heart_rate.central"])
    func perConnectionAndCarriedOverPropertiesAreRespected(_ name: String) {
        #expect(bumble(name).of("unchecked-write").isEmpty)
    }

    @Test func undiscoveredHandlesAreNotEvaluableNotFindings() throws {
        // The writes session from frame 53 on: it starts mid-connection, after discovery, so
        // its writes go to handles never discovered in the capture. Properties cannot be
        // checked there; what remains is the server's own answer (0x03 Write Not Permitted to
        // the Write Request on 0x0010), which needs no discovery.
        let path = try btsnoopSuffix("bumble/oversized_and_unchecked_writes.central.btsnoop", from: 53)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let whole = bumble("oversized_and_unchecked_writes.central").of("unchecked-write")
        #expect(whole.contains { !$0.message.contains("the server answered") })
        let r = CaptureLinter.lint(path: path)
        let f = r.of("unchecked-write")
        #expect(f.map(\.message) == ["Write Request to 0x0010: the server answered 0x03 Write Not Permitted"])
        for handle in ["0x0011", "0x0012", "0x0014"] {
            #expect(
                r.notEvaluated.contains {
                    $0.slug == "unchecked-write" && !$0.whole
                        && $0.reason == "writes to handle \(handle): its properties were never discovered"
                }, "\(handle)")
        }
    }
}

@Suite struct ScanLeftRunningTests {
    @Test func connectingWhileTheScanRuns() throws {
        let f = bumble("nil_scan_all_services.central").of("scan-left-running")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.firstFrame == 419)
        #expect(x.frames.contains(31) && x.frames.contains(425))
        #expect(x.connection == 1 && x.peer == "D8:0D:18:00:00:01")
    }

    @Test func lingeringAfterTheLastConnectionHonoursTheThreshold() {
        // The scan runs 1.0 s after the disconnect (frames 570 → 599): fine at the default
        // 30 s, a finding at 0.5 s.
        var c = LintConfiguration()
        c.overrides["BLE004"] = .init(thresholds: ["after_last_connection_s": 0.5])
        let f = bumble("nil_scan_all_services.central", c).of("scan-left-running")
        #expect(f.count == 2)
        #expect(f.contains { $0.message.contains("after the last connection") && $0.frames.contains(570) })
    }

    @Test func androidScanRestartsAreOneScanSession() throws {
        // domyos (tshark): LE Set Scan Enable on at 179, then Android re-programs the controller
        // for every client change, off/on 2–22 ms apart (181/187, 229/235, 241/247, 258/264,
        // 272/278), never off for longer: one session from 179 to the end (226.4 s). Whose scan
        // (APCF bytes): the app's all-pass index 1 (239, in force from 240) is deleted at 256; the
        // scan restarted at 264 runs with Fast Pair's indices 3 (UUID FE2C) and 10 (service data
        // 2CFE00) only, so LE Create Connection at 266 comes after the app stopped its scan: no
        // "connected while scanning" finding (issue 27 item 3). Index 1 is installed again at
        // 270 (in force from 271) and stays; link loss at 5143 (194.4 s), nothing connected
        // since: the app's scan runs 32 s to the capture's end.
        let f = lint("public/btsnoop-android_domyos-treadmill-ftms.log").of("scan-left-running")
        #expect(f.count == 1)
        #expect(!f.contains { $0.message.contains("connected to E8:5D:86:0A:72:7F") })
        let linger = try #require(f.first { $0.message.contains("after the last connection ended") })
        #expect(linger.frames.contains(5143))
        #expect(linger.message.contains("Party: this app") && linger.message.contains("index 1"))
    }

    @Test(arguments: ["scan_before_init.central", "cached_reconnect.central", "clean_heart_rate.central"])
    func scanStoppedBeforeConnecting(_ name: String) {
        #expect(bumble(name).of("scan-left-running").isEmpty)
    }
}

@Suite struct UnfilteredScanTests {
    @Test func bluezStartDiscoveryWithoutFilter() throws {
        // rgbCTF (btmon): bluetoothd's MGMT Start Discovery at frame 8 (BR/EDR, LE Public, LE
        // Random, no UUID filter); cut before its Discovering false at frame 31, so one
        // discovery session.
        let path = try btsnoopPrefix("public/btsnoop-btmon_rgbctf2020-magicintheair", frames: 30)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = CaptureLinter.lint(path: path)
        let f = r.of("unfiltered-scan")
        #expect(f.map(\.firstFrame) == [8])
        #expect(f.first?.evidence == .inferred)
        #expect(r.notEvaluable("unfiltered-scan") == nil)
    }

    /// rgbCTF (btmon), checked with tshark (`hci_mon.opcode == 16`, cookie, mgmt opcode): client
    /// 0x00000001 (bluetoothd) sends Start Discovery (0x0023, address types 0x07) at 8 and,
    /// after the kernel's Discovering false (event 0x0013 at 31), again at 33; it sends Stop
    /// Discovery (0x0024) at 49. From 306 on it sends Start Discovery 22 times (306 … 1779),
    /// each after the kernel ended the previous discovery, never Stop Discovery. So two
    /// discovery sessions, not 24 findings.
    @Test func bluezRestartsAreOneDiscoverySession() throws {
        let r = lint("public/btsnoop-btmon_rgbctf2020-magicintheair")
        let f = r.of("unfiltered-scan")
        #expect(f.count == 2)
        #expect(f.first?.frames == [8, 33])
        let second =
            [306, 323, 340, 357, 385, 541, 603, 691, 804, 906, 1004, 1166, 1190, 1209, 1252, 1275, 1306]
            + [1388, 1565, 1631, 1754, 1779]
        #expect(f.last?.frames == second)
        #expect(f.first?.message.contains("restarted 1 time in the same discovery session") == true)
        #expect(f.last?.message.contains("restarted 21 times") == true)
        #expect(f.allSatisfy { $0.message.contains("mgmt client 0x1") && $0.message.contains("bluetoothd") })
    }

    @Test func plainHCIIsNotEvaluable() throws {
        let r = bumble("nil_scan_all_services.central")
        #expect(r.of("unfiltered-scan").isEmpty)
        let why = try #require(r.notEvaluable("unfiltered-scan"))
        #expect(why.reason.contains("API trace") && why.reason.contains("mgmt"))
    }

    /// Android offloads scan filters (APCF, 0xFD57). The shipped domyos capture, checked by hand
    /// against its bytes (tshark frame numbers; every APCF command answered with status 0 in the
    /// next frame): LE Set Scan Enable 01 00 at 235; APCF Enable at 237; at 239 Set Filtering
    /// Parameters add (01 00 01 00 00 11 11 01 80 …): index 1, feature selection 0x0000, i.e. an
    /// index that matches every advertisement (AOSP ScanManager's ALL_PASS_FILTER_SELECTION at
    /// ALL_PASS_FILTER_INDEX_REGULAR_SCAN); confirmed at 240 while the scan of 235 runs (stopped
    /// at 241). Scans at 247 with the same set-up: not reported again. At 256 index 1 is deleted
    /// (01 01 01); the scan at 264 runs with index 3 (UUID FE2C) and 10 (service data 2CFE00)
    /// only. At 268/270 enable and index 1 all-pass again, confirmed at 271 during the scan of
    /// 264. The earlier scans (179, 187, 235 before 240) had only UUID/service-data filters.
    @Test func androidAllPassFilterOnDomyos() throws {
        // One scanning session (issue 27 item 1): the app's all-pass index 1 confirmed at 240
        // (scan of 235) is deleted at 256 (48.86 s) before the app connects (266); only Fast
        // Pair's indices 3 and 10 run on. It installs index 1 again at 270 (54.87 s, confirmed
        // 271): 6 s later, under the 15 s a session may pause, so one finding, restarted once,
        // both set-ups in its frames.
        let r = lint("public/btsnoop-android_domyos-treadmill-ftms.log")
        let f = r.of("unfiltered-scan")
        #expect(f.map(\.firstFrame) == [240])
        let x = try #require(f.first)
        #expect(Set([240, 235, 239, 271, 270]).isSubset(of: Set(x.frames)), "\(x.frames)")
        #expect(x.evidence == .inferred)
        #expect(x.message.contains("all-pass filter index 1") && x.message.contains("restarted 1 time "))
        #expect(x.message.contains("Party: this app") && x.message.contains("Fast Pair"))
        #expect(r.notEvaluable("unfiltered-scan") == nil)
    }

    @Test func filteringDisabledWhileScanningIsUnfiltered() {
        // No shipped capture disables APCF; the timeline event is built by hand: a scan start at
        // frame 10, then the table with APCF disabled by the command of frame 8.
        let engine = LintEngine(rules: [(UnfilteredScan.self, RuleSettings(severity: .warning))])
        var start = TimelineEvent(
            frame: 10, time: 1_000,
            kind: .scanStart(
                .make(
                    extended: false, active: true, interval: 16, window: 16, filterPolicy: 0, ownAddressType: 0,
                    phys: 1, filterDuplicates: 0, parametersKnown: true)))
        start.outcome = .success(frame: 11, latency: 5)
        var table = ScanFilterTable()
        table.enabled = false
        table.enableFrame = 8
        engine.observe(.timeline(start))
        engine.observe(
            .timeline(TimelineEvent(frame: 10, time: 1_000, kind: .scanFilters(engine.scanFilterTables.keep(table)))))
        let (findings, _) = engine.finish()
        #expect(findings.map(\.frames) == [[10, 8]])
        #expect(findings.first?.message.contains("disabled") == true)
    }

    @Test func controllerWithoutFilteringIsNotEvaluable() {
        // LE Get Vendor Capabilities answered with filtering unsupported, no APCF command.
        var facts = CaptureFacts()
        facts.hciCommands = 10
        facts.vendorFilteringSupported = false
        #expect(UnfilteredScan.notEvaluable(facts)?.contains("does not filter advertisements itself") == true)
        facts.vendorFilteringSupported = nil
        #expect(UnfilteredScan.notEvaluable(facts)?.contains("0xFD57") == true)
        facts.apcfCommands = 1
        #expect(UnfilteredScan.notEvaluable(facts) == nil)
    }

    @Test func mgmtWithoutDiscoveryIsEvaluatedAndClean() throws {
        // MGMT Open only: the monitor saw the management socket (rgbCTF's first seven records:
        // notes, index records, Control Open of bluetoothd and btmon), no discovery was started.
        let path = try btsnoopPrefix("public/btsnoop-btmon_rgbctf2020-magicintheair", frames: 7)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = CaptureLinter.lint(path: path)
        #expect(r.notEvaluable("unfiltered-scan") == nil)
        #expect(r.of("unfiltered-scan").isEmpty)
    }
}

@Suite struct WriteWithoutResponseFlowTests {
    @Test func burstThatWaitsForCompletedPacketsIsFine() {
        // 200 Write Commands: 64 packets (the LE buffer count), then one per Number Of
        // Completed Packets.
        let r = bumble("oversized_and_unchecked_writes.central")
        #expect(r.notEvaluable("write-without-response-flow") == nil)
        #expect(r.of("write-without-response-flow").isEmpty)
    }

    @Test func sameBurstWithoutCompletedPacketsOverflowsTheBuffers() throws {
        // The same capture with the controller's Number Of Completed Packets events removed
        // (H4 event 0x13): the host now sends past the 64 buffers.
        let path = try btsnoopWithout(Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")) {
            _, p in
            p.count > 1 && p[0] == 0x04 && p[1] == 0x13
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = CaptureLinter.lint(path: path)
        let f = r.of("write-without-response-flow")
        #expect(f.count == 1)
        #expect(f.first?.message.contains("all 64 LE ACL buffers") == true)
        #expect(f.first?.connection == 1)
        #expect((f.first?.frames.count ?? 0) > 1)
    }

    @Test func captureWithoutWriteCommandsIsClean() {
        // rgbCTF (btmon started after initialisation: no LE Read Buffer Size, `bthci_cmd.opcode
        // == 0x2002` matches nothing) holds no Write Command (`btatt.opcode == 0x52 ||
        // btatt.opcode == 0xd2` matches nothing): nothing to judge, so clean, not "not evaluable".
        let r = lint("public/btsnoop-btmon_rgbctf2020-magicintheair")
        #expect(r.facts.writeCommands == 0)
        #expect(r.notEvaluated.allSatisfy { $0.slug != "write-without-response-flow" })
        #expect(r.of("write-without-response-flow").isEmpty)
    }

    @Test func captureWithoutBufferSizeIsNotEvaluable() {
        // An Android log filtered down to ACL (no HCI commands, so no LE Read Buffer Size).
        let r = lint("public/btsnoop-android_revcar-acl-only.log")
        #expect(r.notEvaluable("write-without-response-flow")?.reason.contains("LE Read Buffer Size") == true)
    }
}

@Suite struct SubscriptionEdgeTests {
    /// domyos (tshark): LE Connection Complete at 284; the CCCD 0x0053 of value 0x0052
    /// (Microchip Transparent UART, found by Find Information at 378) is written 0x0001 with a
    /// Write Command (opcode 0x52) at 388; value 0x0052 notifies from 395 on.
    @Test func cccdWrittenWithWriteCommandIsASubscription() {
        let r = lint("public/btsnoop-android_domyos-treadmill-ftms.log")
        #expect(r.of("notify-without-subscription").filter { $0.handle == 0x0052 }.isEmpty)
        #expect(r.notEvaluable("notify-without-subscription") == nil)
        #expect(r.notEvaluated.filter { $0.slug == "notify-without-subscription" }.isEmpty)
    }

    /// The same capture from frame 285 on (the connection started before it; frames renumbered:
    /// CCCD write 388 → 104, notifications 395… → 111…): the CCCD write is in the capture before
    /// the notifications, so value 0x0052 is judged, and is clean.
    @Test func connectionStartedBeforeCaptureWithCCCDWriteInIt() throws {
        let path = try btsnoopSuffix("public/btsnoop-android_domyos-treadmill-ftms.log", from: 285)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = CaptureLinter.lint(path: path)
        #expect(r.facts.connectionStarts == 0)
        #expect(r.notEvaluable("notify-without-subscription") == nil)
        #expect(r.notEvaluated.filter { $0.slug == "notify-without-subscription" }.isEmpty)
        #expect(r.of("notify-without-subscription").isEmpty)
    }
}
