import BLELint
import BLETimeline
import CaptureIO
import Foundation
import TestSupport
import Testing

/// Hand-made Android HCI traffic (btsnoop, H4) for the scan cases of issue 27 the shipped
/// captures do not show: AOSP's APCF layouts (0xFD57), LE scan, connection and Inquiry
/// commands built byte by byte (Core 5.4 Vol 4 Part E 7), linted as a file.
final class AndroidHCIScript {
    var w = BTSnoopWriter()
    var time: Int64
    var frames = 0

    init(startMicros: Int64 = 1_700_000_000_000_000) { time = startMicros }

    func advance(seconds: Double) { time += Int64(seconds * 1_000_000) }

    @discardableResult func cmd(_ opcode: UInt16, _ p: [UInt8]) -> Int {
        w.append(
            [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(p.count)] + p, received: false, unixMicros: time)
        time += 2_000
        frames += 1
        return frames
    }
    @discardableResult func evt(_ code: UInt8, _ p: [UInt8]) -> Int {
        w.append([0x04, code, UInt8(p.count)] + p, received: true, unixMicros: time)
        time += 2_000
        frames += 1
        return frames
    }
    @discardableResult func complete(_ opcode: UInt16, _ ret: [UInt8]) -> Int {
        evt(0x0E, [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + ret)
    }
    func reset() {
        cmd(0x0C03, [])
        complete(0x0C03, [0])
    }
    /// An APCF command and its Command Complete (status 0, sub-command, action, spaces).
    @discardableResult func apcf(_ p: [UInt8]) -> Int {
        cmd(0xFD57, p)
        return complete(0xFD57, [0x00, p[0]] + (p.count > 1 ? [p[1]] : []) + [0x0F])
    }
    func enableAPCF() { apcf([0x00, 0x01]) }
    static let params: [UInt8] = [0x11, 0x11, 0x01, 0x80, 0x00] + [UInt8](repeating: 0, count: 6)
    /// Set Filtering Parameters add: `features` 0 is AOSP's all-pass filter.
    @discardableResult func filter(_ index: UInt8, features: UInt16) -> Int {
        apcf([0x01, 0x00, index, UInt8(features & 0xFF), UInt8(features >> 8)] + Self.params)
    }
    @discardableResult func deleteFilter(_ index: UInt8) -> Int { apcf([0x01, 0x01, index]) }
    /// A service UUID condition and its filter (feature 0x0004).
    func uuidFilter(_ index: UInt8, _ uuid: UInt16) {
        apcf([0x03, 0x00, index, UInt8(uuid & 0xFF), UInt8(uuid >> 8), 0xFF, 0xFF])
        filter(index, features: 0x0004)
    }
    /// LE Set Scan Parameters, window and interval in ms.
    func scanParameters(windowMs: Double, intervalMs: Double) {
        let i = UInt16(intervalMs / 0.625)
        let wi = UInt16(windowMs / 0.625)
        cmd(0x200B, [0x01, UInt8(i & 0xFF), UInt8(i >> 8), UInt8(wi & 0xFF), UInt8(wi >> 8), 0x00, 0x00])
        complete(0x200B, [0])
    }
    @discardableResult func scan(_ on: Bool) -> Int {
        let f = cmd(0x200C, [on ? 1 : 0, 0])
        complete(0x200C, [0])
        return f
    }
    /// A legacy advertising report (ADV_IND) from `addr` (written most significant byte first).
    @discardableResult func advertisement(_ addr: [UInt8]) -> Int {
        evt(0x3E, [0x02, 0x01, 0x00, 0x00] + addr.reversed() + [0x03, 0x02, 0x01, 0x06, 0xC0])
    }
    /// LE Create Connection (policy 0: to `addr`; 1: through the filter accept list).
    @discardableResult func createConnection(_ addr: [UInt8], policy: UInt8 = 0) -> Int {
        let f = cmd(
            0x200D,
            [0x60, 0x00, 0x30, 0x00, policy, 0x00] + addr.reversed()
                + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00])
        evt(0x0F, [0x00, 0x01, 0x0D, 0x20])
        return f
    }
    /// LE Add Device To Filter Accept List (7.8.16) and its Command Complete with `status`.
    @discardableResult func addToAcceptList(_ addr: [UInt8], status: UInt8 = 0) -> Int {
        let f = cmd(0x2011, [0x00] + addr.reversed())
        complete(0x2011, [status])
        return f
    }
    /// LE Remove Device From Filter Accept List (7.8.17).
    @discardableResult func removeFromAcceptList(_ addr: [UInt8], status: UInt8 = 0) -> Int {
        let f = cmd(0x2012, [0x00] + addr.reversed())
        complete(0x2012, [status])
        return f
    }
    /// LE Clear Filter Accept List (7.8.15).
    @discardableResult func clearAcceptList() -> Int {
        let f = cmd(0x2010, [])
        complete(0x2010, [0])
        return f
    }
    @discardableResult func leConnected(_ handle: UInt16, _ addr: [UInt8]) -> Int {
        evt(
            0x3E,
            [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, 0x00] + addr.reversed()
                + [0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00])
    }
    /// HCI Create Connection and a BR/EDR Connection Complete (link type 0x01 ACL).
    @discardableResult func brEdrConnected(_ handle: UInt16, _ addr: [UInt8]) -> Int {
        cmd(0x0405, addr.reversed() + [0x18, 0xCC, 0x01, 0x00, 0x00, 0x00, 0x01])
        evt(0x0F, [0x00, 0x01, 0x05, 0x04])
        return evt(0x03, [0x00, UInt8(handle & 0xFF), UInt8(handle >> 8)] + addr.reversed() + [0x01, 0x00])
    }
    @discardableResult func disconnected(_ handle: UInt16) -> Int {
        evt(0x05, [0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x13])
    }
    @discardableResult func inquiry() -> Int {
        let f = cmd(0x0401, [0x33, 0x8B, 0x9E, 0x0A, 0x00])
        evt(0x0F, [0x00, 0x01, 0x01, 0x04])
        return f
    }
    /// The start every script shares: Reset, APCF on.
    func androidStart() {
        reset()
        enableAPCF()
    }

