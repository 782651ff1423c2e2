import BLEBytes
import BLEPackets
import Testing

/// Numbers are written most significant octet first, as the specification prints them.
private func n128(_ hex: String) -> UInt128 { UInt128(hexMSBFirst: hex)! }
private func bytes(_ hex: String) -> [UInt8] { Hex.bytes(hex)! }

@Suite struct LinkLayerCryptoAESTests {
    // FIPS-197 Appendix C.1 (AES-128) and Appendix B (the cipher example).
    @Test func fips197Vectors() {
        #expect(
            AES128(key: n128("000102030405060708090a0b0c0d0e0f")).encrypt(n128("00112233445566778899aabbccddeeff"))
                == n128("69c4e0d86a7b0430d8cdb78070b4c55a"))
        #expect(
            AES128(key: n128("2b7e151628aed2a6abf7158809cf4f3c")).encrypt(n128("3243f6a8885a308d313198a2e0370734"))
                == n128("3925841d02dc09fbdc118597196a0b32"))
    }

    @Test func encryptionOfZeroUnderZeroKey() {
        // AES-128(0^128, 0^128), the well-known 66e94bd4ef8a2c3b884cfa59ca342b2e.
        #expect(AES128(key: 0).encrypt(0) == n128("66e94bd4ef8a2c3b884cfa59ca342b2e"))
    }

    @Test func keyChangesEveryOutputBit() {
        // Flipping one key bit changes the ciphertext: the schedule really depends on every word.
        let base = AES128(key: 0).encrypt(0)
        for bit in [0, 31, 32, 63, 64, 95, 96, 127] {
            #expect(AES128(key: UInt128(1) << bit).encrypt(0) != base)
        }
    }
}

@Suite struct LinkLayerCryptoToolboxTests {
    // Core 5.4 Vol 3 Part H 2.2.3 (c1 example) and Appendix D.1: k = 0, r, preq, pres, iat = 1,
    // rat = 0, ia, ra, p1, p2 and the result as the specification prints them.
    @Test func c1SampleData() {
        let preq: UInt64 = 0x07_0710_0000_0101
        let pres: UInt64 = 0x05_0008_0000_0302
        let p1 = SecurityFunction.c1P1(preq: preq, pres: pres, iat: 1, rat: 0)
        #expect(p1 == n128("05000800000302070710000001010001"))
        let p2 = SecurityFunction.c1P2(ia: 0xA1A2_A3A4_A5A6, ra: 0xB1B2_B3B4_B5B6)
        #expect(p2 == n128("00000000A1A2A3A4A5A6B1B2B3B4B5B6"))
        let c1 = SecurityFunction.c1(
            k: 0, r: n128("5783D52156AD6F0E6388274EC6702EE0"), preq: preq, pres: pres, iat: 1, ia: 0xA1A2_A3A4_A5A6,
            rat: 0, ra: 0xB1B2_B3B4_B5B6)
        #expect(c1 == n128("1e1e3fef878988ead2a74dc5bef13b86"))
    }

    // The pairing PDUs as octets on the air read the same as the printed numbers.
    @Test func c1OperandsFromWireOctets() {
        let preq = bytes("01 01 00 00 10 07 07").withByteView { $0.littleEndianUInt56(at: 0) }
        let ia = bytes("a6 a5 a4 a3 a2 a1").withByteView { $0.littleEndianUInt48(at: 0) }
        #expect(preq == 0x07_0710_0000_0101)
        #expect(ia == 0xA1A2_A3A4_A5A6)
    }

    // Vol 3 Part H 2.2.4 (s1 example).
    @Test func s1SampleData() {
        let stk = SecurityFunction.s1(
            k: 0, r1: n128("000F0E0D0C0B0A091122334455667788"), r2: n128("010203040506070899AABBCCDDEEFF00"))
        #expect(stk == n128("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    // Vol 3 Part H Appendix D.7 (ah): IRK, prand 0x708194 → hash 0x0dfbaa; the resolvable
    // private address made of them resolves with that IRK and not with another.
    @Test func ahSampleData() {
        let irk = n128("ec0234a357c8ad05341010a60a397d9b")
        #expect(SecurityFunction.ah(k: irk, r: 0x70_8194) == 0x0D_FBAA)
        let address: UInt64 = 0x70_8194 << 24 | 0x0D_FBAA
        #expect(SecurityFunction.resolves(address: address, irk: irk))
        #expect(!SecurityFunction.resolves(address: address, irk: irk ^ 1))
        #expect(!SecurityFunction.resolves(address: address ^ 1, irk: irk))
    }
}

/// Core 5.4 Vol 6 Part C 1 "Encryption sample data" (1.1 the encrypt command, 1.2 the
/// derivation of the MIC and encrypted data), transcribed: the LTK, SKDm/SKDs, IVm/IVs, the
/// session key, and four packets, two per direction, with their headers, plaintexts and the
/// payload ‖ MIC on the air.
@Suite struct LinkLayerCryptoCCMTests {
    static let ltk = n128("4C68384139F574D836BCF34E9DFB01BF")
    static let parameters = LinkLayerEncryptionParameters(
        rand: 0xABCD_EF12_3456_7890, ediv: 0x2474, skdm: 0xACBD_CEDF_E0F1_0213, ivm: 0xBADC_AB24,
        skds: 0x0213_2435_4657_6879, ivs: 0xDEAF_BABE)
    static let sessionKey = n128("99AD1B5226A37E3E058E3B8E27C2C666")

