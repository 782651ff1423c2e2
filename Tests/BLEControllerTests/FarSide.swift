import BLEController
import BLEReplay
import CaptureIO
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The HCI link between blecap as host and a controller on the far end, for the tests that
/// drive `RadioHost`: a Unix socket pair, blecap's end and the far end.
enum SocketLink {
    static func pair() -> (host: FileDescriptorTransport, far: FileDescriptorTransport) {
        // The far side may still write when blecap has closed its end (and the reverse).
        signal(SIGPIPE, SIG_IGN)
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (
            FileDescriptorTransport(adopting: fds[0], endpoint: "a"),
            FileDescriptorTransport(adopting: fds[1], endpoint: "b")
        )
    }
}

/// blecap's virtual controller on its own thread, playing the other side of a capture in
/// `role`: the "radio" (or the "device") the host under test drives. `wrap` puts a transport
/// of the test's between it and the link (one that edits what it sends). `done` is signalled
/// once it stopped and closed its end.
final class FarSide: @unchecked Sendable {
    let path: String
    let role: ServeRole
    let transport: FileDescriptorTransport
    let lingerMicros: Int64
    /// Its pace: at `.max` its notifications come at once after the subscription; at
    /// `.realtime` at their captured times, as a device's own clock sends them.
    let speed: ReplaySpeed
    let wrap: @Sendable (FileDescriptorTransport) -> any HCITransport
    let done = DispatchSemaphore(value: 0)

    init(
        path: String, role: ServeRole, transport: FileDescriptorTransport, lingerMicros: Int64,
        speed: ReplaySpeed = .max, wrap: @escaping @Sendable (FileDescriptorTransport) -> any HCITransport = { $0 }
    ) {
        self.path = path
        self.role = role
        self.transport = transport
        self.lingerMicros = lingerMicros
        self.speed = speed
        self.wrap = wrap
    }

    /// Starts it on a thread of its own.
    func start() { Thread { self.run() }.start() }

    private func run() {
        defer {
            transport.close()
            done.signal()
        }
        guard let replay = try? CaptureReplay(path: path) else { return }
        var config = ControllerConfiguration()
        config.role = role
        config.speed = speed
        let runner = ServeRunner(
            controller: VirtualController(replay: replay, configuration: config), transport: wrap(transport),
            record: false)
        runner.lingerMicros = lingerMicros
        _ = runner.run(timeoutMicros: 30_000_000)
    }
}

/// What crossed blecap's HCI, from the btsnoop a `RadioHost` recorded (what `--out` writes).
enum RecordedHCI {
    /// Its records read back from a temporary file (the readers take files), or nil when it
    /// does not open.
    static func read<T>(_ btsnoop: [UInt8], _ body: (any CaptureReader) -> T) -> T? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "radio-host-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).btsnoop"
        ).path
        FileManager.default.createFile(atPath: file, contents: Data(btsnoop))
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard let reader = try? CaptureFile.open(path: file) else { return nil }
        return body(reader)
    }

    /// Its H4 packets (commands, events, ACL data), with whether blecap sent them.
    static func packets(_ btsnoop: [UInt8]) -> [(packet: [UInt8], sent: Bool)] {
        read(btsnoop) { reader in
            var out: [(packet: [UInt8], sent: Bool)] = []
            while let r = reader.next() {
                guard let type = HCIPacketKinds.h4Type(of: r.kind) else { continue }
                out.append(([type] + r.payload.toArray(), r.direction == .sent))
            }
            return out
        } ?? []
    }
}
