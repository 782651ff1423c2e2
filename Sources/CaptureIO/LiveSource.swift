// Linux only (getaddrinfo/socket through Glibc), like the rest of blecap's I/O. CBluetooth is
// imported here too because its headers pull in <sys/socket.h>: once this module imports it,
// the socket constants (SOCK_STREAM, SOCK_CLOEXEC) are seen through it, not through Glibc.
import CBluetooth
import Glibc

/// Where `blecap watch` reads a session as it happens: a file still being written, standard
/// input (`btmon -w /dev/stdout | blecap watch -`), or a TCP stream of a btsnoop file (Android's
/// snoop server behind `adb forward tcp:8872 tcp:8872`), or the Linux HCI monitor channel as
/// btmon reads it (`hci-monitor`, or `hci-monitor:hciN` for one controller). Each yields a
/// blocking byte source the ordinary readers parse record by record.
public enum LiveSource: Equatable, Sendable {
    case file(path: String, follow: Bool)
    case standardInput
    case tcp(host: String, port: UInt16)
    case hciMonitor(index: UInt16?)

    /// Parses a SOURCE argument: `-`, `tcp://HOST:PORT`, `hci-monitor[:hciN|:N]`, else a file path.
    public static func parse(_ text: String, follow: Bool) -> LiveSource? {
        if text == "-" { return .standardInput }
        if text == "hci-monitor" { return .hciMonitor(index: nil) }
        if text.hasPrefix("hci-monitor:") {
            var name = text.dropFirst("hci-monitor:".count)
            if name.hasPrefix("hci") { name = name.dropFirst(3) }
            guard let index = UInt16(name), index != 0xFFFF else { return nil }
            return .hciMonitor(index: index)
        }
        if text.hasPrefix("tcp://") {
            let rest = text.dropFirst("tcp://".count)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0
            else { return nil }
            var host = String(rest[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            return host.isEmpty ? nil : .tcp(host: host, port: port)
        }
        return .file(path: text, follow: follow)
    }

    /// A name for messages.
    public var name: String {
        switch self {
        case .file(let path, _): path
        case .standardInput: "standard input"
        case .tcp(let host, let port): host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        case .hciMonitor(let index): index.map { "hci-monitor:hci\($0)" } ?? "hci-monitor"
        }
    }

    /// Opens the source. `shouldStop` ends a blocked or following read (signals).
    public func open(shouldStop: (() -> Bool)?) throws(CaptureError) -> FileByteSource {
        let source: FileByteSource
        switch self {
        case .file(let path, let follow):
            source = try FileByteSource(path: path)
            source.follow = follow
        case .standardInput:
            source = FileByteSource(fd: 0, ownsFD: false)
        case .tcp(let host, let port):
            source = FileByteSource(fd: try Self.connect(host: host, port: port), ownsFD: true)
        case .hciMonitor(let index):
            source = FileByteSource(monitorDatagramsFrom: try HCIMonitorChannel.open(), ownsFD: true, index: index)
        }
        source.shouldStop = shouldStop
        return source
    }

    /// A connected TCP socket to `host:port` (IPv4 or IPv6, the first address that answers).
    static func connect(host: String, port: UInt16) throws(CaptureError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .cannotOpen(path: "tcp://\(host):\(port)", reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var lastError: Int32 = ECONNREFUSED
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let ai = cursor {
            let fd = socket(
                ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), ai.pointee.ai_protocol)
            if fd >= 0 {
                if Glibc.connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 { return fd }
                lastError = errno
                close(fd)
            } else {
                lastError = errno
            }
            cursor = ai.pointee.ai_next
        }
        throw .cannotOpen(path: "tcp://\(host):\(port)", reason: String(cString: strerror(lastError)))
    }
}