    struct Packet: Sendable, CustomTestStringConvertible {
        var name: String
        var header: UInt8
        var direction: LinkLayerDirection
        var counter: UInt64
        var plaintext: String
        var air: String
        var testDescription: String { name }
    }

    static let packets: [Packet] = [
        Packet(
            name: "LL_START_ENC_RSP1", header: 0x0F, direction: .centralToPeripheral, counter: 0, plaintext: "06",
            air: "9f cd a7 f4 48"),
        Packet(
            name: "LL_START_ENC_RSP2", header: 0x07, direction: .peripheralToCentral, counter: 0, plaintext: "06",
            air: "a3 4c 13 a4 15"),
        Packet(
            name: "LL_DATA1", header: 0x0E, direction: .centralToPeripheral, counter: 1,
            plaintext: "17 00 63 64 65 66 67 68 69 6A 6B 6C 6D 6E 6F 70 71 31 32 33 34 35 36 37 38 39 30",
            air: """
                7A 70 D6 64 15 22 6D F2 6B 17 83 9A 06 04 05 59 6B D6 56 4F 79 6B 5B 9C E6 FF 32 \
                F7 5A 6D 33
                """),
        Packet(
            name: "LL_DATA2", header: 0x06, direction: .peripheralToCentral, counter: 1,
            plaintext: "17 00 37 36 35 34 33 32 31 30 41 42 43 44 45 46 47 48 49 4A 4B 4C 4D 4E 4F 50 51",
            air: """
                F3 88 81 E7 BD 94 C9 C3 69 B9 A6 68 46 DD 47 86 AA 8C 39 CE 54 0D 0D AE 3A DC DF \
                89 B9 60 88
                """),
    ]

    @Test func sessionKeyAndIV() {
        #expect(Self.parameters.skd == n128("0213243546576879ACBDCEDFE0F10213"))
        #expect(Self.parameters.iv == 0xDEAF_BABE_BADC_AB24)
        let cipher = LinkLayerCipher(ltk: Self.ltk, parameters: Self.parameters)
        #expect(cipher.sessionKey == Self.sessionKey)
        #expect(SecurityFunction.e(Self.ltk, Self.parameters.skd) == Self.sessionKey)
    }

