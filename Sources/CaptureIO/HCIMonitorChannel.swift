// Linux only: the HCI monitor channel is a Linux kernel socket (BlueZ's btmon reads it).
import CBluetooth
import Glibc

/// The Linux kernel's HCI monitor channel — what `btmon` reads: every controller's commands,
/// events and ACL/SCO/ISO data, index add/remove, and the kernel's and bluetoothd's notes, each
/// as one datagram `{le16 opcode, le16 index, le16 length}` + payload.
///
/// blecap reads it by turning each datagram into a btsnoop 2001 ("Linux monitor") record — the
/// very record `btmon -w` would write for it (flags = index << 16 | opcode) — so the ordinary
/// btsnoop reader, and everything after it, handles a live monitor exactly like a saved one.
public enum HCIMonitorChannel {
    /// `socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)` bound to HCI_DEV_NONE / HCI_CHANNEL_MONITOR,
    /// with receive timestamps on. The errors say which of the two usual obstacles it is: a kernel
    /// without Bluetooth (containers, WSL, most CI runners), or a process without CAP_NET_RAW.
    public static func open() throws(CaptureError) -> Int32 {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard fd >= 0 else {
            let e = errno
            let why =
                e == EAFNOSUPPORT
                ? "this kernel has no Bluetooth support (AF_BLUETOOTH: \(String(cString: strerror(e)))); "
                    + "watch on a host whose kernel has the bluetooth module loaded, or record there with "
                    + "'btmon -w FILE' and watch the file"
                : "cannot open a Bluetooth socket: \(String(cString: strerror(e)))"
            throw .cannotOpen(path: "hci-monitor", reason: why)
        }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(HCI_DEV_NONE)
        address.hci_channel = UInt16(HCI_CHANNEL_MONITOR)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard bound == 0 else {
            let e = errno
            close(fd)
            let why =
                e == EPERM || e == EACCES
                ? "the HCI monitor channel needs CAP_NET_RAW: run as root, or give blecap the capability "
                    + "('sudo setcap cap_net_raw+ep \"$(command -v blecap)\"')"
                : "cannot bind the HCI monitor channel: \(String(cString: strerror(e)))"
            throw .cannotOpen(path: "hci-monitor", reason: why)
        }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }
}

/// Receives monitor datagrams from a socket and writes each as a btsnoop record into the
/// caller's buffer. The payload is received straight into place (a two-part iovec: the 6-byte
/// monitor header into a local, the rest after the 24-byte record header), so a datagram costs
/// one system call and no copy or allocation.
struct MonitorDatagramFramer {
    /// Only this controller's datagrams (and the kernel's index-less ones, 0xFFFF), like btmon -i.
    var index: UInt16?
    /// 24-byte record header + the largest payload a monitor datagram carries (its length field
    /// is 16 bits).
    static let largestRecord = 24 + 65535

    /// btsnoop's "Linux monitor" file header: magic, version 1, datalink 2001 (big-endian).
    static let fileHeader: [UInt8] =
        Array("btsnoop\0".utf8) + [0, 0, 0, 1] + [0, 0, 0x07, 0xD1]

    enum Result {
        case record(Int)
        case skipped, interrupted, ended
        case failed(Int32)
    }

    /// One datagram from `fd` as a btsnoop record at `destination` (at least `largestRecord`
    /// bytes): `.record(n)` with the bytes written, `.skipped` for another controller's datagram.
    func receive(from fd: Int32, into destination: UnsafeMutableRawPointer) -> Result {
        var header = (UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0), UInt8(0))
        // Room for one SCM_TIMESTAMP control message (a struct timeval), aligned as cmsghdr wants.
        var control = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let (received, stamp): (Int, Int64?) = withUnsafeMutableBytes(of: &header) { h in
            withUnsafeMutableBytes(of: &control) { c in
                var parts = (
                    iovec(iov_base: h.baseAddress, iov_len: 6),
                    iovec(iov_base: destination + 24, iov_len: 65535)
                )
                return withUnsafeMutableBytes(of: &parts) { iov in
                    var message = msghdr()
                    message.msg_iov = iov.baseAddress!.assumingMemoryBound(to: iovec.self)
                    message.msg_iovlen = 2
                    message.msg_control = c.baseAddress
                    message.msg_controllen = c.count
                    let n = recvmsg(fd, &message, 0)
                    return (n, n >= 0 ? Self.timestamp(of: &message) : nil)
                }
            }
        }
        if received < 0 { return errno == EINTR ? .interrupted : .failed(errno) }
        if received == 0 { return .ended }
        // A datagram shorter than its own header is no monitor packet: skip it, as btmon does.
        guard received >= 6 else { return .skipped }
        let opcode = UInt16(header.0) | UInt16(header.1) << 8
        let controller = UInt16(header.2) | UInt16(header.3) << 8
        if let index, controller != index, controller != 0xFFFF { return .skipped }
        // The header's length field is what the sender meant; what arrived is what we have.
        let declared = Int(UInt16(header.4) | UInt16(header.5) << 8)
        let included = received - 6
        // btsnoop: original length, included length, flags, drops, timestamp in µs since 0 AD.
        Self.storeBigEndian(UInt32(max(declared, included)), at: destination)
        Self.storeBigEndian(UInt32(included), at: destination + 4)
        Self.storeBigEndian(UInt32(controller) << 16 | UInt32(opcode), at: destination + 8)
        Self.storeBigEndian(0, at: destination + 12)
        let since0AD = UInt64(bitPattern: stamp ?? Self.now()) &+ Self.microsFrom0ADTo1970
        Self.storeBigEndian(UInt32(truncatingIfNeeded: since0AD >> 32), at: destination + 16)
        Self.storeBigEndian(UInt32(truncatingIfNeeded: since0AD), at: destination + 20)
        return .record(24 + included)
    }

    static let microsFrom0ADTo1970: UInt64 = 0x00dc_ddb3_0f2f_8000

    static func storeBigEndian(_ value: UInt32, at pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: value.bigEndian, as: UInt32.self)
    }

    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_nsec) / 1000
    }

    /// The SCM_TIMESTAMP the kernel attached (µs since 1970), if any.
    static func timestamp(of message: inout msghdr) -> Int64? {
        guard message.msg_controllen >= MemoryLayout<cmsghdr>.size, let control = message.msg_control else {
            return nil
        }
        let header = control.loadUnaligned(as: cmsghdr.self)
        guard header.cmsg_level == SOL_SOCKET, header.cmsg_type == SO_TIMESTAMP,
            header.cmsg_len >= MemoryLayout<cmsghdr>.size + MemoryLayout<timeval>.size
        else { return nil }
        let tv = (control + MemoryLayout<cmsghdr>.size).loadUnaligned(as: timeval.self)
        return Int64(tv.tv_sec) * 1_000_000 + Int64(tv.tv_usec)
    }
}