    func lint() throws -> CaptureReport {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("blecap-android-scan-\(UUID().uuidString).btsnoop").path
        try w.write(to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return CaptureLinter.lint(path: path)
    }
}

@Suite struct AndroidScanModelTests {
    static let peer: [UInt8] = [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55]
    static let other: [UInt8] = [0xC0, 0x99, 0x88, 0x77, 0x66, 0x55]

    /// Issue 27 item 1: an app alternating every 10 s between the all-pass filter and its own
    /// manufacturer-data filters (a beacon library's scan cycle) is one session: one finding,
    /// "restarted N times", the frames of each re-install.
    @Test func allPassChurnIsOneSession() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.uuidFilter(3, 0xFE2C)  // Fast Pair, the OS's
        s.advance(seconds: 1)
        let first = s.filter(1, features: 0)
        s.scan(true)
        var again: [Int] = []
        for _ in 0..<3 {
            s.advance(seconds: 10)
            s.deleteFilter(1)
            s.uuidFilter(5, 0x180D)
            s.advance(seconds: 10)
            s.deleteFilter(5)
            again.append(s.filter(1, features: 0))
        }
        s.advance(seconds: 10)
        s.scan(false)
        let r = try s.lint()
        let f = r.of("unfiltered-scan")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.frames.contains(first) || x.frames.contains(first + 1))
        for a in again { #expect(x.frames.contains(a), "\(a) in \(x.frames)") }
        #expect(x.message.contains("restarted 3 times"), "\(x.message)")
        #expect(x.message.contains("Party: this app"))
        #expect(x.message.contains("BluetoothLeScanner.startScan(filters, settings, callback)"))
        #expect(x.message.contains("Fast Pair"))
    }

