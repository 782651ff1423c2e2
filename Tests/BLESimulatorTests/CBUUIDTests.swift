import BLESimulator
import Foundation
import Testing

@Suite("CBUUID")
struct CBUUIDTests {
    @Test("16-, 32- and 128-bit forms of a based UUID are equal and print shortest")
    func forms() {
        let short = CBUUID(string: "180D")
        #expect(short == CBUUID(string: "0000180D"))
        #expect(short == CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB"))
        #expect(short == CBUUID(string: "0000180d-0000-1000-8000-00805f9b34fb"))
        #expect(short.uuidString == "180D")
        #expect(CBUUID(string: "0000FFF0-0000-1000-8000-00805F9B34FB").uuidString == "FFF0")
        #expect(CBUUID(string: "12345678").uuidString == "12345678")
        let custom = CBUUID(string: "12345678-1234-1234-1234-123456789ABC")
        #expect(custom.uuidString == "12345678-1234-1234-1234-123456789ABC")
        #expect(custom != CBUUID(string: "12345678-1234-1234-1234-123456789ABD"))
        #expect(Set([short, CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")]).count == 1)
    }

    @Test("data round trip, NSUUID, invalid text")
    func dataAndValidation() {
        #expect(CBUUID(string: "180D").data == Data([0x18, 0x0D]))
        #expect(CBUUID(data: Data([0x18, 0x0D])) == CBUUID(string: "180D"))
        let custom = CBUUID(string: "12345678-1234-1234-1234-123456789ABC")
        #expect(CBUUID(data: custom.data) == custom)
        #expect(CBUUID(nsuuid: UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!) == custom)
        #expect(CBUUID(data: Data([1, 2, 3])) == nil)
        #expect(CBUUID(validating: "18") == nil)
        #expect(CBUUID(validating: "XYZW") == nil)
        #expect(CBUUID(validating: "2A37") == CBUUID(string: "2A37"))
    }
}
