import BLEBytes
import BLELint
import Foundation
import TestSupport
import Testing

/// BLE011–BLE014 on real captures: the case each must report, and the cases it must not.
/// Where no shared capture shows a violation, a real capture is minimally edited in the test
/// (records moved, bytes otherwise untouched), and the test says so.

/// Copies a btsnoop file with record `frame` (1-based) moved to just after record `after`,
/// taking that record's timestamp so time still runs forward. Real bytes in a new order: a
/// packet the host logged before another is logged after it.
func btsnoopMoving(_ source: String, frame: Int, after: Int) throws -> String {
    let data = try Fixtures.bytes(atPath: source)
    var records: [[UInt8]] = []
    var i = 16
    func u32be(_ o: Int) -> Int { Int(data[o..<o + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
    while i + 24 <= data.count {
        let incl = u32be(i + 4)
        guard i + 24 + incl <= data.count else { break }
        records.append(Array(data[i..<(i + 24 + incl)]))
        i += 24 + incl
    }
    try #require(frame < after && after <= records.count)
    var moved = records.remove(at: frame - 1)
    let anchor = records[after - 2]  // `after` shifted down by one
    moved.replaceSubrange(16..<24, with: anchor[16..<24])
    records.insert(moved, at: after - 1)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("blecap-lint-\(UUID().uuidString).btsnoop")
        .path
    try Data(Array(data[0..<16]) + records.joined()).write(to: URL(fileURLWithPath: path))
    return path
}

/// Runs the default rules over an API trace.
func lintAPI(_ calls: [APICall]) -> [Finding] {
    let engine = LintEngine()
    for c in calls { engine.observe(.api(c)) }
    return engine.finish().findings
}

let pulseBelt = BDAddr("D8:0D:18:00:00:01")!

@Suite struct GattBeforeConnectedTests {
    @Test func mtuExchangeSentBeforeConnectionComplete() throws {
        // Derived: clean_heart_rate.central with its LE Connection Complete (frame 43) moved
        // after the Exchange MTU Request/Response (44–46). No shared capture shows this.
        let path = try btsnoopMoving(Fixtures.capture("bumble/clean_heart_rate.central.btsnoop"), frame: 43, after: 46)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let f = CaptureLinter.lint(path: path).of("gatt-before-connected")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.firstFrame == 43)  // the Exchange MTU Request, now frame 43
        #expect(x.frames.contains(46))  // the Connection Complete, now frame 46
        #expect(
            x.message.contains("Exchange MTU Request") && x.message.contains("0x0001")
                && x.message.contains("before its Connection Complete"))
        #expect(x.peer == "D8:0D:18:00:00:01")
        #expect(x.severity == .error && x.evidence == .hci)
    }

    @Test func requestOnAReusedHandleBeforeTheNextConnectionCompleted() throws {
        // Derived: reconnect_storm.central with connection 2's LE Connection Complete (61)
        // moved after its Exchange MTU Request (62): the request goes out on handle 0x0001
        // after connection 1 ended there (58) and before connection 2 exists.
        let path = try btsnoopMoving(Fixtures.capture("bumble/reconnect_storm.central.btsnoop"), frame: 61, after: 62)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let f = CaptureLinter.lint(path: path).of("gatt-before-connected")
        #expect(f.map(\.firstFrame) == [61])
        #expect(f.first?.frames.contains(62) == true && f.first?.frames.contains(58) == true)
        #expect(f.first?.message.contains("after the previous connection on it ended") == true)
    }

    @Test func capturesStartingMidConnectionAreNoViolation() throws {
        // ATT on a handle with no Connection Complete anywhere: connected before the capture.
        // An Android log filtered to ACL, and a Bumble session from frame 53 on (after its
        // connection and discovery).
        let suffix = try btsnoopSuffix("bumble/oversized_and_unchecked_writes.central.btsnoop", from: 53)
        defer { try? FileManager.default.removeItem(atPath: suffix) }
        for r in [lint("public/btsnoop-android_revcar-acl-only.log"), CaptureLinter.lint(path: suffix)] {
            #expect(r.of("gatt-before-connected").isEmpty)
            #expect(r.notEvaluable("gatt-before-connected") != nil)
        }
    }

    @Test(arguments: [
        "bumble/reconnect_storm.central.btsnoop", "bumble/two_peripherals_concurrent.central.btsnoop",
        "public/btsnoop-android_domyos-treadmill-ftms.log", "public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg",
    ])
    func trafficAfterEachConnectionCompleteIsFine(_ path: String) {
        // Handles reused six times (Bumble), two at once, an Android connection and 91 iOS ones.
        let r = lint(path)
        #expect(r.notEvaluable("gatt-before-connected") == nil)
        #expect(r.of("gatt-before-connected").isEmpty)
    }

    @Test func apiTraceCallsBeforeDidConnect() {
        let f = lintAPI([
            APICall(sequence: 1, time: 0, peer: pulseBelt, kind: .connect(state: .poweredOn, retained: true)),
            APICall(sequence: 2, time: 10, peer: pulseBelt, kind: .discoverServices(services: nil, delegateSet: true)),
            APICall(sequence: 3, time: 20, peer: pulseBelt, kind: .didConnect),
            APICall(sequence: 4, time: 30, peer: pulseBelt, kind: .discoverServices(services: nil, delegateSet: true)),
            APICall(sequence: 5, time: 40, peer: pulseBelt, kind: .didDisconnect),
            APICall(
                sequence: 6, time: 50, peer: pulseBelt,
                kind: .writeValue(
                    handle: 0x12, length: 4, withResponse: true, properties: 0x08,
                    maximumWriteValueLength: 20, canSendWriteWithoutResponse: true)),
        ]).filter { $0.slug == "gatt-before-connected" }
        #expect(f.map(\.firstFrame) == [2, 6])
        #expect(f.allSatisfy { $0.evidence == .api })
        #expect(f.first?.message.contains("discoverServices(_:)") == true)
    }
}

@Suite struct FullDiscoveryTests {
    @Test func everythingDiscoveredNothingUsed() throws {
        let f = bumble("nil_scan_all_services.central").of("full-discovery")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.firstFrame == 426 && x.frames.contains(435))
        #expect(x.severity == .note && x.connection == 1 && x.peer == "D8:0D:18:00:00:01")
        // 10 characteristics in the responses of frames 435–472; 2 are GAP's (0x0001–0x0005)
        // and 3 GATT's (0x0006–0x000D), which Core Bluetooth never shows an app.
        #expect(
            x.message.contains("5 primary services") && x.message.contains("5 characteristics")
                && x.message.contains("not counting the GAP and GATT") && x.message.contains("never read"))
    }

    @Test func threeOfElevenUsedAcrossTwoConnections() throws {
        // Connection 2 uses cached handles: 0x0015 (written only there) counts for the session.
        let f = bumble("cached_reconnect.central").of("full-discovery")
        #expect(f.map(\.firstFrame) == [43])
        let x = try #require(f.first)
        // 11 in the responses, 5 of them GAP's and GATT's: 3 of the app's 6 were used.
        #expect(x.message.contains("6 characteristics") && x.message.contains("only 3 of them"))
        #expect(x.message.contains("Body Sensor Location") && x.message.contains("Heart Rate Control Point"))
        #expect(x.frames.contains(114))  // the control-point write of connection 2
    }

    @Test func fewIsAThreshold() {
        // 3 of 6 is 50 %: a finding at the default 50 %, none at 25 %.
        var c = LintConfiguration()
        c.overrides["BLE012"] = .init(thresholds: ["max_used_fraction": 0.25])
        #expect(bumble("cached_reconnect.central", c).of("full-discovery").isEmpty)
        c.overrides["BLE012"] = .init(thresholds: ["min_characteristics": 7])
        #expect(bumble("cached_reconnect.central", c).of("full-discovery").isEmpty)
    }

    @Test(arguments: [
        "clean_heart_rate.central", "reconnect_storm.central", "two_peripherals_concurrent.central",
        "nil_scan_all_services.peripheral", "cached_reconnect.peripheral",
    ])
    func discoveryByUUIDOrByThePeerIsFine(_ name: String) {
        // Find By Type Value discovery (by UUID), and peripherals whose database the peer
        // discovered: not this host's discovery.
        let r = bumble(name)
        #expect(r.notEvaluable("full-discovery") == nil)
        #expect(r.of("full-discovery").isEmpty)
    }
}

