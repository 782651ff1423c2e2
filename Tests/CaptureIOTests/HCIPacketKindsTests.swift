import CaptureIO
import Testing

/// The H4 packet-type byte and the record kind map both ways: every HCI kind back to the byte
/// it was read from, and no byte for records that are no HCI packet.
@Suite struct HCIPacketKindsTests {
    @Test func h4TypeIsTheInverseOfKind() {
        for byte in UInt8(0x01)...0x05 {
            #expect(HCIPacketKinds.h4Type(of: HCIPacketKinds.kind(h4Type: byte)) == byte)
        }
        for kind in RecordKind.allCases where HCIPacketKinds.h4Type(of: kind) == nil {
            #expect(![.hciCommand, .hciEvent, .aclData, .scoData, .isoData].contains(kind))
        }
    }
}