    // The parameters read from the two control PDUs as the air carries them (little-endian).
    @Test func parametersFromControlPDUs() {
        let req = bytes("03 90 78 56 34 12 ef cd ab 74 24 13 02 f1 e0 df ce bd ac 24 ab dc ba")
        let rsp = bytes("04 79 68 57 46 35 24 13 02 be ba af de")
        let p = req.withByteView { r in rsp.withByteView { LinkLayerEncryptionParameters(encReq: r, encRsp: $0) } }
        #expect(p == Self.parameters)
        // Truncated or the wrong opcode: no parameters.
        #expect(
            req.dropLast().withByteView { r in rsp.withByteView { LinkLayerEncryptionParameters(encReq: r, encRsp: $0) }
            } == nil)
        #expect(
            rsp.withByteView { r in rsp.withByteView { LinkLayerEncryptionParameters(encReq: r, encRsp: $0) } } == nil)
    }

    @Test(arguments: packets) func encryptGivesTheAirBytes(_ p: Packet) {
        let cipher = LinkLayerCipher(ltk: Self.ltk, parameters: Self.parameters)
        let air = cipher.encrypt(bytes(p.plaintext), header: p.header, counter: p.counter, direction: p.direction)
        #expect(air == bytes(p.air))
    }

    @Test(arguments: packets) func decryptGivesThePlaintext(_ p: Packet) {
        let cipher = LinkLayerCipher(sessionKey: Self.sessionKey, iv: Self.parameters.iv)
        #expect(
            cipher.decrypt(bytes(p.air), header: p.header, counter: p.counter, direction: p.direction)
                == bytes(p.plaintext))
        // The other direction, the next counter, or any changed octet: the MIC fails.
        let other: LinkLayerDirection =
            p.direction == .centralToPeripheral ? .peripheralToCentral : .centralToPeripheral
        #expect(cipher.decrypt(bytes(p.air), header: p.header, counter: p.counter, direction: other) == nil)
        #expect(cipher.decrypt(bytes(p.air), header: p.header, counter: p.counter + 1, direction: p.direction) == nil)
        for i in bytes(p.air).indices {
            var tampered = bytes(p.air)
            tampered[i] ^= 0x01
            #expect(cipher.decrypt(tampered, header: p.header, counter: p.counter, direction: p.direction) == nil)
        }
    }

    // NESN, SN and MD are masked out of the AAD (a retransmission flips them); LLID, CP and the
    // RFU bits are authenticated.
    @Test func headerMask() {
        let cipher = LinkLayerCipher(sessionKey: Self.sessionKey, iv: Self.parameters.iv)
        let air = bytes("9f cd a7 f4 48")
        for header: UInt8 in [0x03, 0x07, 0x0B, 0x0F, 0x13, 0x1F] {
            #expect(cipher.decrypt(air, header: header, counter: 0, direction: .centralToPeripheral) == [0x06])
        }
        for header: UInt8 in [0x02, 0x01, 0x23, 0x43, 0x83] {
            #expect(cipher.decrypt(air, header: header, counter: 0, direction: .centralToPeripheral) == nil)
        }
    }

    // The counter is 39 bits: bit 38 shares nonce octet 4 with the directionBit, and a
    // round trip at the top of the range still works in both directions, with 251 octets.
    @Test func maximumLengthAtTheTopOfTheCounter() {
        let cipher = LinkLayerCipher(sessionKey: Self.sessionKey, iv: Self.parameters.iv)
        let plaintext = (0..<251).map { UInt8($0) }
        let top: UInt64 = 0x7F_FFFF_FFFF
        for d in LinkLayerDirection.allCases {
            let air = cipher.encrypt(plaintext, header: 0x1E, counter: top, direction: d)!
            #expect(air.count == 255)
            #expect(cipher.decrypt(air, header: 0x1E, counter: top, direction: d) == plaintext)
            #expect(cipher.decrypt(air, header: 0x1E, counter: top - 1, direction: d) == nil)
        }
        #expect(
            cipher.encrypt(plaintext, header: 0x1E, counter: top, direction: .centralToPeripheral)
                != cipher.encrypt(plaintext, header: 0x1E, counter: top, direction: .peripheralToCentral))
    }

    // Empty, MIC-only and over-long payloads are not encrypted PDUs: no crash, no plaintext.
    @Test func lengthsThatAreNotEncryptedPDUs() {
        let cipher = LinkLayerCipher(sessionKey: Self.sessionKey, iv: Self.parameters.iv)
        for n in [0, 1, 4, 256, 300] {
            #expect(
                cipher.decrypt(
                    [UInt8](repeating: 0xA5, count: n), header: 0x02, counter: 0, direction: .centralToPeripheral)
                    == nil)
        }
        #expect(cipher.encrypt([], header: 0x02, counter: 0, direction: .centralToPeripheral) == nil)
        #expect(
            cipher.encrypt([UInt8](repeating: 0, count: 252), header: 0x02, counter: 0, direction: .centralToPeripheral)
                == nil)
    }
}

@Suite struct LinkLayerDecryptorTests {
    static func decryptor() -> LinkLayerDecryptor {
        let p = LinkLayerCryptoCCMTests.parameters
        return LinkLayerDecryptor(ltk: LinkLayerCryptoCCMTests.ltk, skdm: p.skdm, ivm: p.ivm, skds: p.skds, ivs: p.ivs)
    }

    // The sample packets in air order, no counters and no directions given: the decryptor finds
    // both and keeps one counter per direction.
    @Test func findsCountersAndDirections() {
        var d = Self.decryptor()
        for p in LinkLayerCryptoCCMTests.packets {
            let r = d.decrypt(pdu: bytes(p.air), header: p.header, direction: nil)
            #expect(r?.plaintext == bytes(p.plaintext), "\(p.name)")
            #expect(r?.match == .init(direction: p.direction, counter: p.counter, isRetransmission: false), "\(p.name)")
        }
        #expect(d.nextCounter(.centralToPeripheral) == 2)
        #expect(d.nextCounter(.peripheralToCentral) == 2)
    }

