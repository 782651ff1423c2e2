import BLEBytes
import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `blecap serve` as a process: usage errors, and a host on a loopback socket that connects to
/// the captured peripheral, reads, disconnects and hangs up.
@Suite struct ServeCommandTests {
    static let capture = Fixtures.capture("bumble/hr_short_notification.central.btsnoop")
    /// An attempt that never became a connection: nothing for either role to serve.
    static let noConnection = "diagnose/attempt.page_timeout.btsnoop"

    /// serve opens its capture as every command does: from standard input, and inside archives.
    @Test func theCaptureComesFromStandardInputOrAnArchive() throws {
        let scratch = try Scratch()
        let gz = scratch.file("c.btsnoop.gz")
        try ArchiveWriter.write(
            .gzip, to: gz, entries: [("c", try Fixtures.bytes(Self.noConnection))])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.capture(Self.noConnection)))
        // A capture without a connection: opened and read, then nothing to serve (2).
        for (arguments, stdin) in [(["-"], Optional(bytes)), ([gz], nil)] {
            let run = try CLIRunner.run(["serve", "--transport", "pty", "--role", "central"] + arguments, stdin: stdin)
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains("nothing to serve"))
        }
        let missing = try CLIRunner.run(["serve", "--transport", "pty", "/nonexistent/x.btsnoop"])
        #expect(missing.status == 4)
    }

    @Test func usageErrorsExit2AndTransportErrors4() throws {
        let bad = try CLIRunner.run(["serve", Self.capture, "--transport", "serial:/dev/ttyS0"])
        #expect(bad.status == 2)
        let role = try CLIRunner.run([
            "serve", Fixtures.capture(Self.noConnection), "--transport", "pty", "--role", "central",
        ])
        #expect(role.status == 2)
        // A capture without a connection has no captured central to play.
        #expect(role.stderr.contains("no connection in this capture"))
        let any = try CLIRunner.run(["serve", Self.capture, "--transport", "tcp-server:0.0.0.0:0"])
        #expect(any.status == 2)
        #expect(any.stderr.contains("loopback"))
        if access("/dev/vhci", F_OK) != 0 {
            let vhci = try CLIRunner.run(["serve", Self.capture, "--transport", "vhci"])
            #expect(vhci.status == 4)
            #expect(vhci.stderr.contains("/dev/vhci does not exist"))
        }
    }

    @Test func aHostOverTCPConnectsReadsAndTheReportSaysWhatDiffered() throws {
        // The test listens; blecap serve connects to it (tcp-client) and is the controller.
        let (listener, port) = LoopbackListener.open()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("serve-cli-\(getpid()).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let box = CLIBox()
        let args = [
            "serve", Self.capture, "--transport", "tcp-client:127.0.0.1:\(port)", "--out", out, "--format", "json",
            "--speed", "max", "--timeout", "20",
        ]
        let thread = Thread { box.result = try? CLIRunner.run(args) }
        thread.start()
        var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 10_000) == 1)
        let host = accept(listener, nil, nil)
        close(listener)
        #expect(host >= 0)
        func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(host, $0.baseAddress, $0.count) } }
        var inbox: [UInt8] = []
        /// Reads until `done` holds for what came so far (at most 5 s).
        func receiveUntil(_ done: ([UInt8]) -> Bool) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var spins = 0
            while !done(inbox), spins < 100 {
                var q = pollfd(fd: host, events: Int16(POLLIN), revents: 0)
                if poll(&q, 1, 50) == 1 {
                    let n = read(host, &buffer, buffer.count)
                    if n > 0 { inbox += buffer[0..<n] }
                }
                spins += 1
            }
        }
        var mask = ByteWriter()
        mask.appendUInt64LE(0x3DBF_F807_FFFB_FFFF)
        send(HCISynthesis.command(HCIOpcode.reset))
        send(HCISynthesis.command(HCIOpcode.setEventMask, mask.bytes))
        let create = HCILECreateConnection(
            scanInterval: 96, scanWindow: 96, initiatorFilterPolicy: 0, peerAddressType: 1,
            peerAddress: BDAddr("D8:0D:18:00:00:01")!, ownAddressType: 1,
            connection: HCIConnectionParameters(
                intervalMin: 12, intervalMax: 12, maxLatency: 0, supervisionTimeout: 72, minCELength: 0, maxCELength: 0)
        )
        send(create.h4Encoded())
        // LE Meta, LE Connection Complete, status 0.
        receiveUntil { $0.count >= 3 && $0.windows(ofCount: 3).contains([HCIEventCode.leMeta, 19, 1]) }
        #expect(inbox.windows(ofCount: 3).contains([HCIEventCode.leMeta, 19, 1]))
        // Read the Body Sensor Location (captured value 0x01) on handle 0x0001.
        send(
            HCISynthesis.acl(
                handle: 1, payload: [ATTOpcode.readRequest.rawValue, 0x13, 0x00], received: false, fragment: 251)[0])
        receiveUntil { $0.contains(ATTOpcode.readResponse.rawValue) }
        send(HCIDisconnect(handle: 1, reason: HCIError.remoteUserTerminatedConnection).h4Encoded())
        receiveUntil { $0.contains(HCIEventCode.disconnectionComplete) }
        close(host)
        while box.result == nil { usleep(50_000) }
        let run = try #require(box.result)
        // The host did far less than the captured central: differences, exit 1.
        #expect(run.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let operations = try #require(report["operations"] as? [[[String: Any]]])
        let verdicts = operations.first?.compactMap { $0["verdict"] as? String } ?? []
        #expect(verdicts.contains("same"))  // the Read Request 0x0013
        #expect(verdicts.contains("missing"))
        // --out holds both directions and reads back as a capture.
        let reader = try CaptureFile.open(path: out)
        var kinds: Set<String> = []
        while let r = reader.next() { kinds.insert("\(r.direction)-\(r.kind)") }
        #expect(kinds.contains("sent-hciCommand"))
        #expect(kinds.contains("received-hciEvent"))
        #expect(kinds.contains("sent-aclData"))
        #expect(kinds.contains("received-aclData"))
    }
}

final class CLIBox: @unchecked Sendable {
    var result: CLIRun?
}

extension Array where Element == UInt8 {
    func windows(ofCount n: Int) -> [[UInt8]] {
        count < n ? [] : (0...(count - n)).map { Array(self[$0..<($0 + n)]) }
    }
}
