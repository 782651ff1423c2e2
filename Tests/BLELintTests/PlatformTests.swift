import BLELint
import CaptureIO
import Foundation
import TestSupport
import Testing

/// Builds small btsnoop (H4) captures in the test: what no shipped capture shows on its own.
struct SyntheticCapture {
    var writer = BTSnoopWriter()
    var time: Int64 = 1_700_000_000_000_000

    mutating func sent(_ packet: [UInt8]) { append(packet, received: false) }
    mutating func received(_ packet: [UInt8]) { append(packet, received: true) }

    mutating func append(_ packet: [UInt8], received: Bool) {
        time += 10_000
        writer.append(packet, received: received, unixMicros: time)
    }

    static func command(_ opcode: UInt16, _ parameters: [UInt8] = []) -> [UInt8] {
        [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
    }

    /// Command Complete for `opcode` with status 0 and `rest`.
    static func complete(_ opcode: UInt16, _ rest: [UInt8] = []) -> [UInt8] {
        let p: [UInt8] = [1, UInt8(opcode & 0xFF), UInt8(opcode >> 8), 0] + rest
        return [0x04, 0x0E, UInt8(p.count)] + p
    }

    /// LE Connection Complete, success, on `handle` with a public peer address.
    static func leConnectionComplete(handle: UInt16, role: UInt8 = 0, peer: [UInt8] = [1, 2, 3, 4, 5, 6]) -> [UInt8] {
        let p: [UInt8] =
            [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), role, 0x00] + peer + [0x18, 0, 0, 0, 0xC8, 0, 0]
        return [0x04, 0x3E, UInt8(p.count)] + p
    }

    static func encryptionChange(handle: UInt16) -> [UInt8] {
        [0x04, 0x08, 4, 0, UInt8(handle & 0xFF), UInt8(handle >> 8), 1]
    }

    /// LE Create Connection to a public address (initiator filter policy 0).
    static func leCreateConnection(peer: [UInt8] = [1, 2, 3, 4, 5, 6]) -> [UInt8] {
        command(0x200D, [0x60, 0, 0x30, 0, 0, 0] + peer + [0, 0x18, 0, 0x28, 0, 0, 0, 0xC8, 0, 0, 0, 0, 0])
    }

