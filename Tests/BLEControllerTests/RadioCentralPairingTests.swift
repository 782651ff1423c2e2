import BLEBytes
import BLEController
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// blecap as the captured central pairs over a controller (`blecap replay --role central
/// --controller`) where and as the capture did. The far side is blecap's own virtual
/// controller playing the peripheral of the central's capture of the same session, whose host
/// (blecap serve's) pairs as an LE legacy Just Works peripheral whatever the central asks: so
/// the captured LE Secure Connections pairing meets another method, which blecap follows,
/// checks and reports. The far controller starts encryption only with the key its peripheral
/// computed (another key is a MIC failure that ends the link).
@Suite struct RadioCentralPairingTests {
    static let central = Fixtures.capture("bumble/indications_and_errors.central.btsnoop")
    static let peripheral = Fixtures.capture("bumble/indications_and_errors.peripheral.btsnoop")

    /// SMP PDUs that crossed blecap's HCI, with whether blecap sent them.
    static func smp(_ hci: [(packet: [UInt8], sent: Bool)]) -> [(pdu: [UInt8], sent: Bool)] {
        hci.compactMap { p in
            guard p.packet.first == H4PacketType.acl else { return nil }
            return p.packet.withByteView { v -> ([UInt8], Bool)? in
                guard let acl = v.suffix(from: 1).flatMap(HCIACLPacket.init), let frame = L2CAPBasicFrame(acl.data),
                    frame.channel == L2CAPChannel.smp
                else { return nil }
                return (frame.payload.toArray(), p.sent)
            }
        }
    }

    @Test func pairsAsCapturedAndReportsTheOtherMethod() throws {
        let run = try RadioCentralTests.run(pair: Self.central, Self.peripheral)
        let smp = Self.smp(run.hci)
        // The captured central's Pairing Request: NoInputNoOutput, Bonding and SC, 16 octets,
        // LTK and IRK both ways.
        #expect(smp.first?.pdu == [SMPCode.pairingRequest, 0x03, 0x00, 0x09, 16, 0x03, 0x03])
        #expect(smp.first?.sent == true)
        // The peer answered without SC: LE legacy Just Works, Mconfirm/Mrand against its
        // Sconfirm/Srand, then the STK to the controller (EDIV 0, Rand 0).
        let sent = smp.filter(\.sent).map { $0.pdu.first }
        #expect(
            sent == [
                SMPCode.pairingRequest, SMPCode.pairingConfirm, SMPCode.pairingRandom, SMPCode.encryptionInformation,
                SMPCode.centralIdentification, SMPCode.identityInformation, SMPCode.identityAddressInformation,
            ], "\(smp)")
        let encrypt = RadioCentralTests.commands(run.hci, HCIOpcode.leEnableEncryption)
        #expect(encrypt.count == 1)
        let e = try #require(encrypt.first.flatMap { $0.withByteView(HCILEEnableEncryption.init(parameters:)) })
        #expect(e.randomNumber == 0 && e.encryptedDiversifier == 0)
        // The far controller took the key (its peripheral's STK): Encryption Change, on.
        let changes = run.hci.filter { p in
            !p.sent && p.packet.count >= 7 && p.packet[0] == H4PacketType.event
                && p.packet[1] == HCIEventCode.encryptionChange
        }
        #expect(changes.map { [$0.packet[3], $0.packet[6]] } == [[HCIError.success, 1]])
        // The report: another method and other keys than the captured peripheral's.
        let radio = run.report.radio ?? []
        #expect(
            radio.contains {
                $0.contains("pairs with LE legacy Just Works; the captured one with LE Secure Connections Just Works")
            }, "\(radio)")
        #expect(radio.contains { $0.contains("other keys") }, "\(radio)")
        #expect(!radio.contains { $0.contains("does not match") || $0.contains("did not encrypt") }, "\(radio)")
        // Every captured answer came, the one after pairing too (at max speed the indications
        // come before answers the capture shows them after: reordered, RadioCentralTests).
        let ops = run.report.operations.flatMap { $0 }
        #expect(
            !ops.isEmpty && ops.allSatisfy { $0.verdict == .same || $0.verdict == .reordered },
            "\(ops.filter { $0.verdict != .same })")
        #expect(ops.contains { $0.verdict == .same && $0.captured == "0b7365637265743a3432" })
    }

    /// The captured peripheral sent a Security Request (Bonding and SC), which its central
    /// ignored; the far side's peripheral plays the same session but never sends one (blecap's
    /// virtual controller sends a captured Security Request only to a real central). The link
    /// goes on and ends as captured, and the report names the request the device never sent.
    @Test func reportsTheSecurityRequestTheDeviceDidNotSend() throws {
        let run = try RadioCentralTests.run(
            pair: Fixtures.capture("bumble-failures/security_request_ignored.central.btsnoop"),
            Fixtures.capture("bumble-failures/security_request_ignored.peripheral.btsnoop"))
        // No SMP crossed the link: the device sent no Security Request, blecap no pairing.
        #expect(Self.smp(run.hci).isEmpty, "\(Self.smp(run.hci))")
        let radio = run.report.radio ?? []
        #expect(
            radio.contains {
                $0.contains(
                    "security: the captured peripheral sent a Security Request (AuthReq 0x9); the device did not")
            }, "\(radio)")
        // The link went on: the device answered the captured central's requests.
        #expect(run.report.operations.flatMap { $0 }.contains { $0.verdict == .same })
    }
}