    /// Issue 27 item 2: index 0 all-pass + HCI Inquiry is the stack's device discovery, named so,
    /// reported once even when restarted 28 ms later, never as the app's unfiltered scan.
    @Test func discoveryIsNamedAndReportedOnce() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.filter(0, features: 0)
        s.scan(true)
        let inquiry = s.inquiry()
        s.scan(false)
        s.time += 28_000
        s.scan(true)
        s.advance(seconds: 3)
        s.scan(false)
        let r = try s.lint()
        let f = r.of("unfiltered-scan")
        #expect(f.count == 1)
        let x = try #require(f.first)
        #expect(x.message.contains("device discovery") && x.message.contains("not this app's LE scan"))
        #expect(x.message.contains("Inquiry at frame \(inquiry)"))
        #expect(!x.message.contains("Party: this app"))
    }

    /// Issue 27 item 3: the app's filter removed before LE Create Connection: the app stopped
    /// its scan; the OS's Fast Pair scan running on is not blamed on the app.
    @Test func appFilterRemovedBeforeConnectingIsNoFinding() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.uuidFilter(3, 0xFE2C)
        s.advance(seconds: 1)  // another client's set-up burst
        s.uuidFilter(4, 0x180D)  // the app's
        s.scan(true)
        s.advertisement(Self.peer)
        s.deleteFilter(4)
        s.createConnection(Self.peer)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 5)
        s.disconnected(0x40)
        s.advance(seconds: 60)
        s.scan(false)
        let r = try s.lint()
        #expect(r.of("scan-left-running").isEmpty, "\(r.of("scan-left-running").map(\.message))")
    }

    /// The same with the app's filter still in force: a finding, party this app, with evidence.
    @Test func appFilterInForceWhenConnectingIsAFinding() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.uuidFilter(3, 0xFE2C)
        s.advance(seconds: 1)  // another client's set-up burst
        s.uuidFilter(4, 0x180D)
        s.scan(true)
        let seen = s.advertisement(Self.peer)
        let create = s.createConnection(Self.peer)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 2)
        s.scan(false)
        let r = try s.lint()
        let f = r.of("scan-left-running")
        #expect(f.count == 1)
        #expect(f.first?.firstFrame == create && f.first?.frames.contains(seen) == true)
        #expect(f.first?.message.contains("Party: this app") == true)
        #expect(f.first?.message.contains("index 4") == true)
        #expect(f.first?.message.contains("stopScan") == true)
    }

    /// Issue 27 item 3 (sphero 1516 → 1518): the scan window drops to the low-power mode just
    /// before the connection: the app's balanced scan stopped, another client's low-power scan
    /// runs on.
    @Test func dropToLowPowerBeforeConnectingIsNoFinding() throws {
        let s = AndroidHCIScript()
        s.reset()
        s.scanParameters(windowMs: 2000, intervalMs: 5000)  // balanced (Android 5)
        s.scan(true)
        s.advertisement(Self.peer)
        s.scan(false)
        s.scanParameters(windowMs: 500, intervalMs: 5000)  // low power
        s.scan(true)
        s.createConnection(Self.peer)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 2)
        s.scan(false)
        let r = try s.lint()
        #expect(r.of("scan-left-running").isEmpty, "\(r.of("scan-left-running").map(\.message))")
    }

    /// Issue 27 item 4: a BR/EDR link is never "the last connection" of an LE rule.
    @Test func brEdrLinkIsNotTheLastConnection() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.filter(1, features: 0)
        s.scan(true)
        s.brEdrConnected(0x0B, Self.other)
        s.advance(seconds: 1)
        s.disconnected(0x0B)
        s.advance(seconds: 60)
        s.scan(false)
        let r = try s.lint()
        #expect(r.of("scan-left-running").isEmpty, "\(r.of("scan-left-running").map(\.message))")
    }

    /// Issue 27 item 5: a connection through the filter accept list (initiator filter policy 1,
    /// the peer added just before) while the app's unfiltered scan runs, and the scan running on.
    @Test func acceptListConnectionIsRecognised() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.filter(1, features: 0)
        s.scan(true)
        s.advertisement(Self.peer)
        s.addToAcceptList(Self.peer)
        let create = s.createConnection([0, 0, 0, 0, 0, 0], policy: 1)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 28.7)
        s.scan(false)
        let r = try s.lint()
        let f = r.of("scan-left-running")
        #expect(f.count == 1)
        #expect(f.first?.firstFrame == create)
        #expect(f.first?.peer == "C0:11:22:33:44:55")
        #expect(f.first?.message.contains("filter accept list") == true)
    }

    /// Issue 27 item 5, from the accept-list commands: the list is followed through a clear, a
    /// remove of a device never added and an add the controller rejected (0x07 Memory Capacity
    /// Exceeded); the finding names the peer and cites the frame that added it.
    @Test func acceptListConnectionNamesThePeerFromTheListCommands() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.filter(1, features: 0)
        let start = s.scan(true)
        s.advertisement(Self.peer)
        s.addToAcceptList(Self.other)
        s.clearAcceptList()
        s.removeFromAcceptList([0xC0, 0, 0, 0, 0, 0x01])  // never added
        s.addToAcceptList([0xC0, 0, 0, 0, 0, 0x02], status: 0x07)  // rejected
        let added = s.addToAcceptList(Self.peer)
        let create = s.createConnection([0, 0, 0, 0, 0, 0], policy: 1)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 28.7)
        s.scan(false)
        let r = try s.lint()
        let f = try #require(r.of("scan-left-running").first)
        #expect(r.of("scan-left-running").count == 1)
        #expect(f.firstFrame == create && f.frames.contains(added) && f.frames.contains(start))
        #expect(f.peer == "C0:11:22:33:44:55")
        #expect(f.message.contains("the list held C0:11:22:33:44:55 (frame \(added))"), "\(f.message)")
        #expect(f.message.contains("C0:11:22:33:44:55 was on it (added at frame \(added))"))
        // The cleared, rejected and never-added devices are not on it.
        #expect(!f.message.contains("C0:99:88:77:66:55") && !f.message.contains("C0:00:00:00:00:02"))
    }

    /// A peer that connected through a list the capture saw whole, but that no add put there:
    /// said so, not guessed onto the list.
    @Test func acceptListPeerMissingFromTheListIsSaidSo() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.filter(1, features: 0)
        s.scan(true)
        s.advertisement(Self.peer)
        s.addToAcceptList(Self.other)
        s.createConnection([0, 0, 0, 0, 0, 0], policy: 1)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 5)
        s.scan(false)
        let f = try #require(try s.lint().of("scan-left-running").first)
        #expect(f.message.contains("C0:11:22:33:44:55 was not on it as the capture built it"), "\(f.message)")
    }

    /// A capture that starts without Reset or Clear: the list may hold devices added before it,
    /// and the finding says that instead of claiming the peer was or was not on it.
    @Test func acceptListSeenOnlyInPartIsNotClaimedWhole() throws {
        let s = AndroidHCIScript()
        s.enableAPCF()
        s.filter(1, features: 0)
        s.scan(true)
        s.advertisement(Self.peer)
        s.removeFromAcceptList(Self.other)  // added before the capture, perhaps
        s.createConnection([0, 0, 0, 0, 0, 0], policy: 1)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 5)
        s.scan(false)
        let f = try #require(try s.lint().of("scan-left-running").first)
        #expect(f.message.contains("possibly devices added before the capture began"), "\(f.message)")
        #expect(f.message.contains("is not among the devices the capture shows added"))
    }

    /// Issue 27 item 6: a scan restarted 64 ms after the last disconnection and left running is
    /// judged over the whole period, not at the instant of the disconnection.
    @Test func scanRestartedAfterTheLastDisconnectionAndLeftRunning() throws {
        let s = AndroidHCIScript()
        s.androidStart()
        s.uuidFilter(4, 0x180D)
        s.scan(true)
        s.advertisement(Self.peer)
        s.scan(false)
        s.createConnection(Self.peer)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 5)
        let gone = s.disconnected(0x40)
        s.time += 64_000
        let restart = s.scan(true)
        for _ in 0..<40 {
            s.advance(seconds: 1)
            s.advertisement(Self.peer)
        }
        s.scan(false)
        let r = try s.lint()
        let f = r.of("scan-left-running")
        #expect(f.count == 1, "\(f.map(\.message))")
        #expect(f.first?.frames.contains(gone) == true && f.first?.frames.contains(restart) == true)
        #expect(f.first?.message.contains("after the last connection ended (the last LE link") == true)
    }

    /// Issue 27 item 7: a capture whose clock starts before 1970 (negative Unix times): the end
    /// of the capture is its last frame, not time zero, so a scan 7.5 s old at the end is not
    /// "left running > 30 s".
    @Test func capturesBefore1970EndAtTheirLastFrame() throws {
        let s = AndroidHCIScript(startMicros: -62_000_000_000_000_000 / 1_000)
        s.androidStart()
        s.uuidFilter(4, 0x180D)
        s.scan(true)
        s.advertisement(Self.peer)
        s.scan(false)
        s.createConnection(Self.peer)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 2)
        s.disconnected(0x40)
        s.scan(true)
        s.advance(seconds: 7.5)
        s.advertisement(Self.peer)
        let r = try s.lint()
        #expect(r.of("scan-left-running").isEmpty, "\(r.of("scan-left-running").map(\.message))")
    }

    /// A capture that starts mid-scan without APCF Enable: the filters do not tell whose scan
    /// ran, and the finding says so instead of naming the app.
    @Test func unknownFilterStateIsNotAttributed() throws {
        let s = AndroidHCIScript()
        s.uuidFilter(4, 0x180D)  // no Reset, no APCF Enable: the table's state is unknown
        s.scan(true)
        s.advertisement(Self.peer)
        s.createConnection(Self.peer)
        s.leConnected(0x40, Self.peer)
        s.advance(seconds: 2)
        s.scan(false)
        let r = try s.lint()
        let f = r.of("scan-left-running")
        #expect(f.count == 1)
        #expect(f.first?.message.contains("cannot tell apart") == true)
        #expect(f.first?.message.contains("Party: this app.") == false)
    }

    /// scan-before-powered-on on Android: a scan enable before the HCI Reset is the stack's own
    /// (an app's startScan before Bluetooth is on fails in the API and never reaches HCI): noted,
    /// not blamed on the app.
    @Test func scanBeforeResetOnAndroidIsTheStacks() throws {
        let s = AndroidHCIScript()
        let early = s.scan(true)
        s.scan(false)
        s.androidStart()
        s.scan(true)
        s.scan(false)
        let r = try s.lint()
        #expect(r.of("scan-before-powered-on").isEmpty)
        let note = r.notEvaluated.first { $0.slug == "scan-before-powered-on" && !$0.whole }
        #expect(note?.reason.contains("first at frame \(early)") == true, "\(r.notEvaluated)")
    }

    /// Bad input: filters for an index never added, deletes of unknown indexes, a capture that
    /// starts mid-scan (no Reset), an APCF command whose lengths lie: decoded as far as it goes,
    /// noted, no crash, and no finding built on a guess.
    @Test func badAPCFInputIsNotedNotGuessed() throws {
        let s = AndroidHCIScript()
        // No Reset: the capture starts mid-scan.
        s.scan(true)
        s.deleteFilter(7)  // never added
        s.apcf([0x03, 0x01, 0x09, 0x0D, 0x18, 0xFF, 0xFF])  // delete a condition of an unknown index
        s.apcf([0x03, 0x00, 0x06, 0x0D])  // a UUID condition one byte long
        s.cmd(0xFD57, [])  // no sub-command at all
        s.apcf([0x06, 0x00, 0x05, 0x75])  // manufacturer data cut short
        s.filter(5, features: 0x0020)
        s.advance(seconds: 40)
        s.scan(false)
        let r = try s.lint()
        #expect(r.of("unfiltered-scan").isEmpty)
        #expect(r.of("scan-left-running").isEmpty)
    }
}
