import BLEBytes
import BLEPackets
import Testing

/// The SMPCode constants, the SMPPDU enum and its decode, the code table and each command
/// type's code are generated from scripts/pdu/smp_pdus.py (checked with the other tables by
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
}
