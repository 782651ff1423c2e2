import CZlib

/// zlib-compresses test inputs (the decoder under test inflates with the same library; the
/// committed fixtures come from Python's zlib).
enum ZlibTestEncoder {
    static func compress(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard blecap_deflate_init(&stream, 6) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: input.count + 64)
        var input = input
        let produced: Int = input.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return o.count - Int(stream.avail_out)
            }
        }
        return Array(out.prefix(produced))
    }
}
