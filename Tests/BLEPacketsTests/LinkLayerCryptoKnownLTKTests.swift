import BLEBytes
import BLEPackets
import TestSupport
import Testing

/// The data PDUs of a classic-pcap link type 256 file (LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR), read
/// with a walk over the record headers — a test-only stand-in until CaptureIO reads link-layer
/// files. The 10-octet pseudo-header ends with the flags, whose bits 7–9 say the PDU type
/// (2: data, central → peripheral; 3: data, peripheral → central).
private struct LinkType256DataPDU {
    var frame: Int
    var direction: LinkLayerDirection
    var header: UInt8
    var payload: [UInt8]
}

private func dataPDUs(ofPcap file: [UInt8]) -> [LinkType256DataPDU] {
    file.withByteView { v in
        guard v.u32le(0) == 0xA1B2_C3D4, v.u32le(20) == 256 else { return [] }
        var out: [LinkType256DataPDU] = []
        var offset = 24
        var frame = 0
        while let length = v.u32le(offset + 8).map(Int.init), let record = v.slice(offset + 16, length) {
            frame += 1
            offset += 16 + length
            guard let flags = record.u16le(8), let header = record.u8(14), let count = record.u8(15),
                let payload = record.slice(16, Int(count))
            else { continue }
            switch (flags >> 7) & 0x7 {
            case 2:
                out.append(
                    .init(frame: frame, direction: .centralToPeripheral, header: header, payload: payload.toArray()))
            case 3:
                out.append(
                    .init(frame: frame, direction: .peripheralToCentral, header: header, payload: payload.toArray()))
            default: break
            }
        }
        return out
    }
}

/// bsniffhub's example capture of an encrypted connection made with AUX_CONNECT_REQ, in the
/// repository as captures/public/pcap-lell256_bsniffhub-aux-connect-req-enc.pcap; its original
/// name (examples/AUX_CONNECT_REQ-ltk-9A7163D4C92D91B5C3BA0EBFB4D1B8A2.pcap) gives the LTK.
/// tshark shows LL_ENC_REQ in frame 86, LL_ENC_RSP in 89, LL_START_ENC_REQ in 93, and from
/// frame 94 on only ciphertext ("Control Opcode: Unknown", "L2CAP Fragment Start"):
///   tshark -r FILE -Y 'frame.number>=94 && btle.data_header.length>0' -T fields -e _ws.col.Source
/// counts 98 non-empty PDUs from the central and 103 from the peripheral, all with a good CRC.
@Suite struct LinkLayerCryptoKnownLTKTests {
    static let file = "public/pcap-lell256_bsniffhub-aux-connect-req-enc.pcap"

