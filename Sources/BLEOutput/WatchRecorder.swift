import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// `--write`: the HCI records seen, appended to a btsnoop file as they come (memory: one record).
package struct WatchRecorder {
    let fd: Int32
    var writer = BTSnoopWriter()
    /// Every record written at once, and checked: a failed write ends the watch with exit 6.
    let out: OutputBuffer

    package init(path: String) throws(CaptureError) {
        fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        out = OutputBuffer(fd: fd, flushThreshold: 0, name: path)
    }

    package mutating func append(_ r: CaptureRecord) {
        guard let type = HCIPacketKinds.h4Type(of: r.kind) else { return }
        var packet = [type]
        packet.append(contentsOf: r.payload)
        writer.append(packet, received: r.direction == .received, unixMicros: r.timestamp)
        let bytes = writer.take()
        bytes.withUnsafeBytes { out.append($0) }
        out.flush()
    }

    package func close() { _ = Glibc.close(fd) }
}