    // A missed PDU (LL_DATA1 without LL_START_ENC_RSP1 before it) is skipped over; a
    // retransmission (the same PDU again) decrypts with the previous counter and is marked.
    @Test func missedAndRetransmittedPDUs() {
        var d = Self.decryptor()
        let data1 = LinkLayerCryptoCCMTests.packets[2]
        let first = d.decrypt(pdu: bytes(data1.air), header: data1.header, direction: .centralToPeripheral)
        #expect(first?.match.counter == 1)
        #expect(first?.match.isRetransmission == false)
        // The retransmission carries the other SN/NESN bits: still the same AAD.
        let again = d.decrypt(pdu: bytes(data1.air), header: data1.header ^ 0x0C, direction: .centralToPeripheral)
        #expect(again?.match.counter == 1)
        #expect(again?.match.isRetransmission == true)
        #expect(again?.plaintext == bytes(data1.plaintext))
        #expect(d.nextCounter(.centralToPeripheral) == 2)
        // Given the wrong direction, it verifies in the right one and says so …
        let mislabelled = d.decrypt(pdu: bytes(data1.air), header: data1.header, direction: .peripheralToCentral)
        #expect(
            mislabelled?.match
                == .init(direction: .centralToPeripheral, counter: 1, isRetransmission: true, directionCorrected: true))
        #expect(d.nextCounter(.peripheralToCentral) == 0)
        // … unless told to trust the direction: then nothing verifies and the counters stay.
        d.correctsDirection = false
        #expect(d.decrypt(pdu: bytes(data1.air), header: data1.header, direction: .peripheralToCentral) == nil)
        #expect(d.nextCounter(.peripheralToCentral) == 0)
        #expect(d.nextCounter(.centralToPeripheral) == 2)
    }

    @Test func explicitCounter() {
        var d = Self.decryptor()
        let data2 = LinkLayerCryptoCCMTests.packets[3]
        #expect(d.decrypt(pdu: bytes(data2.air), header: data2.header, direction: nil, counter: 0) == nil)
        let r = d.decrypt(pdu: bytes(data2.air), header: data2.header, direction: nil, counter: 1)
        #expect(r?.match.direction == .peripheralToCentral)
        #expect(d.nextCounter(.peripheralToCentral) == 2)
    }

    // Garbage of every length up to the maximum never decrypts and never traps.
    @Test func garbageNeverVerifies() {
        var d = Self.decryptor()
        var rng = SplitMix64(seed: 12)
        for n in 0...260 {
            let junk = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            #expect(d.decrypt(pdu: junk, header: UInt8(truncatingIfNeeded: n), direction: nil) == nil)
        }
        #expect(d.nextCounter(.centralToPeripheral) == 0)
    }
}

@Suite struct LinkLayerEncryptorTests {
    // The sample packets encrypted in air order by a sender that keeps its own counters give
    // the specification's air bytes; empty payloads pass unencrypted and do not count.
    @Test func encryptsTheSampleDataInOrder() {
        let p = LinkLayerCryptoCCMTests.parameters
        var e = LinkLayerEncryptor(ltk: LinkLayerCryptoCCMTests.ltk, skdm: p.skdm, ivm: p.ivm, skds: p.skds, ivs: p.ivs)
        for packet in LinkLayerCryptoCCMTests.packets {
            #expect(e.encrypt([], header: 0x01, direction: packet.direction) == [])
            #expect(e.nextCounter(packet.direction) == packet.counter)
            #expect(
                e.encrypt(bytes(packet.plaintext), header: packet.header, direction: packet.direction)
                    == bytes(packet.air))
        }
        #expect(e.nextCounter(.centralToPeripheral) == 2)
        #expect(e.nextCounter(.peripheralToCentral) == 2)
        // Too long: nothing appended, no counter used.
        var out: [UInt8] = []
        let counter = [UInt8](repeating: 0, count: 252).withByteView {
            e.encrypt($0, header: 0x02, direction: .centralToPeripheral, appendingTo: &out)
        }
        #expect(counter == nil)
        #expect(out.isEmpty)
        #expect(e.nextCounter(.centralToPeripheral) == 2)
    }

    // What the encryptor sends, the decryptor reads back with the same counters.
    @Test func roundTripWithTheDecryptor() {
        let p = LinkLayerCryptoCCMTests.parameters
        var e = LinkLayerEncryptor(ltk: 42, skdm: p.skdm, ivm: p.ivm, skds: p.skds, ivs: p.ivs)
        var d = LinkLayerDecryptor(ltk: 42, skdm: p.skdm, ivm: p.ivm, skds: p.skds, ivs: p.ivs)
        var rng = SplitMix64(seed: 7)
        for i in 0..<200 {
            let direction: LinkLayerDirection = rng.next() & 1 == 0 ? .centralToPeripheral : .peripheralToCentral
            let plaintext = (0..<(1 + Int(rng.next() % 251))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let counter = e.nextCounter(direction)
            let air = e.encrypt(plaintext, header: 0x02, direction: direction)
            let r = d.decrypt(pdu: air, header: 0x02, direction: i % 3 == 0 ? nil : direction)
            #expect(r?.plaintext == plaintext)
            #expect(r?.match == .init(direction: direction, counter: counter, isRetransmission: false))
        }
    }
}
