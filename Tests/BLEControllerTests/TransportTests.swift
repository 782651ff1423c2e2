import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The runner over a real file descriptor (a socket pair standing in for the TCP link), the
/// transport names, the loopback rule, the pseudo-terminal and /dev/vhci's error.
@Suite struct TransportTests {
    static let path = Fixtures.capture("bumble/hr_short_notification.central.btsnoop")

    @Test func parsesBumbleTransportNames() throws {
        #expect(try TransportSpec("tcp-server:127.0.0.1:9000") == .tcpServer(host: "127.0.0.1", port: 9000))
        #expect(try TransportSpec("tcp-client:localhost:1234") == .tcpClient(host: "localhost", port: 1234))
        #expect(try TransportSpec("pty") == .pty(link: nil))
        #expect(try TransportSpec("pty:/tmp/x") == .pty(link: "/tmp/x"))
        #expect(try TransportSpec("vhci") == .vhci)
        #expect(throws: TransportError.self) { try TransportSpec("serial:/dev/ttyS0") }
        #expect(throws: TransportError.self) { try TransportSpec("tcp-server:127.0.0.1") }
    }

    @Test func tcpServerStaysOnLoopbackUnlessAskedOtherwise() {
        do {
            _ = try FileDescriptorTransport.open(.tcpServer(host: "0.0.0.0", port: 0), acceptTimeoutMicros: 1000)
            Issue.record("listened on 0.0.0.0 without --listen-any")
        } catch {
            #expect(error.description.contains("loopback"))
        }
    }

    @Test func vhciWithoutKernelSupportIsAClearError() {
        guard access("/dev/vhci", F_OK) != 0 else { return }  // a kernel with hci_vhci: nothing to check
        do {
            _ = try FileDescriptorTransport.open(.vhci)
            Issue.record("opened a /dev/vhci that does not exist")
        } catch {
            #expect(error.description.contains("/dev/vhci does not exist"))
        }
    }

    @Test func ptyCarriesBytesBothWays() throws {
        var announced = ""
        let t = try FileDescriptorTransport.open(.pty(link: nil)) { announced = $0 }
        defer { t.close() }
        #expect(announced.contains("/dev/pts/"))
        let host = open(t.endpoint, O_RDWR | O_NOCTTY)
        #expect(host >= 0)
        defer { close(host) }
        let reset = HCISynthesis.command(HCIOpcode.reset)
        #expect(write(host, reset, reset.count) == reset.count)
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = try buffer.withUnsafeMutableBytes { try t.receive(into: $0, timeoutMicros: 1_000_000) }
        #expect(n.map { Array(buffer[0..<$0]) } == reset)
        try t.send([4, 0x0E, 4, 1, 3, 0x0C, 0])
        var back = [UInt8](repeating: 0, count: 64)
        let m = read(host, &back, 64)
        #expect(Array(back[0..<max(0, m)]) == [4, 0x0E, 4, 1, 3, 0x0C, 0])
    }

    /// The captured host's init sequence through a socket to the runner on its own thread: one
    /// answer per command; closing the socket ends the session; --out's btsnoop holds both
    /// directions and reads back.
    @Test func runnerServesOverASocketAndRecordsBothDirections() throws {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let host = try HostSide(Self.path)
        let commands = host.packets.prefix { $0.bytes.first == H4PacketType.command }
            .map(\.bytes).filter { $0[1] != 0x0D || $0[2] != 0x20 }  // not LE Create Connection
        let box = RunnerBox(path: Self.path, fd: fds[1])
        let thread = Thread { box.run() }
        thread.start()
        var answers = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        for c in commands {
            #expect(write(fds[0], c, c.count) == c.count)
            var p = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            #expect(poll(&p, 1, 2000) == 1)
            let n = read(fds[0], &buffer, buffer.count)
            #expect(n > 0 && buffer[0] == H4PacketType.event && buffer[1] == HCIEventCode.commandComplete)
            answers += 1
        }
        close(fds[0])
        #expect(box.done.wait(timeout: .now() + 60) == .success)
        #expect(box.end == .hostClosed)
        #expect(answers == commands.count)
        let capture = try #require(box.capture)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(getpid()).btsnoop").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data(capture)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let reader = try CaptureFile.open(path: file)
        var sent = 0
        var received = 0
        while let r = reader.next() {
            if r.direction == .sent { sent += 1 } else { received += 1 }
        }
        #expect(sent == commands.count)
        #expect(received == commands.count)
    }
}

/// The runner and its results, handed between the test's thread and the runner's.
final class RunnerBox: @unchecked Sendable {
    let path: String
    let fd: Int32
    let done = DispatchSemaphore(value: 0)
    var end: ServeRunner.End?
    var capture: [UInt8]?

    init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    func run() {
        defer { done.signal() }
        guard let replay = try? CaptureReplay(path: path) else { return }
        let runner = ServeRunner(
            controller: VirtualController(replay: replay),
            transport: FileDescriptorTransport(adopting: fd, endpoint: "socket"),
            record: true)
        end = runner.run(timeoutMicros: 20_000_000)
        capture = runner.capture?.bytes
    }
}
