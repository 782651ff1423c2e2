import BLEBytes
import BLEOutput
import Testing

/// `OutputBuffer.address` writes a device address from a table of hex digit pairs: every octet
/// value, in every one of the six places, as `BDAddr.description` (and btmon, tshark) spell it.
@Suite struct AddressOutputTests {
    @Test func everyOctetInEveryPlaceIsItsTwoUppercaseDigits() {
        for place in 0..<6 {
            let out = OutputBuffer(fd: nil)
            var expected = ""
            let shift = UInt64(8 * (5 - place))
            let others: UInt64 = 0x0102_0304_0506 & ~(0xFF << shift)
            for octet in 0..<256 {
                let a = BDAddr(rawValue: UInt64(octet) << shift | others)
                out.address(a)
                out.byte(0x0A)
                expected += a.description + "\n"
            }
            #expect(String(decoding: out.bytes, as: UTF8.self) == expected)
        }
        let out = OutputBuffer(fd: nil)
        out.address(BDAddr(rawValue: 0xDE_C0_37_13_42_00))
        #expect(String(decoding: out.bytes, as: UTF8.self) == "DE:C0:37:13:42:00")
    }
}
