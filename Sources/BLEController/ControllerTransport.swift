import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Where a real (or Bumble's virtual) controller is, for blecap as its host: H4 over TCP as
/// Bumble names it (`tcp-client:HOST:PORT`, `tcp-server:HOST:PORT`), H4 over a UART
/// (`serial:/dev/ttyACM0[,BAUD][,noflow]`), or a kernel adapter through the HCI user channel
/// (`hci0`).
public enum ControllerSpec: Sendable, Equatable, CustomStringConvertible {
    case tcp(TransportSpec)
    /// A UART: baud rate (default 1,000,000) and RTS/CTS flow control (default on).
    case serial(path: String, baud: Int, flowControl: Bool)
    /// `hciN`: the kernel's adapter N, taken over through the HCI user channel.
    case hci(index: UInt16)

    public init(_ text: String) throws(TransportError) {
        if text.hasPrefix("tcp-client:") || text.hasPrefix("tcp-server:") {
            self = .tcp(try TransportSpec(text))
        } else if text.hasPrefix("serial:") {
            let parts = text.dropFirst("serial:".count).split(separator: ",").map(String.init)
            guard let path = parts.first, !path.isEmpty else {
                throw TransportError("serial takes a device: serial:/dev/ttyACM0[,BAUD]")
            }
            var baud = 1_000_000
            var flow = true
            for p in parts.dropFirst() {
                if p == "noflow" {
                    flow = false
                } else if let b = Int(p), Self.speeds[b] != nil {
                    baud = b
                } else {
                    throw TransportError(
                        "serial: \(p) is neither a baud rate (\(Self.speeds.keys.sorted().map(String.init).joined(separator: ", "))) nor noflow"
                    )
                }
            }
            self = .serial(path: path, baud: baud, flowControl: flow)
        } else if text.hasPrefix("hci"), let n = UInt16(text.dropFirst(3)) {
            self = .hci(index: n)
        } else {
            throw TransportError(
                "unknown controller \(text): tcp-client:HOST:PORT, tcp-server:HOST:PORT, serial:DEVICE[,BAUD] or hciN")
        }
    }

    public var description: String {
        switch self {
        case .tcp(let t): t.description
        case .serial(let p, let b, let f): "serial:\(p),\(b)" + (f ? "" : ",noflow")
        case .hci(let n): "hci\(n)"
        }
    }

    /// termios speeds a UART takes.
    static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115_200: speed_t(B115200), 230_400: speed_t(B230400), 460_800: speed_t(B460800),
        921_600: speed_t(B921600), 1_000_000: speed_t(B1000000), 2_000_000: speed_t(B2000000),
        3_000_000: speed_t(B3000000),
    ]

    /// Opens the controller's transport.
    public func open(acceptTimeoutMicros: Int64 = 60_000_000, announce: (String) -> Void = { _ in })
        throws(TransportError) -> FileDescriptorTransport
    {
        switch self {
        case .tcp(let t):
            return try FileDescriptorTransport.open(t, acceptTimeoutMicros: acceptTimeoutMicros, announce: announce)
        case .serial(let path, let baud, let flow):
            return try Self.serial(path, baud: baud, flowControl: flow, announce: announce)
        case .hci(let index):
            return try Self.userChannel(index, announce: announce)
        }
    }

    /// A UART in raw mode, 8N1, at `baud`, with RTS/CTS when asked (Vol 4 Part A: H4 needs it
    /// on real hardware; a pseudo-terminal ignores it).
    private static func serial(_ path: String, baud: Int, flowControl: Bool, announce: (String) -> Void)
        throws(TransportError) -> FileDescriptorTransport
    {
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY)
        guard fd >= 0 else {
            let e = Glibc.errno
            if e == EACCES || e == EPERM {
                throw TransportError(
                    "serial:\(path): permission denied (add yourself to the device's group, e.g. "
                        + "'sudo usermod -aG dialout $USER', or a udev rule: docs/real-radio.md)")
            }
            throw .errno("serial:\(path)")
        }
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else {
            let e = TransportError.errno("serial:\(path): not a terminal")
            _ = Glibc.close(fd)
            throw e
        }
        cfmakeraw(&t)
        let speed = speeds[baud] ?? speed_t(B1000000)
        cfsetispeed(&t, speed)
        cfsetospeed(&t, speed)
        t.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if flowControl { t.c_cflag |= tcflag_t(CRTSCTS) } else { t.c_cflag &= ~tcflag_t(CRTSCTS) }
        guard tcsetattr(fd, TCSANOW, &t) == 0 else {
            let e = TransportError.errno("serial:\(path): cannot set \(baud) baud")
            _ = Glibc.close(fd)
            throw e
        }
        tcflush(fd, TCIOFLUSH)
        announce("opened \(path) at \(baud) baud\(flowControl ? " with RTS/CTS" : "")")
        return FileDescriptorTransport(adopting: fd, endpoint: path)
    }

    /// Linux's Bluetooth socket constants (<bluetooth/bluetooth.h>, <bluetooth/hci.h>): the
    /// address family, the HCI protocol, the user channel. Declared here rather than through
    /// the CBluetooth module, whose headers would take <sys/socket.h>'s names from Glibc in
    /// this module's other files.
    private static let afBluetooth: Int32 = 31
    private static let btprotoHCI: Int32 = 1
    private static let hciChannelUser: UInt16 = 1

    /// struct sockaddr_hci: family, device index, channel (three 16-bit fields).
    private struct SockaddrHCI {
        var family: UInt16
        var device: UInt16
        var channel: UInt16
    }

    /// The HCI user channel (Linux 3.13+): the adapter leaves BlueZ for as long as the socket
    /// is open, and blecap talks H4 to it directly; closing the socket hands it back (the
    /// kernel announces the index again and bluetoothd takes it over).
    private static func userChannel(_ index: UInt16, announce: (String) -> Void) throws(TransportError)
        -> FileDescriptorTransport
    {
        let s = socket(afBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), btprotoHCI)
        guard s >= 0 else {
            let e = Glibc.errno
            if e == EAFNOSUPPORT {
                throw TransportError("hci\(index): this kernel has no Bluetooth sockets (AF_BLUETOOTH)")
            }
            if e == EPERM || e == EACCES { throw permission(index) }
            throw .errno("hci\(index): socket")
        }
        var a = SockaddrHCI(family: UInt16(afBluetooth), device: index, channel: hciChannelUser)
        let r = withUnsafeBytes(of: &a) {
            bind(s, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
        }
        guard r == 0 else {
            let e = Glibc.errno
            _ = Glibc.close(s)
            if let refusal = userChannelRefusal(e, index: index) { throw refusal }
            Glibc.errno = e
            throw .errno("hci\(index): bind to the HCI user channel")
        }
        announce("took hci\(index) from BlueZ through the HCI user channel (handed back when blecap exits)")
        return FileDescriptorTransport(adopting: s, endpoint: "hci\(index)")
    }

    /// What the kernel's refusal to bind the user channel means, in words that say what to do
    /// (Linux's hci_sock_bind): EBUSY, the adapter is up (or still being set up), and also
    /// when another program holds it through the user channel, since that keeps it up (seen
    /// with a second blecap on Linux 6.1 in the kernel check); EUSERS, another program took
    /// the user channel first; ENODEV, no such index. Nil: an errno without a known meaning here.
    static func userChannelRefusal(_ e: Int32, index: UInt16) -> TransportError? {
        switch e {
        case EPERM, EACCES: return permission(index)
        case EBUSY, EALREADY:
            return TransportError(
                "hci\(index) is up under BlueZ: take it down for the run with 'sudo btmgmt --index \(index) power off' "
                    + "(or 'sudo hciconfig hci\(index) down'); blecap hands it back when it exits "
                    + "('sudo btmgmt --index \(index) power on' powers it up again); when it is down already, "
                    + "another program holds it through the HCI user channel (only one may at a time)")
        case EUSERS:
            return TransportError(
                "hci\(index) is already held through the HCI user channel by another program (another blecap, "
                    + "or a Bumble or other host on hci-socket): only one may hold it at a time")
        case ENODEV: return TransportError("hci\(index): no such adapter ('btmgmt info' lists them)")
        default: return nil
        }
    }

    private static func permission(_ index: UInt16) -> TransportError {
        TransportError(
            "hci\(index): the HCI user channel needs CAP_NET_ADMIN: run as root, or once "
                + "'sudo setcap cap_net_admin+ep \(CommandLine.arguments.first ?? "blecap")'")
    }
}
