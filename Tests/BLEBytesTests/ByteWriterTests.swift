import BLEBytes
import Testing

/// ByteWriter is ByteView's mirror: what one writes, the other reads back at the same offsets.
@Suite struct ByteWriterTests {
    @Test func integersRoundTripThroughByteView() {
        var w = ByteWriter()
        w.appendUInt8(0xA1)
        w.appendInt8(-2)
        w.appendUInt16LE(0x1234)
        w.appendUInt16BE(0x1234)
        w.appendUInt24LE(0x00AB_CDEF)
        w.appendUInt32LE(0xDEAD_BEEF)
        w.appendUInt32BE(0xDEAD_BEEF)
        w.appendUInt64LE(0x0102_0304_0506_0708)
        w.appendUInt64BE(0x0102_0304_0506_0708)
        #expect(w.count == 1 + 1 + 2 + 2 + 3 + 4 + 4 + 8 + 8)
        #expect(Array(w.bytes[2..<6]) == [0x34, 0x12, 0x12, 0x34])
        w.bytes.withByteView { v in
            #expect(v.u8(0) == 0xA1)
            #expect(v.i8(1) == -2)
            #expect(v.u16le(2) == 0x1234)
            #expect(v.u16be(4) == 0x1234)
            #expect(v.u24le(6) == 0x00AB_CDEF)
            #expect(v.u32le(9) == 0xDEAD_BEEF)
            #expect(v.u32be(13) == 0xDEAD_BEEF)
            #expect(v.u64le(17) == 0x0102_0304_0506_0708)
            #expect(v.u64be(25) == 0x0102_0304_0506_0708)
        }
    }

    @Test func addressAndUUIDsAreLittleEndian() {
        let a = BDAddr("C0:FF:EE:00:00:01")!
        var w = ByteWriter()
        w.appendAddress(a)
        #expect(w.bytes == [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0])
        #expect(w.bytes.withByteView { BDAddr(littleEndian: $0) } == a)

        for (u, width) in [
            (BluetoothUUID(uuid16: 0x180D), 2), (BluetoothUUID(uuid32: 0x1234_5678), 4),
            (BluetoothUUID("F0A3C006-6C1E-4D5B-9A57-2B8E1A6B3C61")!, 16),
        ] {
            var uw = ByteWriter()
            uw.appendUUID(u, width: width)
            #expect(uw.count == width)
            #expect(uw.bytes.withByteView { BluetoothUUID(littleEndian: $0) } == u)
        }
        // A UUID with no 16-bit alias asked for in 2 bytes is written in full.
        var full = ByteWriter()
        full.appendUUID(BluetoothUUID("F0A3C006-6C1E-4D5B-9A57-2B8E1A6B3C61")!, width: 2)
        #expect(full.count == 16)
    }

    @Test func lengthsAreBackPatched() {
        var w = ByteWriter()
        w.appendUInt8(0xFF)
        w.appendUInt16LE(0)
        w.appendBytes([1, 2, 3])
        w.setUInt16LE(UInt16(w.count - 3), at: 1)
        #expect(w.bytes == [0xFF, 3, 0, 1, 2, 3])
        w.setUInt32LE(0x0403_0201, at: 2)
        #expect(w.bytes == [0xFF, 3, 1, 2, 3, 4])
        w.truncate(to: 2)
        #expect(w.bytes == [0xFF, 3])
        w.appendZeros(3)
        #expect(w.bytes == [0xFF, 3, 0, 0, 0])
    }
}