    static func commandStatus(_ opcode: UInt16) -> [UInt8] {
        [0x04, 0x0F, 4, 0, 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)]
    }

    /// LE Connection Complete with status 0x02 Unknown Connection Identifier (a cancelled attempt).
    static func leConnectionCancelled(peer: [UInt8] = [1, 2, 3, 4, 5, 6]) -> [UInt8] {
        let p: [UInt8] = [0x01, 0x02, 0, 0, 0, 0x00] + peer + [0, 0, 0, 0, 0, 0, 0]
        return [0x04, 0x3E, UInt8(p.count)] + p
    }

    static func disconnectionComplete(handle: UInt16) -> [UInt8] {
        [0x04, 0x05, 4, 0, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x13]
    }

    /// An ATT PDU on `handle` (one ACL packet, fixed channel 4).
    static func att(handle: UInt16, _ pdu: [UInt8]) -> [UInt8] {
        let l2: [UInt8] = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
        return [0x02, UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, UInt8(l2.count & 0xFF), UInt8(l2.count >> 8)]
            + l2
    }

    /// Writes the capture to a temporary file named `name`.
    func file(_ name: String = "synthetic.btsnoop") throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-platform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try Data(writer.bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

@Suite struct PlatformDetectionTests {
    @Test func androidFromItsVendorCommand() {
        let r = lint("public/btsnoop-android_domyos-treadmill-ftms.log")
        #expect(r.facts.platform.platform == .android)
        #expect(r.facts.platform.evidence.contains("0xFD53"))
        #expect(!r.facts.platform.overridden)
    }

    @Test func appleFromPacketLoggerRecordsOnlyApplesToolsWrite() {
        let r = lint("public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg")
        #expect(r.facts.platform.platform == .apple)
        #expect(r.facts.platform.evidence.contains("PacketLogger"))
        // BTstack writes PacketLogger files too: the format alone is no sign.
        #expect(lint("formats/clean_heart_rate.central.be.pklg").facts.platform.platform == .unknown)
    }

    @Test func linuxFromTheMonitorFormat() {
        let r = lint("public/btsnoop-btmon_rgbctf2020-magicintheair")
        #expect(r.facts.platform.platform == .linux)
        #expect(r.facts.platform.evidence.contains("btmon"))
    }

    @Test func unknownWithoutAnySign() {
        #expect(bumble("clean_heart_rate.central").facts.platform.platform == .unknown)
        #expect(lint("public/btsnoop-android_revcar-acl-only.log").facts.platform.platform == .unknown)
    }

    @Test func appleFromASimulatorTrace() {
        let engine = LintEngine(configuration: LintConfiguration())
        engine.observe(APICall(sequence: 1, time: 0, kind: .stopScan))
        #expect(engine.facts.platform.platform == .apple)
        #expect(engine.facts.platform.evidence.contains("API trace"))
    }

    @Test func optionOverridesDetection() {
        var c = LintConfiguration()
        c.platform = .apple
        let r = lint("public/btsnoop-android_domyos-treadmill-ftms.log", c)
        #expect(r.facts.platform == PlatformFact(.apple, evidence: "set with --platform", overridden: true))
        c.platform = .android
        #expect(bumble("clean_heart_rate.central", c).facts.platform.platform == .android)
    }

    /// An old Android stack sends neither APCF nor 0xFD53; its GATT server's layout still tells.
    @Test func androidFromItsGATTServerLayout() throws {
        var s = SyntheticCapture()
        s.sent(SyntheticCapture.command(0x0C03))
        s.received(SyntheticCapture.complete(0x0C03))
        s.received(SyntheticCapture.leConnectionComplete(handle: 0x40, role: 1))
        s.received(SyntheticCapture.att(handle: 0x40, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]))
        // GATT service 0x0001–0x0005, GAP service 0x0014–0x001C: AOSP's built-in layout.
        s.sent(
            SyntheticCapture.att(
                handle: 0x40, [0x11, 6, 0x01, 0x00, 0x05, 0x00, 0x01, 0x18, 0x14, 0x00, 0x1C, 0x00, 0x00, 0x18]))
        s.received(SyntheticCapture.disconnectionComplete(handle: 0x40))
        let path = try s.file()
        let r = CaptureLinter.lint(path: path)
        #expect(r.facts.platform.platform == .android)
        #expect(r.facts.platform.evidence.contains("GAP service at handle 0x0014"))
    }

    /// An old Android stack without vendor commands: its controller bring-up is a weak sign.
    @Test func androidFromItsControllerBringUp() throws {
        var s = SyntheticCapture()
        for op: UInt16 in [0x0C03, 0x1005, 0x0C33, 0x1001] {
            s.sent(SyntheticCapture.command(op))
            s.received(SyntheticCapture.complete(op))
        }
        let r = CaptureLinter.lint(path: try s.file())
        #expect(r.facts.platform.platform == .android)
        #expect(
            r.facts.platform.evidence.contains(
                "bring-up after Reset (Reset, Read Buffer Size, Host Buffer Size), frame 1"))
        // BlueZ's bring-up (Reset, Read Local Supported Features, …) is none.
        var b = SyntheticCapture()
        for op: UInt16 in [0x0C03, 0x1003, 0x1001, 0x1009] { b.sent(SyntheticCapture.command(op)) }
        #expect(CaptureLinter.lint(path: try b.file()).facts.platform.platform == .unknown)
        // A vendor command, decisive, replaces the weak sign.
        s.sent(SyntheticCapture.command(0xFD53))
        #expect(CaptureLinter.lint(path: try s.file()).facts.platform.evidence.contains("0xFD53"))
    }

    /// An old Android stack without vendor commands: scan parameters exactly one of AOSP's
    /// scan-mode pairs are a weak sign, read by the detector (no rule reads them as a platform).
    @Test func androidFromExactScanModeParameters() throws {
        var s = SyntheticCapture()
        // LE Set Scan Parameters: active, interval 8000 slots (5000 ms), window 3200 (2000 ms).
        s.sent(SyntheticCapture.command(0x200B, [0x01, 0x40, 0x1F, 0x80, 0x0C, 0x00, 0x00]))
        s.received(SyntheticCapture.complete(0x200B))
        let r = CaptureLinter.lint(path: try s.file())
        #expect(r.facts.platform.platform == .android)
        #expect(r.facts.platform.evidence.contains("SCAN_MODE_BALANCED"), "\(r.facts.platform.evidence)")
        // BlueZ's default (60 ms / 30 ms) is no sign.
        var b = SyntheticCapture()
        b.sent(SyntheticCapture.command(0x200B, [0x01, 0x60, 0x00, 0x30, 0x00, 0x00, 0x00]))
        #expect(CaptureLinter.lint(path: try b.file()).facts.platform.platform == .unknown)
    }

    /// Every rule reads the engine's platform: forced to iOS, an Android capture's scan findings
    /// carry no Android advice, and the vendor command's evidence names it from the command table.
    @Test func scanRulesFollowTheEnginesPlatform() {
        var c = LintConfiguration()
        c.platform = .apple
        let ios = lint("public/btsnoop-android_domyos-treadmill-ftms.log", c)
        let android = lint("public/btsnoop-android_domyos-treadmill-ftms.log")
        for slug in ["scan-left-running", "unfiltered-scan"] {
            #expect(android.findings.contains { $0.slug == slug && $0.message.contains("BluetoothLeScanner") })
            #expect(!ios.findings.contains { $0.slug == slug && $0.message.contains("BluetoothLeScanner") })
        }
        #expect(android.facts.platform.evidence.contains("LE Get Vendor Capabilities (0xFD53)"))
    }

    @Test func androidFromABugReportPath() throws {
        let path = Fixtures.capture("bumble/clean_heart_rate.central.btsnoop")
        let inBugReport = CaptureLinter.lint(
            reader: try CaptureFile.open(path: path), name: "bugreport.zip!FS/data/misc/bluetooth/logs/btsnoop_hci.log",
            reopen: nil)
        #expect(inBugReport.facts.platform.platform == .android)
        #expect(inBugReport.facts.platform.evidence.contains("bug report"))
        // The bare file name is a weak sign; any decisive one replaces it.
        let named = CaptureLinter.lint(reader: try CaptureFile.open(path: path), name: "btsnoop_hci.log", reopen: nil)
        #expect(named.facts.platform.platform == .android)
        #expect(named.facts.platform.evidence.contains("file name"))
        let snooz = CaptureLinter.lint(
            reader: try CaptureFile.open(path: path), name: "b.zip!bugreport-x-2026-11-22-11-30-00.txt", reopen: nil)
        #expect(snooz.facts.platform.evidence.contains("btsnooz section"))
    }
}

