import BLEAir
import BLEBytes
import BLEPackets
import Testing

@testable import BLEReplay

/// `ReplayATTServer` answers requests decoded by BLEPackets; a request too short for its
/// opcode is answered from the fields it holds (the answers replay gave when it read requests
/// by offset).
@Suite struct ReplayATTServerTests {
    /// The ATT_MTU a bearer settles on once `response` to `request` is delivered.
    static func settledMTU(_ request: [UInt8], _ response: [UInt8]) -> UInt16 {
        var bearer = ATTBearerState()
        request.withByteView { q in
            response.withByteView { _ = bearer.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0)) }
        }
        return bearer.mtu
    }

    /// A Heart Rate service at 0x0001–0x0003: its declaration, a characteristic declaration
    /// at 0x0002 (read, notify; value 0x0003, 0x2A37) and the value at 0x0003.
    static func server(_ faults: ReplayFaults = ReplayFaults()) -> ReplayATTServer {
        var m = ReplayServerModel()
        m.attributes = [
            ReplayAttribute(
                handle: 1, type: ReplayAttribute.primaryService, value: [0x0D, 0x18], groupEnd: 3, properties: nil,
                isInferred: false),
            ReplayAttribute(
                handle: 2, type: ReplayAttribute.characteristic, value: [0x12, 0x03, 0x00, 0x37, 0x2A], groupEnd: nil,
                properties: nil, isInferred: false),
            ReplayAttribute(
                handle: 3, type: BluetoothUUID(uuid16: 0x2A37), value: [], groupEnd: nil, properties: 0x12,
                isInferred: false),
        ]
        m.index()
        return ReplayATTServer(model: m, faults: faults)
    }

    @Test func wellFormedRequests() {
        var s = Self.server()
        #expect(s.answer([0x0A, 0x03, 0x00]) == [0x0B])  // nothing recorded: the empty current value
        #expect(s.answer([0x12, 0x03, 0x00, 0x01, 0x02]) == [0x13])
        #expect(s.answer([0x0A, 0x03, 0x00]) == [0x0B, 0x01, 0x02])  // the value written
        #expect(s.answer([0x0C, 0x03, 0x00, 0x01, 0x00]) == [0x0D, 0x02])
        #expect(s.answer([0x0C, 0x03, 0x00, 0x03, 0x00]) == [0x01, 0x0C, 0x03, 0x00, 0x07])  // Invalid Offset
        #expect(s.answer([0x16, 0x03, 0x00, 0x00, 0x00, 0xAA]) == [0x17, 0x03, 0x00, 0x00, 0x00, 0xAA])
        #expect(
            s.answer([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]) == [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x0D, 0x18])
        #expect(
            s.answer([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28]) == [
                0x09, 0x07, 0x02, 0x00, 0x12, 0x03, 0x00, 0x37, 0x2A,
            ])
        #expect(s.answer([0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x0D, 0x18]) == [0x07, 0x01, 0x00, 0x03, 0x00])
        #expect(s.answer([0x04, 0x03, 0x00, 0x02, 0x00]) == [0x01, 0x04, 0x03, 0x00, 0x01])  // reversed range
        #expect(s.answer([0x0E, 0x03, 0x00, 0x02, 0x00]) == [0x01, 0x0E, 0x03, 0x00, 0x06])  // not supported
        #expect(s.answer([0x18, 0x01]) == [0x19])
        #expect(s.answer([0x02, 0x00, 0x02]) == [0x03, 0x17, 0x00])
        #expect(Self.settledMTU([0x02, 0x00, 0x02], [0x03, 0x17, 0x00]) == 23)
        #expect(s.answer([0x52, 0x03, 0x00, 0x01]) == nil)  // a command: no response
    }

    @Test func truncatedRequestsAnsweredFromTheFieldsTheyHold() {
        var s = Self.server()
        // Read: no handle, so handle 0, which is no attribute.
        #expect(s.answer([0x0A, 0x03]) == [0x01, 0x0A, 0x00, 0x00, 0x01])
        // Read Blob with a handle and no offset: offset 0.
        #expect(s.answer([0x0C, 0x03, 0x00]) == [0x0D])
        // Prepare Write echoed byte for byte.
        #expect(s.answer([0x16, 0x03, 0x00, 0x01]) == [0x17, 0x03, 0x00, 0x01])
        // Read By Type with a range and no type: Invalid PDU naming handle 0.
        #expect(s.answer([0x08, 0x01, 0x00, 0xFF, 0xFF]) == [0x01, 0x08, 0x00, 0x00, 0x04])
        // Read By Group Type with a start and no end: Invalid Handle naming the start.
        #expect(s.answer([0x10, 0x05, 0x00]) == [0x01, 0x10, 0x05, 0x00, 0x01])
        // Find By Type Value with a range and no type: Invalid PDU.
        #expect(s.answer([0x06, 0x01, 0x00, 0xFF, 0xFF, 0x00]) == [0x01, 0x06, 0x00, 0x00, 0x04])
        // Exchange MTU without its MTU: the client is taken at 23.
        #expect(s.answer([0x02]) == [0x03, 0x17, 0x00])
        #expect(Self.settledMTU([0x02], [0x03, 0x17, 0x00]) == 23)
    }

    @Test func faultsApplyToTheDecodedHandle() {
        var faults = ReplayFaults()
        faults.errors[3] = 0x02
        var s = Self.server(faults)
        #expect(s.answer([0x0A, 0x03, 0x00]) == [0x01, 0x0A, 0x03, 0x00, 0x02])
        #expect(s.answer([0x12, 0x03, 0x00, 0x01]) == [0x01, 0x12, 0x03, 0x00, 0x02])
        #expect(s.answer([0x0A, 0x02, 0x00]) == [0x0B])  // another handle: no fault
    }
}
