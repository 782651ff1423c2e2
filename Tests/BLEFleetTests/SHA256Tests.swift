import BLEFleet
import Testing

@Suite struct SHA256Tests {
    /// FIPS 180-4 / NIST examples (empty, one block, the 56-byte message whose padding takes a
    /// second block, the 112-byte two-block message, a million "a"), on the portable path and,
    /// where the CPU has the SHA extensions, on those.
    @Test(arguments: [false, true]) func knownDigests(hardware: Bool) {
        func hash(_ bytes: [UInt8]) -> String { SHA256.hash(bytes, hardware: hardware).hexString }
        #expect(SHA256(hardware: hardware).usesHardware == (hardware && SHA256.hardwareAvailable))
        #expect(hash([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hash(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hash(
                Array(
                    ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                        + "mnopqrstnopqrstu").utf8))
                == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        #expect(
            hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// The SHA extensions and the portable code agree on every length 0...1000 (each block
    /// boundary and padding edge up to 15 blocks), from an odd address (unaligned loads), one-shot
    /// and streamed in pieces that end on and across block boundaries.
    @Test(.enabled(if: SHA256.hardwareAvailable, "this CPU has no SHA extensions"))
    func hardwareEqualsPortable() {
        var x: UInt32 = 0x1234_5678
        let data: [UInt8] = (0..<1001).map { _ in
            x = x &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: x >> 24)
        }
        data.withUnsafeBytes { all in
            for n in 0...1000 {
                let message = UnsafeRawBufferPointer(rebasing: all[1..<(1 + n)])
                var portable = SHA256(hardware: false)
                var hardware = SHA256(hardware: true)
                #expect(!portable.usesHardware && hardware.usesHardware)
                portable.update(message)
                hardware.update(message)
                let p = portable.finish()
                #expect(hardware.finish() == p, "length \(n)")
                for step in [1, 63, 64, 65, 128, 200] {
                    var s = SHA256(hardware: true)
                    var i = 0
                    while i < n {
                        let j = min(n, i + step)
                        s.update(UnsafeRawBufferPointer(rebasing: message[i..<j]))
                        i = j
                    }
                    #expect(s.finish() == p, "length \(n) in pieces of \(step)")
                }
            }
        }
    }

    /// Streaming in uneven pieces gives the one-shot digest.
    @Test func streamingEqualsOneShot() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var s = SHA256()
        var i = 0
        for step in [1, 55, 9, 64, 63, 200, 608] {
            s.update(Array(data[i..<(i + step)]))
            i += step
        }
        #expect(s.finish() == SHA256.hash(data))
    }

    /// RFC 4231 test cases 1 and 6 (a key longer than the block).
    @Test func hmacVectors() {
        let k1 = [UInt8](repeating: 0x0b, count: 20)
        #expect(
            SHA256.hmac(key: k1, message: Array("Hi There".utf8)).hexString
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let k6 = [UInt8](repeating: 0xaa, count: 131)
        #expect(
            SHA256.hmac(key: k6, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
                .hexString == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    /// One key's padded blocks hashed once serve every message (RFC 4231 cases 6 and 7, the
    /// second longer than a block, and the first again).
    @Test func oneKeyManyMessages() {
        let mac = HMACSHA256(key: [UInt8](repeating: 0xaa, count: 131))
        let six = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        let seven = Array(
            ("This is a test using a larger than block-size key and a larger than block-size data. The key needs to "
                + "be hashed before being used by the HMAC algorithm.").utf8)
        #expect(mac.mac(six).hexString == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(mac.mac(seven).hexString == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
        #expect(mac.mac(six).hexString == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func pseudonymsAreKeyedAndStable() throws {
        let a = try #require(Pseudonymizer(key: Array("0123456789abcdef".utf8)))
        let b = try #require(Pseudonymizer(key: Array("fedcba9876543210".utf8)))
        let p = a.pseudonym("AA:BB:CC:DD:EE:FF", kind: "addr")
        #expect(p == a.pseudonym("aa:bb:cc:dd:ee:ff", kind: "addr"))
        #expect(p != b.pseudonym("AA:BB:CC:DD:EE:FF", kind: "addr"))
        #expect(p != a.pseudonym("AA:BB:CC:DD:EE:FF", kind: "name"))
        #expect(p.hasPrefix("addr:") && p.count == 5 + 32)
        #expect(!p.contains("AA:BB"))
        #expect(Pseudonymizer(key: Array("short".utf8)) == nil)
        #expect(IdentifierPolicy.dropped.apply("AA:BB:CC:DD:EE:FF", kind: "addr") == nil)
    }
}
