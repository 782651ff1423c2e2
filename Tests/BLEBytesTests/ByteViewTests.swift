import BLEBytes
import Testing

@Suite struct ByteViewTests {
    @Test func readsWithExplicitEndianness() {
        [0x34, 0x12, 0x78, 0x56].withByteView { v in
            #expect(v.u16le(0) == 0x1234)
            #expect(v.u16be(0) == 0x3412)
            #expect(v.u32le(0) == 0x5678_1234)
            #expect(v.u24le(1) == 0x56_7812)
        }
    }

    @Test func outOfRangeReadsAreNilNotTraps() {
        [0x01, 0x02, 0x03].withByteView { v in
            #expect(v.u16le(2) == nil)
            #expect(v.u32le(0) == nil)
            #expect(v.u8(-1) == nil)
            #expect(v.u8(Int.max) == nil)
            #expect(v.slice(1, Int.max) == nil)
            #expect(v.slice(Int.max, 1) == nil)
            #expect(v.suffix(from: 4) == nil)
            #expect(v.suffix(from: 3)?.count == 0)
        }
        #expect(ByteView.empty.u8(0) == nil)
    }

    @Test func readerDoesNotAdvanceOnFailure() {
        [0xAA, 0xBB, 0xCC].withByteView { v in
            var r = ByteReader(v)
            #expect(r.u16le() == 0xBBAA)
            #expect(r.u16le() == nil)
            #expect(r.offset == 2)
            #expect(r.u8() == 0xCC)
            #expect(r.isAtEnd)
        }
    }

    @Test func addressIsLittleEndianOnTheWire() {
        // LE Connection Complete carries C0:FF:EE:00:00:01 as 01 00 00 EE FF C0.
        [0x01, 0x00, 0x00, 0xEE, 0xFF, 0xC0].withByteView { v in
            #expect(BDAddr(littleEndian: v)?.description == "C0:FF:EE:00:00:01")
        }
        #expect(BDAddr("D8:0D:18:00:00:01")?.description == "D8:0D:18:00:00:01")
        #expect(BDAddr("D8:0D:18:00:00") == nil)
    }

    @Test func uuidsCompareAcrossWidths() {
        let short = BluetoothUUID(uuid16: 0x180D)
        let long = BluetoothUUID("0000180D-0000-1000-8000-00805F9B34FB")
        #expect(short == long)
        #expect(short.description == "180D")
        #expect(long?.uuid16 == 0x180D)
        // 128-bit vendor UUIDs are little-endian on the wire.
        let wire: [UInt8] = [
            0x9E, 0xCA, 0xDC, 0x24, 0x0E, 0xE5, 0xA9, 0xE0, 0x93, 0xF3, 0xA3, 0xB5, 0x01, 0x00, 0x40, 0x6E,
        ]
        wire.withByteView { v in
            #expect(BluetoothUUID(littleEndian: v)?.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        }
        #expect(BluetoothUUID("12") == nil)
    }

    @Test func hexRoundTrip() {
        #expect(Hex.bytes("16 46 6d 03") == [0x16, 0x46, 0x6D, 0x03])
        #expect(Hex.bytes("1") == nil)
        #expect(Hex.string([0x16, 0x46]) == "1646")
        #expect(Hex.string(0x11, digits: 4) == "0x0011")
    }
}
