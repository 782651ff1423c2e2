import BLEBytes
import BLEPackets
import Testing

func describeSMP(_ hex: String) -> [String] {
    let sink = RecordingSink()
    Hex.bytes(hex)!.withByteView { SMPPDU.describe($0, into: sink) }
    return sink.lines
}

func decodeSMP<R>(_ hex: String, _ body: (SMPPDU) -> R) -> R { Hex.bytes(hex)!.withByteView { body(SMPPDU($0)) } }

@Suite struct SMPTests {
    // indications_and_errors.central frame 102 (CID 0x0006 payload): IO 0x03 NoInputNoOutput,
    // OOB 0, AuthReq 0x09 (Bonding + SC, MITM=0), key size 16, key distribution 0x03/0x03.
    static let bumblePairingRequest = "01 03 00 09 10 03 03"
    // Frame 104: the Pairing Response with identical fields.
    static let bumblePairingResponse = "02 03 00 09 10 03 03"

    @Test func bumblePairingRequestAndResponse() {
        let expected = [
            "io_capability=0x03 NoInputNoOutput", "oob_data_flag=0x00 OOB Authentication data not present",
            "auth_req=0x09 [Bonding,SC]", "max_encryption_key_size=16",
            "initiator_key_distribution=0x03 [EncKey,IdKey]", "responder_key_distribution=0x03 [EncKey,IdKey]",
        ]
        #expect(describeSMP(Self.bumblePairingRequest) == ["code=0x01 Pairing Request"] + expected)
        #expect(describeSMP(Self.bumblePairingResponse) == ["code=0x02 Pairing Response"] + expected)
        decodeSMP(Self.bumblePairingRequest) {
            guard case .pairingRequest(let p) = $0 else {
                Issue.record("\($0)")
                return
            }
            let a = p.features.authReq
            #expect(a.bonding && a.secureConnections && !a.mitm && !a.keypress && !a.ct2)
            #expect(p.features.ioCapability == 3 && p.features.maximumEncryptionKeySize == 16)
            #expect(
                p.features.initiatorKeyDistribution.encryptionKey && p.features.initiatorKeyDistribution.identityKey)
            #expect(!p.features.responderKeyDistribution.signingKey && !p.features.responderKeyDistribution.linkKey)
        }
    }

    // btsnoop-android_pogo-plus-pairing frame 118: KeyboardDisplay, AuthReq 0x0D (Bonding, MITM,
    // SC), all four key kinds (0x0F) requested both ways.
    @Test func pogoPairingRequestAllBits() {
        #expect(
            describeSMP("01 04 00 0d 10 0f 0f") == [
                "code=0x01 Pairing Request", "io_capability=0x04 KeyboardDisplay",
                "oob_data_flag=0x00 OOB Authentication data not present", "auth_req=0x0D [Bonding,MITM,SC]",
                "max_encryption_key_size=16", "initiator_key_distribution=0x0F [EncKey,IdKey,SignKey,LinkKey]",
                "responder_key_distribution=0x0F [EncKey,IdKey,SignKey,LinkKey]",
            ])
        // Keypress + CT2 bits, OOB present, reserved IO capability, bad key size, reserved bonding.
        let odd = describeSMP("02 07 01 32 06 00 00")
        #expect(odd.contains("io_capability=0x07"))
        #expect(odd.contains("oob_data_flag=0x01 OOB Authentication data from remote device present"))
        #expect(odd.contains("auth_req=0x32 [Keypress,CT2]"))
        #expect(odd.contains("!maximum encryption key size outside 7…16"))
        #expect(describeSMP("01 03 00 0b 10 03 03").contains("!reserved bonding flags"))
        #expect(
            describeSMP("01 03 00 09 10 03") == [
                "code=0x01 Pairing Request", "!SMP PDU too short for its code", "parameters=0300091003",
            ])
    }

    // indications_and_errors.central frames 114, 115, 118 (first bytes shown; 16-byte values).
    @Test func confirmRandomAndDHKeyCheck() {
        let confirm = "03 54be7a93dc8bc98d35012393542b2086"
        #expect(
            describeSMP(confirm) == ["code=0x03 Pairing Confirm", "confirm_value=54be7a93dc8bc98d35012393542b2086"])
        #expect(
            describeSMP("04 64fbb2c4958b92a722a50ad64638ccf3") == [
                "code=0x04 Pairing Random", "random_value=64fbb2c4958b92a722a50ad64638ccf3",
            ])
        #expect(
            describeSMP("0d 221b2f5d9fba55264d7131c39035723e") == [
                "code=0x0D Pairing DHKey Check", "dhkey_check=221b2f5d9fba55264d7131c39035723e",
            ])
        #expect(describeSMP("03 54be7a93dc8bc98d35012393542b20").contains("!SMP PDU too short for its code"))
        #expect(describeSMP(confirm + "ff").suffix(2) == ["!bytes after the PDU's fields", "trailing=ff"])
    }

    @Test func publicKey() {
        let x = String(repeating: "11", count: 32)
        let y = String(repeating: "22", count: 32)
        #expect(
            describeSMP("0c" + x + y) == ["code=0x0C Pairing Public Key", "public_key_x=" + x, "public_key_y=" + y])
        #expect(describeSMP("0c" + x + "22").contains("!SMP PDU too short for its code"))
    }

    @Test func pairingFailedReasons() {
        #expect(describeSMP("05 08") == ["code=0x05 Pairing Failed", "reason=0x08 Unspecified Reason"])
        #expect(describeSMP("05 0b") == ["code=0x05 Pairing Failed", "reason=0x0B DHKey Check Failed"])
        #expect(describeSMP("05 0f") == ["code=0x05 Pairing Failed", "reason=0x0F Key Rejected"])
        #expect(describeSMP("05 40") == ["code=0x05 Pairing Failed", "reason=0x40"])
        #expect(describeSMP("05").contains("!SMP PDU too short for its code"))
    }

    // Pogo frames 140, 141, 143 and 116 (legacy key distribution and Security Request).
    @Test func keyDistributionAndSecurityRequest() {
        #expect(
            describeSMP("06 e467f77ec2ed057480d3f3ca1e19c180") == [
                // The LTK as the number it is, most significant digit first (crackle, lint,
                // ll.decryption); tshark's smp.long_term_key lists the octets as sent.
                "code=0x06 Encryption Information", "long_term_key=80c1191ecaf3d3807405edc27ef767e4",
            ])
        // EDIV 0x949C, Rand c8 7b 7b b2 e6 41 c9 e8 (little-endian).
        #expect(
            describeSMP("07 9c94 c87b7bb2e641c9e8") == [
                "code=0x07 Central Identification", "ediv=0x949C", "rand=0xE8C941E6B27B7BC8",
            ])
        #expect(describeSMP("07 9c94 c87b7bb2e641c9").contains("!SMP PDU too short for its code"))
        #expect(
            describeSMP("08 " + String(repeating: "a5", count: 16)) == [
                "code=0x08 Identity Information", "identity_resolving_key=" + String(repeating: "a5", count: 16),
            ])
        #expect(
            describeSMP("09 00 8b9477fd13d0") == [
                "code=0x09 Identity Address Information", "address_type=0x00 Public", "address=D0:13:FD:77:94:8B",
            ])
        // indications_and_errors.central frame 125: Bumble Secure's public 00:1B:DC:00:5E:06.
        decodeSMP("09 00 065e00dc1b00") {
            guard case .identityAddressInformation(let i) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(i.address == BDAddr("00:1B:DC:00:5E:06") && i.addressType == 0)
        }
        #expect(describeSMP("09 01 065e00dc1b").contains("!SMP PDU too short for its code"))
        #expect(
            describeSMP("0a " + String(repeating: "5a", count: 16)) == [
                "code=0x0A Signing Information", "signature_key=" + String(repeating: "5a", count: 16),
            ])
        #expect(describeSMP("0b 00") == ["code=0x0B Security Request", "auth_req=0x00 []"])
        #expect(describeSMP("0b 05") == ["code=0x0B Security Request", "auth_req=0x05 [Bonding,MITM]"])
        #expect(
            describeSMP("0e 01") == [
                "code=0x0E Pairing Keypress Notification", "notification_type=0x01 Passkey digit entered",
            ])
        #expect(describeSMP("0e 09") == ["code=0x0E Pairing Keypress Notification", "notification_type=0x09"])
    }

    @Test func codeTableAndUnknowns() {
        #expect(SMPCode.entries.count == 14)
        for (i, e) in SMPCode.entries.enumerated() { #expect(Int(e.code) == i + 1) }
        #expect("\(SMPCode.name(0x07))" == "Central Identification")
        #expect("\(SMPCode.name(0x0F))" == "Unknown")
        #expect("\(SMPCode.name(0x00))" == "Unknown")
        #expect(describeSMP("0f 0102") == ["code=0x0F Unknown", "!unknown SMP code", "parameters=0102"])
        #expect(describeSMP("") == ["!empty SMP PDU"])
        decodeSMP("0f 01") {
            guard case .unknown(let c, let raw) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(c == 0x0F && raw.count == 2)
        }
        decodeSMP("04 0102") {
            guard case .malformed(let c, let raw, _) = $0 else {
                Issue.record("\($0)")
                return
            }
            #expect(c == 0x04 && raw.count == 3)
        }
    }
}