@Suite struct PlatformFindingsTests {
    /// Android's own GATT service indicates Service Changed (handle 0x0003) to a client that
    /// never subscribed on this link: the OS's doing, never "a peripheral app".
    @Test func serviceChangedOfAndroidsOwnGATTServiceIsTheOSStacks() throws {
        var s = SyntheticCapture()
        s.sent(SyntheticCapture.command(0xFD53))
        s.received(SyntheticCapture.complete(0xFD53))
        s.received(SyntheticCapture.leConnectionComplete(handle: 0x40))
        s.sent(SyntheticCapture.att(handle: 0x40, [0x1D, 0x03, 0x00, 0x01, 0x00, 0xFF, 0xFF]))
        s.received(SyntheticCapture.att(handle: 0x40, [0x1E]))
        s.received(SyntheticCapture.disconnectionComplete(handle: 0x40))
        let r = CaptureLinter.lint(path: try s.file())
        #expect(r.facts.platform.platform == .android)
        let f = try #require(r.of("notify-without-subscription").first)
        #expect(f.party == .osStack)
        #expect(f.message.contains("the OS's own GATT service") && !f.message.contains("peripheral app"))
    }

    /// The same indication on an app's handle of an Android host is the app's, with Android's advice.
    @Test func anAppsUnsubscribedNotificationGetsAndroidsAdvice() throws {
        var s = SyntheticCapture()
        s.sent(SyntheticCapture.command(0xFD57, [0x00]))
        s.received(SyntheticCapture.leConnectionComplete(handle: 0x40))
        s.sent(SyntheticCapture.att(handle: 0x40, [0x1B, 0x2A, 0x00, 0x01, 0x02]))
        s.received(SyntheticCapture.disconnectionComplete(handle: 0x40))
        let r = CaptureLinter.lint(path: try s.file())
        let f = try #require(r.of("notify-without-subscription").first)
        #expect(f.party == .app)
        #expect(f.message.contains("notifyCharacteristicChanged") && !f.message.contains("peripheralManager"))
    }