@Suite struct ReconnectStormTests {
    @Test func sixImmediateReconnects() throws {
        let f = bumble("reconnect_storm.central").of("reconnect-storm")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.firstFrame == 59 && x.severity == .warning && x.peer == "D8:0D:18:00:00:01")
        for frame in [58, 69, 84, 94, 104, 68, 83] { #expect(x.frames.contains(frame), "\(frame)") }
        #expect(x.message.contains("6 reconnection attempts") && x.message.contains("within 1.7 s"))
    }

    @Test func stormSizeIsAThreshold() {
        var c = LintConfiguration()
        c.overrides["BLE013"] = .init(thresholds: ["attempts": 7])
        #expect(bumble("reconnect_storm.central", c).of("reconnect-storm").isEmpty)
        c.overrides["BLE013"] = .init(thresholds: ["window_s": 0.5])
        #expect(bumble("reconnect_storm.central", c).of("reconnect-storm").isEmpty)  // 4 attempts take 0.84 s
    }

    @Test func supervisionTimeoutWithoutReconnect() throws {
        // Android and a treadmill: the link times out (0x08) at 194.4 s; the capture runs on
        // 32 s with no new LE Create Connection.
        let f = lint("public/btsnoop-android_domyos-treadmill-ftms.log").of("reconnect-storm")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.firstFrame == 5143 && x.severity == .note && x.connection == 1)
        #expect(x.message.contains("0x08 Connection Timeout") && x.message.contains("E8:5D:86:0A:72:7F"))
    }

    @Test(arguments: [
        "bumble/cached_reconnect.central.btsnoop", "bumble/reconnect_storm.peripheral.btsnoop",
        "public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg",
    ])
    func reconnectsWithBackOffOrLossesFollowedByReconnects(_ path: String) {
        // One reconnect 2 s after a local disconnect; a peripheral (cannot reconnect); iOS
        // reconnecting 91 times. (Android captures with reconnects minutes apart after
        // supervision timeouts are linted by `make conformance`.)
        #expect(lint(path).of("reconnect-storm").isEmpty)
    }

    @Test func captureEndingSoonAfterALossCannotTell() throws {
        // The treadmill capture cut right after its supervision timeout (0x08 on
        // E8:5D:86:0A:72:7F, frame 5143): whether the app reconnects cannot be seen.
        let path = try btsnoopPrefix("public/btsnoop-android_domyos-treadmill-ftms.log", frames: 5143)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = CaptureLinter.lint(path: path)
        #expect(r.of("reconnect-storm").isEmpty)
        #expect(
            r.notEvaluated.contains {
                $0.slug == "reconnect-storm" && !$0.whole && $0.reason.contains("E8:5D:86:0A:72:7F")
            })
    }
}