    @Test func decryptsEveryEncryptedPDUWithTheKnownLTK() throws {
        let pdus = dataPDUs(ofPcap: try Fixtures.bytes(Self.file))
        guard let encReq = pdus.first(where: { $0.frame == 86 }), let encRsp = pdus.first(where: { $0.frame == 89 }),
            let parameters = encReq.payload.withByteView({ r in
                encRsp.payload.withByteView { LinkLayerEncryptionParameters(encReq: r, encRsp: $0) }
            })
        else {
            Issue.record("LL_ENC_REQ/RSP not found in frames 86/89")
            return
        }
        var decryptor = LinkLayerDecryptor(
            ltk: UInt128(hexMSBFirst: "9A7163D4C92D91B5C3BA0EBFB4D1B8A2")!, skdm: parameters.skdm, ivm: parameters.ivm,
            skds: parameters.skds, ivs: parameters.ivs)
        let encrypted = pdus.filter { $0.frame >= 94 && !$0.payload.isEmpty }
        #expect(encrypted.filter { $0.direction == .centralToPeripheral }.count == 98)
        #expect(encrypted.filter { $0.direction == .peripheralToCentral }.count == 103)
        var plaintexts: [(pdu: LinkType256DataPDU, match: LinkLayerDecryptor.Match, plaintext: [UInt8])] = []
        for pdu in encrypted {
            if let r = decryptor.decrypt(pdu: pdu.payload, header: pdu.header, direction: pdu.direction) {
                plaintexts.append((pdu, r.match, r.plaintext))

            }
        }
        // Every one verifies: 201 valid 32-bit MICs. Two of them only in the direction opposite to
        // the pseudo-header's: frames 291 and 292 sit in one connection event labelled central,
        // central / peripheral (tshark: Master, Master, Slave), and the MIC says peripheral →
        // central for 291 and central → peripheral for 292.
        #expect(plaintexts.count == 201)
        #expect(plaintexts.filter(\.match.directionCorrected).map(\.pdu.frame) == [291, 292])
        // The first in each direction is LL_START_ENC_RSP with packet counter 0.
        #expect(plaintexts.first?.pdu.frame == 94)
        #expect(plaintexts.first?.plaintext == [0x06])
        #expect(plaintexts.first?.match.counter == 0)
        #expect(plaintexts.dropFirst().first?.pdu.frame == 97)
        #expect(plaintexts.dropFirst().first?.plaintext == [0x06])
        // Counters only grow: each new PDU's is above the last. The central's run 0…97 without a
        // gap (98 PDUs); the peripheral's skip the PDUs the sniffer missed.
        for d in LinkLayerDirection.allCases {
            let counters = plaintexts.filter { $0.match.direction == d && !$0.match.isRetransmission }.map(
                \.match.counter)
            #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 }, "\(d)")
            #expect(decryptor.nextCounter(d) == (counters.last ?? 0) + 1)
        }
        #expect(
            plaintexts.filter { $0.match.direction == .centralToPeripheral }.map(\.match.counter)
                == (0...97).map { UInt64($0) })
        // Each L2CAP start fragment is a basic frame whose length covers what follows, and on the
        // ATT channel the opcode is one blecap knows.
        var attPDUs = 0
        for p in plaintexts where p.pdu.header & 0x03 == 0x02 && !p.match.isRetransmission {
            p.plaintext.withByteView { v in
                guard let length = v.u16le(0), let cid = v.u16le(2) else {
                    Issue.record("frame \(p.pdu.frame): no L2CAP header")
                    return
                }
                #expect(Int(length) >= v.count - 4, "frame \(p.pdu.frame)")
                if cid == 0x0004, let opcode = v.u8(4) {
                    attPDUs += 1
                    #expect(ATTOpcode(rawValue: opcode).entry != nil, "frame \(p.pdu.frame) ATT opcode \(opcode)")
                }
            }
        }
        #expect(attPDUs > 50)
    }

    // One wrong octet in the key: not one PDU verifies.
    @Test func aWrongLTKDecryptsNothing() throws {
        let pdus = dataPDUs(ofPcap: try Fixtures.bytes(Self.file))
        guard let encReq = pdus.first(where: { $0.frame == 86 }), let encRsp = pdus.first(where: { $0.frame == 89 }),
            let p = encReq.payload.withByteView({ r in
                encRsp.payload.withByteView { LinkLayerEncryptionParameters(encReq: r, encRsp: $0) }
            })
        else {
            Issue.record("LL_ENC_REQ/RSP not found")
            return
        }
        var decryptor = LinkLayerDecryptor(
            ltk: UInt128(hexMSBFirst: "9A7163D4C92D91B5C3BA0EBFB4D1B8A3")!, skdm: p.skdm, ivm: p.ivm, skds: p.skds,
            ivs: p.ivs, searchWindow: 2)
        let verified = pdus.filter { $0.frame >= 94 && !$0.payload.isEmpty }.prefix(40).filter {
            decryptor.decrypt(pdu: $0.payload, header: $0.header, direction: $0.direction) != nil
        }
        #expect(verified.isEmpty)
    }
}
