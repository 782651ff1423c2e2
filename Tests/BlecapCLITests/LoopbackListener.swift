import Foundation
import Testing

/// A TCP listener on 127.0.0.1 at a port the kernel picks: the test's end of an H4 link whose
/// other end is the blecap under test (`--controller tcp-client:…`, `serve --transport tcp-client:…`).
enum LoopbackListener {
    /// The listening socket and its port.
    static func open() -> (fd: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, len) }
        }
        #expect(listen(listener, 1) == 0)
        _ = withUnsafeMutablePointer(to: &a) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) }
        }
        return (listener, UInt16(bigEndian: a.sin_port))
    }
}
