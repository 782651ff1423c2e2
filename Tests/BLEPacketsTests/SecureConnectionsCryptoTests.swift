import BLEBytes
import BLEPackets
import Testing

/// The LE Secure Connections pieces blecap needs for debug-key pairings, against published
/// vectors: RFC 4493's AES-CMAC examples, and Core 5.4 Vol 3 Part H's P-256 sample data (the
/// debug key pair, a second key pair and their DHKey, 2.3.5.6.1 and Appendix D) and f5 sample
/// data (D.3).
@Suite struct SecureConnectionsCryptoTests {
    static func number(_ hex: String) -> P256.Number { P256.Number(bigEndian: Hex.bytes(hex)!)! }
    static func value(_ hex: String) -> UInt128 { UInt128(hexMSBFirst: hex)! }

    @Test func aesCMACMatchesRFC4493() {
        let key = Self.value("2b7e151628aed2a6abf7158809cf4f3c")
        #expect(SecurityFunction.aesCMAC(key: key, []) == Self.value("bb1d6929e95937287fa37d129b756746"))
        let m = Hex.bytes(
            "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52ef")!
        #expect(SecurityFunction.aesCMAC(key: key, Array(m[..<16])) == Self.value("070a16b46b4d4144f79bdd9dd04a287c"))
        #expect(SecurityFunction.aesCMAC(key: key, Array(m[..<40])) == Self.value("dfa66747de9ae63030ca32611497c827"))
    }

    @Test func p256MatchesTheSpecificationsSampleData() throws {
        let privateA = Self.number("3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abd")
        let privateB = Self.number("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")
        let ax = Self.number("20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6")
        let ay = Self.number("dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b")
        let bx = Self.number("1ea1f0f01faf1d9609592284f19e4c0047b58afd8615a69f559077b22faaa190")
        let by = Self.number("4c55f33e429dad377356703a9ab85160472d1130e28e36765f89aff915b1214a")
        let dhKey = Self.number("ec0234a357c8ad05341010a60a397d9b99796b13b4f866f1868d34f373bfa698")
        // Each public key is its private key times G (A is the debug key pair).
        let a = try #require(P256.multiply(privateA, x: P256.gx, y: P256.gy))
        #expect(a.x == ax && a.y == ay)
        let b = try #require(P256.multiply(privateB, x: P256.gx, y: P256.gy))
        #expect(b.x == bx && b.y == by)
        #expect(P256.dhKey(privateKey: privateA, peerX: bx, peerY: by) == dhKey)
        #expect(P256.dhKey(privateKey: privateB, peerX: ax, peerY: ay) == dhKey)
        // A point off the curve is refused, not multiplied.
        #expect(P256.dhKey(privateKey: privateA, peerX: bx, peerY: ay) == nil)
        #expect(SecureConnectionsDebugKey.privateKey == privateA.bigEndianOctets)
    }

    @Test func f5MatchesTheSpecificationsSampleData() {
        let (macKey, ltk) = SecurityFunction.f5(
            w: Hex.bytes("ec0234a357c8ad05341010a60a397d9b99796b13b4f866f1868d34f373bfa698")!,
            n1: Self.value("d5cb8454d177733effffb2ec712baeab"), n2: Self.value("a6e8e7cc25a75f6e216583f7ff3dc4cf"),
            a1: 0x00_5612_3737_BFCE, a2: 0x00_A713_702D_CFC1)
        #expect(macKey == Self.value("2965f176a1084a02fd3f6a20ce636e20"))
        #expect(ltk == Self.value("6986791169d7cd23980522b594750a38"))
    }

    /// f4 (D.2) and f6 (D.4): the confirm and check values an LE Secure Connections responder sends.
    @Test func f4AndF6MatchTheSpecificationsSampleData() {
        let u = Hex.bytes("20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6")!
        let v = Hex.bytes("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")!
        #expect(
            SecurityFunction.f4(u: u, v: v, x: Self.value("d5cb8454d177733effffb2ec712baeab"), z: 0)
                == Self.value("f2c916f107a9bd1cf1eda1bea974872d"))
        #expect(
            SecurityFunction.f6(
                w: Self.value("2965f176a1084a02fd3f6a20ce636e20"), n1: Self.value("d5cb8454d177733effffb2ec712baeab"),
                n2: Self.value("a6e8e7cc25a75f6e216583f7ff3dc4cf"), r: Self.value("12a3343bb453bb5408da42d20c2d0fc8"),
                ioCap: 0x01_0102, a1: 0x00_5612_3737_BFCE, a2: 0x00_A713_702D_CFC1)
                == Self.value("e3c473989cd0e8c5d26c0b09da958f61"))
    }
}
