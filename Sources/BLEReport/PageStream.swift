/// Bytes on their way to a file: collected in a fixed-size buffer and handed to `sink` each time
/// it fills, so a page is never held whole in memory, whatever its size.
public final class PageStream {
    /// Receives each full buffer, and the rest on `flush()`; the bytes are valid during the call.
    public typealias Sink = (UnsafeRawBufferPointer) -> Void

    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    let sink: Sink
    // What every byte touches: unchecked, as the stream is written from one thread and no
    // access spans a call back into it (a checked access to a class's `var` is a runtime call).
    @exclusivity(unchecked) var count = 0
    /// Bytes handed to the sink so far.
    @exclusivity(unchecked) var flushed = 0

    public init(capacity: Int = 1 << 16, sink: @escaping Sink) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
        self.sink = sink
    }

    deinit { base.deallocate() }

    /// Bytes written so far (flushed or not).
    public var total: Int { flushed + count }

    public func flush() {
        guard count > 0 else { return }
        sink(UnsafeRawBufferPointer(start: base, count: count))
        flushed += count
        count = 0
    }

    @inline(__always) func byte(_ b: UInt8) {
        if count == capacity { flush() }
        base[count] = b
        count += 1
    }

    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let src = bytes.baseAddress, bytes.count > 0 else { return }
        if bytes.count > capacity - count {
            flush()
            // Larger than the buffer: straight to the sink rather than copied in pieces.
            if bytes.count > capacity {
                sink(bytes)
                flushed += bytes.count
                return
            }
        }
        UnsafeMutableRawPointer(base + count).copyMemory(from: src, byteCount: bytes.count)
        count += bytes.count
    }

    func write(_ s: String) {
        var s = s
        s.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    func write(_ s: StaticString) {
        write(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    func decimal(_ v: Int64) {
        if v < 0 {
            byte(UInt8(ascii: "-"))
            // The magnitude of Int64.min does not fit an Int64; it does a UInt64.
            decimal(UInt64(bitPattern: 0 &- v))
        } else {
            decimal(UInt64(v))
        }
    }

    func decimal(_ v: UInt64) {
        if count + 20 > capacity { flush() }
        var digits = 1
        var x = v
        while x >= 10 {
            x /= 10
            digits += 1
        }
        var p = base + count + digits
        x = v
        repeat {
            p -= 1
            p.pointee = 0x30 &+ UInt8(truncatingIfNeeded: x % 10)
            x /= 10
        } while x > 0
        count += digits
    }

    /// `s` as a JSON string literal (RFC 8259 section 7: quote, backslash and control characters
    /// escaped, as `JSONQuoting.quoted` writes them), with `<`, `>`, `&`, U+2028 and U+2029 also
    /// written as `\uXXXX`: valid JSON that no HTML parser reads as the end of a `<script>`
    /// element or the start of a comment (HTML 13.2.6.2, script data states), whatever the
    /// capture's names hold. Those characters only ever occur inside strings, so escaping
    /// strings makes the whole document safe.
    func scriptSafeJSONString(_ s: String) {
        var s = s
        s.withUTF8 { bytes in
            byte(UInt8(ascii: "\""))
            // Most strings need no escape: copied in one go.
            if !bytes.contains(where: Self.mayNeedEscape) {
                write(UnsafeRawBufferPointer(bytes))
            } else {
                escaped(bytes)
            }
            byte(UInt8(ascii: "\""))
        }
    }

    @inline(__always) static func mayNeedEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == 0x22 || b == 0x5C || b == 0x3C || b == 0x3E || b == 0x26 || b == 0xE2
    }

    func escaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x22: write("\\\"")
            case 0x5C: write("\\\\")
            case 0x0A: write("\\n")
            case 0x0D: write("\\r")
            case 0x09: write("\\t")
            case 0x3C: write("\\u003c")
            case 0x3E: write("\\u003e")
            case 0x26: write("\\u0026")
            case 0xE2
            where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                // U+2028/U+2029 are E2 80 A8/A9 in UTF-8, a sequence no other scalar contains.
                write(bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029")
                i += 2
            case _ where b < 0x20:
                write("\\u00")
                byte(Self.upperHex(b >> 4))
                byte(Self.upperHex(b & 0xF))
            default: byte(b)
            }
            i += 1
        }
    }

    @inline(__always) static func upperHex(_ n: UInt8) -> UInt8 { n < 10 ? 0x30 &+ n : 0x37 &+ n }
}
