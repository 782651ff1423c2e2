import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where H4 bytes go to and come from: a socket, a pseudo-terminal, `/dev/vhci`, or (in tests
/// and other Swift programs) anything else. `ServeRunner` drives a `VirtualController` over one.
public protocol HCITransport: AnyObject {
    /// Waits up to `timeoutMicros` for bytes from the host and reads them into `buffer`:
    /// their count (0: nothing came in time), nil when the host went away.
    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMicros: Int64) throws(TransportError) -> Int?
    /// Writes one H4 packet for the host.
    func send(_ packet: [UInt8]) throws(TransportError)
    func close()
}

public struct TransportError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The host went away (a write found the other end closed).
    public var hostClosed = false
    public init(_ description: String, hostClosed: Bool = false) {
        self.description = description
        self.hostClosed = hostClosed
    }
    static func errno(_ what: String) -> TransportError {
        TransportError("\(what): \(String(cString: strerror(Glibc.errno)))")
    }
}

/// A transport as Bumble names them (`tcp-server:HOST:PORT`, `tcp-client:HOST:PORT`), plus
/// `pty[:LINK]` and `vhci`.
public enum TransportSpec: Sendable, Equatable, CustomStringConvertible {
    case tcpServer(host: String, port: UInt16)
    case tcpClient(host: String, port: UInt16)
    case pty(link: String?)
    case vhci

    public init(_ text: String) throws(TransportError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        func hostPort(_ s: String) throws(TransportError) -> (String, UInt16) {
            guard let colon = s.lastIndex(of: ":"), let port = UInt16(s[s.index(after: colon)...]) else {
                throw TransportError("\(parts[0]) takes HOST:PORT (\(text))")
            }
            let host = String(s[..<colon])
            return (host.isEmpty ? "127.0.0.1" : host, port)
        }
        switch parts[0] {
        case "tcp-server":
            let (h, p) = try hostPort(parts.count > 1 ? parts[1] : "")
            self = .tcpServer(host: h, port: p)
        case "tcp-client":
            let (h, p) = try hostPort(parts.count > 1 ? parts[1] : "")
            self = .tcpClient(host: h, port: p)
        case "pty": self = .pty(link: parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil)
        case "vhci": self = .vhci
        default:
            throw TransportError(
                "unknown transport \(text): tcp-server:HOST:PORT, tcp-client:HOST:PORT, pty[:LINK] or vhci")
        }
    }

    public var description: String {
        switch self {
        case .tcpServer(let h, let p): "tcp-server:\(h):\(p)"
        case .tcpClient(let h, let p): "tcp-client:\(h):\(p)"
        case .pty(let l): l.map { "pty:\($0)" } ?? "pty"
        case .vhci: "vhci"
        }
    }
}

/// A transport over one file descriptor (socket, pty master, /dev/vhci).
public final class FileDescriptorTransport: HCITransport {
    public private(set) var fd: Int32
    /// What the host side should open or connect to, for the user.
    public let endpoint: String
    private var cleanup: () -> Void

    /// Takes over `fd` (a socket, a pty, a pipe): closed with the transport.
    public convenience init(adopting fd: Int32, endpoint: String) {
        self.init(fd: fd, endpoint: endpoint, cleanup: {})
    }

    init(fd: Int32, endpoint: String, cleanup: @escaping () -> Void) {
        self.fd = fd
        self.endpoint = endpoint
        self.cleanup = cleanup
    }

    deinit { close() }

