import BLEBytes
import BLEPackets
import Testing

/// The SMPCode constants, the SMPPDU enum and its decode, the code table and each command
/// type (fields, decoder, encoder, describer) are generated from scripts/pdu/smp_pdus.py (checked with the other tables by
/// `HCICommandGenerationTests` and `ATTPDUGenerationTests`: one generator, one `--check`).
@Suite struct SMPPDUGenerationTests {
    /// Every row decodes a PDU of exactly its size to a command (not unknown, not malformed),
    /// and one octet short to a malformed PDU; the codes run from 0x01 without a gap.
    @Test func everyRowDecodesAtItsSizeAndNotShorter() {
        #expect(SMPCode.entries.map(\.code) == Array(1...UInt8(SMPCode.entries.count)))
        for entry in SMPCode.entries {
            let pdu = [entry.code] + [UInt8](repeating: 0, count: entry.parameterLength)
            pdu.withByteView { view in
                #expect(SMPCode.isWellFormed(view), "\(entry.name)")
                switch SMPPDU(view) {
                case .unknown, .malformed: Issue.record("\(entry.name) did not decode")
                default: break
                }
            }
            Array(pdu.dropLast()).withByteView { view in
                guard case .malformed(let code, _, _) = SMPPDU(view) else {
                    Issue.record("\(entry.name) decoded one octet short")
                    return
                }
                #expect(code == entry.code)
            }
        }
        #expect(SMPPairingKeypressNotification.code == SMPCode.pairingKeypressNotification)
        #expect(SMPCode.name(SMPCode.centralIdentification).description == "Central Identification")
        [0x0F, 0x00].withByteView { view in
            guard case .unknown(let code, _) = SMPPDU(view) else {
                Issue.record("0x0F decoded")
                return
            }
            #expect(code == 0x0F)
        }
    }

    /// Every row decodes distinct octets of exactly its size to a command that encodes back to
    /// them and is described field by field; Keypress Notification, which no capture holds, too.
    @Test func everyRowEncodesBackAndDescribes() {
        for entry in SMPCode.entries {
            let pdu = [entry.code] + (0..<entry.parameterLength).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
            pdu.withByteView { view in
                guard let command = SMPPDU(view).command else {
                    Issue.record("\(entry.name) did not decode")
                    return
                }
                #expect(command.encoded() == pdu, "\(entry.name)")
                let sink = RecordingSink()
                SMPPDU.describe(view, into: sink)
                #expect(sink.lines.count >= 2, "\(entry.name)")
            }
        }
        let keypress = SMPPairingKeypressNotification(notificationType: 4)
        #expect(keypress.encoded() == [SMPCode.pairingKeypressNotification, 4])
        let sink = RecordingSink()
        keypress.encoded().withByteView { SMPPDU.describe($0, into: sink) }
        #expect(sink.lines.last == "notification_type=0x04 Passkey entry completed")
    }
}
