import BLEAir
import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import TestSupport
import Testing

/// The captured peripheral's server on the virtual controller indicates as the ATT bearer
/// allows (Core 5.4 Vol 3 Part F 3.3.2, 3.4.7.2): no other indication until the host's client
/// confirms the last, which the connection's `ATTBearerState` holds. The captured host of a
/// capture with six indications, each confirmed, played against the controller as recorded
/// and with its confirmations taken out.
@Suite struct IndicationFlowTests {
    static let path = Fixtures.capture("bumble/indications_and_errors.central.btsnoop")

    /// The ATT opcode of an H4 ACL packet carrying a whole ATT PDU, nil for anything else.
    static func attOpcode(_ h4: [UInt8]) -> ATTOpcode? {
        guard h4.first == H4PacketType.acl else { return nil }
        return h4.withByteView { v -> ATTOpcode? in
            guard let body = v.suffix(from: 1), let acl = HCIACLPacket(body), let frame = L2CAPBasicFrame(acl.data),
                frame.channel == L2CAPChannel.att, let op = frame.payload.u8(0)
            else { return nil }
            return ATTOpcode(op)
        }
    }

    static func play(confirming: Bool) throws -> (bench: Bench, bearer: ATTBearerState) {
        var host = try HostSide(path)
        if !confirming { host.packets.removeAll { attOpcode($0.bytes) == .handleValueConfirmation } }
        let bench = try Bench(path) { if let n = host.leACLPackets { $0.aclPackets = n } }
        bench.play(host)
        bench.wait(5_000_000)
        let served = bench.controller.served.filter { !$0.replayed.pdus.isEmpty }
        let connection = try #require(served.count == 1 ? served.first : nil, "\(served.count) connections")
        return (bench, connection.bearer)
    }

    @Test func eachIndicationWaitsForTheHostsConfirmation() throws {
        let captured = try HostSide(Self.path).controllerPackets.filter {
            Self.attOpcode($0.bytes) == .handleValueIndication
        }
        #expect(captured.count == 6)
        // Confirmed as captured: all six go, and none is left unconfirmed.
        let confirmed = try Self.play(confirming: true)
        #expect(confirmed.bench.out.filter { Self.attOpcode($0) == .handleValueIndication }.count == 6)
        #expect(confirmed.bearer.outstandingIndication(to: .host) == nil)
        // Never confirmed: the first goes and stays on the bearer; the other five wait.
        let unconfirmed = try Self.play(confirming: false)
        let sent = unconfirmed.bench.out.filter { Self.attOpcode($0) == .handleValueIndication }
        #expect(sent.count == 1)
        let first = try #require(
            sent.first.flatMap { p in
                p.withByteView { v in
                    v.suffix(from: 1).flatMap(HCIACLPacket.init).flatMap { L2CAPBasicFrame($0.data) }.flatMap {
                        ATTPDU.handle(of: $0.payload)
                    }
                }
            })
        let outstanding = try #require(unconfirmed.bearer.outstandingIndication(to: .host))
        #expect(outstanding.handle == first)
        #expect(!unconfirmed.bearer.maySendIndication(to: .host))
        // The host's own requests are another transaction: they were answered.
        #expect(unconfirmed.bearer.outstanding(.host) == nil)
    }
}