    public func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMicros: Int64) throws(TransportError) -> Int?
    {
        guard fd >= 0 else { return nil }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(clamping: max(0, (timeoutMicros + 999) / 1000))
        let r = poll(&p, 1, ms)
        if r < 0 { return Glibc.errno == EINTR ? 0 : nil }
        if r == 0 { return 0 }
        let n = read(fd, buffer.baseAddress, buffer.count)
        if n > 0 { return n }
        if n < 0, Glibc.errno == EINTR || Glibc.errno == EAGAIN { return 0 }
        return nil  // end of stream, or the pty's other side closed (EIO)
    }

    public func send(_ packet: [UInt8]) throws(TransportError) {
        var off = 0
        var failure: TransportError?
        packet.withUnsafeBytes { raw in
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 {
                    let e = Glibc.errno
                    if e == EINTR || e == EAGAIN { continue }
                    failure = .errno("write")
                    failure?.hostClosed = e == EPIPE || e == ECONNRESET || e == EIO
                    return
                }
                off += n
            }
        }
        if let failure { throw failure }
    }

    public func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
        cleanup()
        cleanup = {}
    }

    // MARK: opening

    /// Opens `spec`. Servers bind to loopback addresses only unless `listenAny`; a TCP server
    /// waits (at most `acceptTimeoutMicros`) for its one host. `announce` tells the user where
    /// to point the host before anything blocks.
    public static func open(
        _ spec: TransportSpec, listenAny: Bool = false, acceptTimeoutMicros: Int64 = 60_000_000,
        announce: (String) -> Void = { _ in }
    ) throws(TransportError) -> FileDescriptorTransport {
        switch spec {
        case .tcpServer(let host, let port):
            return try tcpServer(host, port, listenAny: listenAny, timeout: acceptTimeoutMicros, announce: announce)
        case .tcpClient(let host, let port):
            return try tcpClient(host, port, announce: announce)
        case .pty(let link):
            return try pty(link: link, announce: announce)
        case .vhci:
            return try vhci(announce: announce)
        }
    }

    static func address(_ host: String, _ port: UInt16) throws(TransportError) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        let name = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, name, &a.sin_addr) == 1 else {
            throw TransportError("\(host): not an IPv4 address")
        }
        return a
    }

    static func isLoopback(_ a: sockaddr_in) -> Bool { UInt32(bigEndian: a.sin_addr.s_addr) >> 24 == 127 }

    private static func tcpServer(
        _ host: String, _ port: UInt16, listenAny: Bool, timeout: Int64, announce: (String) -> Void
    ) throws(TransportError) -> FileDescriptorTransport {
        var a = try address(host, port)
        guard listenAny || isLoopback(a) else {
            throw TransportError("tcp-server on \(host): not a loopback address (give --listen-any to listen there)")
        }
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw .errno("socket") }
        var one: Int32 = 1
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(s, 1) == 0 else {
            let e = TransportError.errno("tcp-server \(host):\(port)")
            _ = Glibc.close(s)
            throw e
        }
        var got = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &got) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &len) }
        }
        announce(
            "listening on tcp-server:\(host):\(UInt16(bigEndian: got.sin_port)) (host transport tcp-client:\(host):\(UInt16(bigEndian: got.sin_port)))"
        )
        var p = pollfd(fd: s, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, Int32(clamping: timeout / 1000))
        guard ready > 0 else {
            _ = Glibc.close(s)
            throw TransportError(
                "no host connected to \(host):\(UInt16(bigEndian: got.sin_port)) within \(timeout / 1_000_000) s")
        }
        let c = accept(s, nil, nil)
        _ = Glibc.close(s)
        guard c >= 0 else { throw .errno("accept") }
        setsockopt(c, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return FileDescriptorTransport(adopting: c, endpoint: "tcp-client:\(host):\(UInt16(bigEndian: got.sin_port))")
    }

    private static func tcpClient(_ host: String, _ port: UInt16, announce: (String) -> Void) throws(TransportError)
        -> FileDescriptorTransport
    {
        var a = try address(host, port)
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard s >= 0 else { throw .errno("socket") }
        let r = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard r == 0 else {
            let e = TransportError.errno("tcp-client \(host):\(port)")
            _ = Glibc.close(s)
            throw e
        }
        var one: Int32 = 1
        setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        announce("connected to \(host):\(port)")
        return FileDescriptorTransport(adopting: s, endpoint: "tcp-server:\(host):\(port)")
    }

    /// A pseudo-terminal in raw mode: the host opens its other end like a UART (`LINK`, if
    /// given, is a symbolic link to it). Our own handle on that end stays open, so the host may
    /// open and close it without ending the session.
    private static func pty(link: String?, announce: (String) -> Void) throws(TransportError) -> FileDescriptorTransport
    {
        // posix_openpt, unlockpt and ptsname by hand (glibc hides them from Swift): the
        // multiplexer, then TIOCSPTLCK (unlock) and TIOCGPTN (the pty's number), Linux ioctls.
        let m = Glibc.open("/dev/ptmx", O_RDWR | O_NOCTTY)
        guard m >= 0 else { throw .errno("/dev/ptmx") }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        let tiocsptlck: UInt = 0x4004_5431
        let tiocgptn: UInt = 0x8004_5430
        guard ioctl(m, tiocsptlck, &unlock) == 0, ioctl(m, tiocgptn, &number) == 0 else {
            let e = TransportError.errno("pty")
            _ = Glibc.close(m)
            throw e
        }
        let path = "/dev/pts/\(number)"
        let slave = Glibc.open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw .errno("open \(path)") }
        var t = termios()
        tcgetattr(slave, &t)
        cfmakeraw(&t)
        tcsetattr(slave, TCSANOW, &t)
        var linked: String?
        if let link {
            var st = stat()
            if lstat(link, &st) == 0 {
                guard st.st_mode & S_IFMT == S_IFLNK else {
                    throw TransportError("pty:\(link): exists and is not a symbolic link")
                }
                unlink(link)
            }
            guard symlink(path, link) == 0 else { throw .errno("symlink \(link)") }
            linked = link
        }
        announce("pseudo-terminal \(path)" + (linked.map { " (linked from \($0))" } ?? ""))
        return FileDescriptorTransport(fd: m, endpoint: linked ?? path) {
            _ = Glibc.close(slave)
            if let linked { unlink(linked) }
        }
    }

    /// `/dev/vhci` (Linux `hci_vhci`): after the create request (vendor packet 0xFF, device
    /// type primary) the kernel registers an `hciN` and answers with its index; from then on
    /// the file carries H4 packets.
    private static func vhci(announce: (String) -> Void) throws(TransportError) -> FileDescriptorTransport {
        let fd = Glibc.open("/dev/vhci", O_RDWR)
        guard fd >= 0 else {
            let e = Glibc.errno
            if e == ENOENT || e == ENODEV || e == ENXIO {
                throw TransportError(
                    "vhci: /dev/vhci does not exist: this kernel has no Bluetooth virtual HCI driver "
                        + "(load it with 'modprobe hci_vhci'; containers usually cannot)")
            }
            if e == EACCES || e == EPERM {
                throw TransportError("vhci: /dev/vhci: permission denied (run as root or give the user access)")
            }
            throw .errno("vhci: /dev/vhci")
        }
        let t = FileDescriptorTransport(fd: fd, endpoint: "/dev/vhci", cleanup: {})
        try t.send([0xFF, 0x00])
        var answer = [UInt8](repeating: 0, count: 4)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let n = poll(&p, 1, 2000) > 0 ? read(fd, &answer, 4) : -1
        guard n == 4, answer[0] == 0xFF else {
            throw TransportError("vhci: the kernel did not register a controller")
        }
        announce("registered as hci\(UInt16(answer[2]) | UInt16(answer[3]) << 8)")
        return t
    }
}
