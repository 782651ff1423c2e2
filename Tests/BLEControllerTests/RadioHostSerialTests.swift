import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The serial path (`--controller serial:DEVICE,BAUD`) over a pseudo-terminal pair: blecap
/// opens the pty's terminal side by its name, as a UART, with the options a user writes
/// (RTS/CTS on, as by default), and a scripted controller answers on the other side through
/// one whole replayed connection, on the wall clock.
@Suite struct RadioHostSerialTests {
    @Test func aWholeConnectionOverSerialOnAPseudoTerminal() throws {
        let master = try FileDescriptorTransport.open(.pty(link: nil))
        let spec = try ControllerSpec("serial:\(master.endpoint),115200")
        #expect(spec == .serial(path: master.endpoint, baud: 115_200, flowControl: true))
        let serial = try spec.open()
        // The terminal side is raw 8N1 at the asked speed with RTS/CTS: a pty takes them all.
        var t = termios()
        #expect(tcgetattr(serial.fd, &t) == 0)
        #expect(cfgetospeed(&t) == speed_t(B115200))
        #expect(t.c_cflag & tcflag_t(CRTSCTS) != 0 && t.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
        #expect(t.c_lflag & tcflag_t(ICANON | ECHO) == 0)

        let far = ScriptedControllerOnFD(ScriptedController(), master)
        let thread = Thread { far.run() }
        thread.start()
        var config = ControllerConfiguration()
        config.speed = .max
        config.aclPackets = 255
        let virtual = VirtualController(replay: try CaptureReplay(path: RadioHostTests.central), configuration: config)
        let host = RadioHost(virtual: virtual, transport: serial, record: false)
        let end = try host.run(timeoutMicros: 30_000_000)
        serial.close()
        // The pty keeps its terminal side open for the next host: the far side is told to stop.
        far.stop.signal()
        far.done.wait()
        #expect(end == .sessionOver)
        let verdicts = virtual.report().operations.flatMap { $0 }.map(\.verdict)
        #expect(verdicts == [OperationComparison.Verdict](repeating: .same, count: 8))
        #expect(far.controller.answers.last == [0x0B, 0x01])
    }
}

/// A `ScriptedController` behind a file descriptor (a pty's multiplexer side, a socket): what
/// the host writes is cut into H4 packets for it, and what it answers is written back.
final class ScriptedControllerOnFD: @unchecked Sendable {
    let controller: ScriptedController
    let transport: FileDescriptorTransport
    let done = DispatchSemaphore(value: 0)
    let stop = DispatchSemaphore(value: 0)

    init(_ controller: ScriptedController, _ transport: FileDescriptorTransport) {
        self.controller = controller
        self.transport = transport
    }

    func run() {
        defer {
            transport.close()
            done.signal()
        }
        var framer = H4Framer()
        var input = [UInt8](repeating: 0, count: 4096)
        var output = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, stop.wait(timeout: .now()) == .timedOut {
            guard let n = try? input.withUnsafeMutableBytes({ try transport.receive(into: $0, timeoutMicros: 10_000) })
            else { return }
            input.withUnsafeBytes { raw in
                framer.feed(UnsafeRawBufferPointer(rebasing: raw[0..<n])) { item in
                    if case .packet(let type, let body) = item { try? controller.send([type] + body.toArray()) }
                }
            }
            while let m = try? output.withUnsafeMutableBytes({ try controller.receive(into: $0, timeoutMicros: 0) }),
                m > 0
            {
                try? transport.send(Array(output[0..<m]))
            }
        }
    }
}