    /// One connection in which this host (the client) subscribes to 0x0011 through its CCCD
    /// 0x0012, then (optionally encrypted) one in which it does not and the peer notifies.
    static func resubscriptionCapture(secondEncrypted: Bool) throws -> String {
        typealias S = SyntheticCapture
        var s = S()
        s.sent(S.command(0xFD53))
        s.received(S.complete(0xFD53))
        s.received(S.leConnectionComplete(handle: 0x40))
        s.sent(S.att(handle: 0x40, [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28]))
        s.received(S.att(handle: 0x40, [0x09, 7, 0x10, 0x00, 0x10, 0x11, 0x00, 0x37, 0x2A]))
        s.sent(S.att(handle: 0x40, [0x04, 0x12, 0x00, 0x12, 0x00]))
        s.received(S.att(handle: 0x40, [0x05, 0x01, 0x12, 0x00, 0x02, 0x29]))
        s.sent(S.att(handle: 0x40, [0x12, 0x12, 0x00, 0x01, 0x00]))
        s.received(S.att(handle: 0x40, [0x13]))
        s.received(S.att(handle: 0x40, [0x1B, 0x11, 0x00, 0x50]))
        s.received(S.disconnectionComplete(handle: 0x40))
        s.received(S.leConnectionComplete(handle: 0x41))
        if secondEncrypted { s.received(S.encryptionChange(handle: 0x41)) }
        s.received(S.att(handle: 0x41, [0x1B, 0x11, 0x00, 0x51]))
        s.received(S.disconnectionComplete(handle: 0x41))
        return try s.file()
    }

    /// Issue 27: "a bonded client's subscription persists" is no reason on a link that was
    /// never encrypted: no bond was used on it, so it is judged.
    @Test func subscriptionFromAnEarlierConnectionCountsOnlyOnAnEncryptedLink() throws {
        let plain = CaptureLinter.lint(path: try Self.resubscriptionCapture(secondEncrypted: false))
        let f = try #require(plain.of("notify-without-subscription").first)
        #expect(plain.of("notify-without-subscription").count == 1)
        #expect(f.connection == 2 && f.party == .peer)
        #expect(f.message.contains("never encrypted") && f.message.contains("setCharacteristicNotification"))
        #expect(!plain.notEvaluated.contains { $0.reason.contains("bonded client") })

        let bonded = CaptureLinter.lint(path: try Self.resubscriptionCapture(secondEncrypted: true))
        #expect(bonded.of("notify-without-subscription").isEmpty)
        #expect(
            bonded.notEvaluated.contains {
                $0.slug == "notify-without-subscription" && $0.reason.contains("bonded client")
            })
    }

    /// Issue 27: on Android no dropped reference cancels an attempt; the finding says what the
    /// app did in Android's terms, and an attempt the stack re-issues at once is not reported.
    @Test func peripheralNotRetainedSpeaksAndroidOnAndroid() throws {
        typealias S = SyntheticCapture
        var s = S()
        s.sent(S.command(0xFD53))
        s.received(S.complete(0xFD53))
        s.sent(S.leCreateConnection())
        s.received(S.commandStatus(0x200D))
        s.sent(S.command(0x200E))
        s.received(S.complete(0x200E))
        s.received(S.leConnectionCancelled())
        let r = CaptureLinter.lint(path: try s.file())
        let f = try #require(r.of("peripheral-not-retained").first)
        #expect(f.message.contains("BluetoothGatt.disconnect() or close()") && !f.message.contains("CBPeripheral"))
        #expect(f.party == .app)

        // The same cancel followed at once by a new attempt to the same peer: the stack's restart.
        s.sent(S.leCreateConnection())
        s.received(S.commandStatus(0x200D))
        s.received(S.leConnectionComplete(handle: 0x40))
        let again = CaptureLinter.lint(path: try s.file())
        #expect(again.of("peripheral-not-retained").isEmpty)
        #expect(again.notEvaluated.contains { $0.slug == "peripheral-not-retained" && $0.reason.contains("re-issued") })
        // Core Bluetooth's wording stays for Apple's captures.
        var apple = LintConfiguration()
        apple.platform = .apple
        let cb = CaptureLinter.lint(path: try s.file(), configuration: apple)
        #expect(cb.of("peripheral-not-retained").first?.message.contains("CBPeripheral") == true)
    }

    @Test func everyFindingCarriesItsRulesDefaultPartyUnlessTheRuleSaidOtherwise() {
        let r = bumble("oversized_and_unchecked_writes.central")
        #expect(!r.findings.isEmpty)
        for f in r.findings {
            let d = RuleRegistry.rule(named: f.ruleID)!.descriptor
            #expect(f.party == d.party)
        }
    }

    @Test func fixTextFollowsThePlatform() throws {
        let d = RuleRegistry.rule(named: "oversized-write")!.descriptor
        #expect(d.fix(for: .android).code.contains("requestMtu"))
        #expect(d.fix(for: .apple).code.contains("maximumWriteValueLength"))
        #expect(d.fix(for: .unknown).language == "swift")
        var c = LintConfiguration()
        c.platform = .android
        let text = TextReporter.render([bumble("oversized_and_unchecked_writes.central", c)])
        #expect(text.contains("fix (kotlin):") && text.contains("onMtuChanged"))
        #expect(text.contains("platform: Android (set with --platform)"))
        #expect(RuleDocs.markdown(d, platform: .android).contains("## Fix on Android"))
        #expect(!RuleDocs.markdown(d, platform: .apple).contains("Android"))
        #expect(RuleDocs.markdown(d).contains("## On Android"))
    }

    @Test func everyNonScanRuleHasAndroidAdvice() {
        let scan: Set = ["unfiltered-scan", "scan-left-running", "scan-before-powered-on"]
        for d in RuleRegistry.descriptors where !scan.contains(d.slug) {
            #expect(d.android != nil, "\(d.slug)")
            #expect(RuleDocs.markdown(d).contains("## On Android"), "\(d.slug)")
        }
    }
}