@Suite struct PeripheralNotRetainedTests {
    @Test func createCancelledAfterHalfAMillisecond() throws {
        let f = bumble("reconnect_storm.central").of("peripheral-not-retained")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.frames == [79, 81, 83])
        #expect(x.evidence == .inferred && x.peer == "D8:0D:18:00:00:01")
        #expect(x.message.contains("0.49 ms") && x.message.contains("0x02 Unknown Connection Identifier"))
    }

    @Test func cancelDelayIsAThreshold() {
        var c = LintConfiguration()
        c.overrides["BLE014"] = .init(thresholds: ["cancel_within_s": 0.0004])
        #expect(bumble("reconnect_storm.central", c).of("peripheral-not-retained").isEmpty)
    }

    @Test(arguments: [
        "public/pklg-be_hciparse-test00-macos.pklg", "public/pklg-be_ios-sysdiagnose-bafang-ebike.pklg",
        "public/btsnoop-android_domyos-treadmill-ftms.log", "bumble/cached_reconnect.central.btsnoop",
    ])
    func acceptListUpdatesAndPlainConnectsAreFine(_ path: String) {
        // macOS and iOS cancel and re-issue their accept-list LE Create Connection within
        // milliseconds dozens of times; none of it is attributable to one peripheral.
        let r = lint(path)
        #expect(r.notEvaluable("peripheral-not-retained") == nil)
        #expect(r.of("peripheral-not-retained").isEmpty)
    }

    @Test func unattributableAcceptListCancelIsSaidSo() throws {
        // macOS: an accept-list LE Create Connection (frame 108) cancelled 9.7 s later (126,
        // Connection Complete 0x02 at 128); the capture cut there, so it is not re-issued.
        // With cancel_within_s above those 9.7 s the cancel counts, but names no peer. (An
        // Android phone doing the same within 4 ms is linted by `make conformance`.)
        let path = try capturePrefix("public/pklg-be_hciparse-test00-macos.pklg", frames: 128)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var c = LintConfiguration()
        c.overrides["BLE014"] = .init(thresholds: ["cancel_within_s": 10])
        let r = CaptureLinter.lint(path: path, configuration: c)
        #expect(r.error == nil)
        #expect(r.of("peripheral-not-retained").isEmpty)
        #expect(
            r.notEvaluated.contains {
                $0.slug == "peripheral-not-retained" && !$0.whole && $0.reason.contains("accept list")
            })
    }

    @Test func apiTraceSaysWhetherThePeripheralWasRetained() {
        let f = lintAPI([
            APICall(sequence: 1, time: 0, peer: pulseBelt, kind: .connect(state: .poweredOn, retained: true)),
            APICall(sequence: 2, time: 5, peer: pulseBelt, kind: .connect(state: .poweredOn)),
            APICall(sequence: 3, time: 10, peer: pulseBelt, kind: .connect(state: .poweredOn, retained: false)),
        ]).filter { $0.slug == "peripheral-not-retained" }
        #expect(f.map(\.firstFrame) == [3])
        #expect(f.first?.evidence == .api)
    }
}