@Suite struct PlatformReporterTests {
    @Test func jsonAndSARIFCarryPlatformAndParty() throws {
        let r = lint("public/btsnoop-android_domyos-treadmill-ftms.log")
        let json = try #require(
            JSONSerialization.jsonObject(with: Data(JSONReporter.render([r]).utf8)) as? [String: Any])
        let capture = try #require((json["captures"] as? [[String: Any]])?.first)
        let platform = try #require(capture["platform"] as? [String: Any])
        #expect(platform["name"] as? String == "android" && platform["source"] as? String == "detected")
        let findings = try #require(capture["findings"] as? [[String: Any]])
        #expect(!findings.isEmpty && findings.allSatisfy { Party(rawValue: $0["party"] as? String ?? "") != nil })
        let sarif = try #require(
            JSONSerialization.jsonObject(with: Data(SARIFReporter.render([r]).utf8)) as? [String: Any])
        let results = try #require(((sarif["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        let props = try #require(results.first?["properties"] as? [String: Any])
        #expect(props["platform"] as? String == "android" && props["party"] as? String != nil)
    }

    @Test func notEvaluatedIsOneLineUnlessVerbose() {
        let r = bumble("clean_heart_rate.central")
        #expect(r.notEvaluated.count > 1)
        let text = TextReporter.render([r])
        let lines = text.split(separator: "\n").filter { $0.contains("not evaluated") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("--verbose") == true)
        let verbose = TextReporter.render([r], verbose: true)
        #expect(verbose.split(separator: "\n").filter { $0.contains("not evaluated:") }.count == r.notEvaluated.count)
    }

    @Test func everyFormatNamesTheParty() {
        let r = bumble("oversized_and_unchecked_writes.central")
        #expect(TextReporter.render([r]).contains("behaviour of this app"))
        #expect(MarkdownReporter.render([r]).contains("| app |"))
        #expect(JUnitReporter.render([r]).contains("behaviour of: this app (app)"))
        #expect(GitHubReporter.render([r]).contains("behaviour of this app"))
    }
}
