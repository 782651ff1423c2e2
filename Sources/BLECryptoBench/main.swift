import BLEBytes
import BLECrypto
import Foundation

// The legacy-pairing brute force at its worst (issue 12 item 4): a pairing whose passkey is
// 999999, so every TK from 0 on is tried, plus the raw speeds under it (AES-128 blocks with a
// fixed key, key schedule + c1 per TK, AES-CCM decryption of 27- and 251-octet payloads).
// Usage: BLECryptoBench [passkey]   (default 999999)
// Build: swift build -c release --product BLECryptoBench (BLEBytes and BLECrypto only).

let passkey = CommandLine.arguments.dropFirst().first.flatMap { UInt32($0) } ?? LegacyPairingCracker.maximumPasskey
let clock = ContinuousClock()

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

func rate(_ label: String, _ count: Int, _ d: Duration, unit: String) {
    let s = seconds(d)
    print("\(label): \(count) \(unit) in \(String(format: "%.3f", s)) s = \(Int(Double(count) / s)) \(unit)/s")
}

// Raw AES: one key, chained blocks (each depends on the last, so nothing is optimised away).
var block: UInt128 = 0
let aes = AES128(key: 0x2B7E_1516_28AE_D2A6_ABF7_1588_09CF_4F3C)
let blocks = 2_000_000
let aesTime = clock.measure {
    for _ in 0..<blocks { block = aes.encrypt(block) }
}
rate("AES-128 encrypt", blocks, aesTime, unit: "blocks")

// The cracker on a synthetic pairing (crackle's numeric PIN addresses and randoms) whose
// Mconfirm was made with `passkey`.
let preq: [UInt8] = [0x01, 0x04, 0x00, 0x05, 0x10, 0x05, 0x07]
let pres: [UInt8] = [0x02, 0x04, 0x00, 0x05, 0x10, 0x01, 0x03]
let initiator = BDAddr("5c:f3:70:73:3e:f4")!
let responder = BDAddr("69:5b:fb:2c:3f:a7")!
let mrand: UInt128 = 0xC60A_5AD5_3D16_ED60_22C6_6491_348C_95C4
let srand: UInt128 = 0x3B26_0428_76D8_061A_9F51_FBDD_5122_82D6
let mconfirm = SecurityFunction.c1(
    k: UInt128(passkey), r: mrand, preq: preq.withByteView { $0.littleEndianUInt56(at: 0)! },
    pres: pres.withByteView { $0.littleEndianUInt56(at: 0)! },
    iat: 0, ia: initiator.rawValue, rat: 1, ra: responder.rawValue)
let exchange = LegacyPairingExchange(
    pairingRequest: preq, pairingResponse: pres, initiatorAddress: initiator, initiatorAddressIsRandom: false,
    responderAddress: responder, responderAddressIsRandom: true, mconfirm: mconfirm, sconfirm: nil, mrand: mrand,
    srand: srand)
let report = LegacyPairingCracker.crack(exchange)
print("legacy pairing crack: \(report.result)")
rate("  passkeys tried", report.attempts, report.elapsed, unit: "TKs")

// crackle's slow strategy on the same pairing without its confirms: per TK, s1, the session
// key and an AES-CCM check of the first encrypted PDU (LL_START_ENC_RSP, counter 0).
let parameters = LinkLayerEncryptionParameters(
    skdm: 0xACBD_CEDF_E0F1_0213, ivm: 0xBADC_AB24, skds: 0x0213_2435_4657_6879, ivs: 0xDEAF_BABE)
let stk = SecurityFunction.s1(k: UInt128(passkey), r1: srand, r2: mrand)
let startEncRsp = LinkLayerCipher(ltk: stk, parameters: parameters).encrypt(
    [0x06], header: 0x03, counter: 0, direction: .peripheralToCentral)!
var noConfirms = exchange
noConfirms.mconfirm = nil
let slow = LegacyPairingCracker.crackWithoutConfirm(
    noConfirms, parameters: parameters,
    firstEncrypted: EncryptedDataPDU(header: 0x03, payload: startEncRsp, direction: nil))
print("legacy pairing crack without confirms: \(slow.result)")
rate("  passkeys tried", slow.attempts, slow.elapsed, unit: "TKs")

// AES-CCM decryption of data PDUs (each verifies: the MIC check is part of the cost).
let cipher = LinkLayerCipher(sessionKey: 0x99AD_1B52_26A3_7E3E_058E_3B8E_27C2_C666, iv: 0xDEAF_BABE_BADC_AB24)
for length in [27, 251] {
    let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
    let pdus = 200_000
    var air: [[UInt8]] = []
    for counter in 0..<64 {
        air.append(cipher.encrypt(plaintext, header: 0x02, counter: UInt64(counter), direction: .peripheralToCentral)!)
    }
    var out: [UInt8] = []
    out.reserveCapacity(251)
    var verified = 0
    let t = clock.measure {
        for i in 0..<pdus {
            let ok = air[i & 63].withByteView {
                cipher.decrypt($0, header: 0x02, counter: UInt64(i & 63), direction: .peripheralToCentral, into: &out)
            }
            if ok { verified += 1 }
        }
    }
    precondition(verified == pdus)
    rate("AES-CCM decrypt+verify \(length)-octet payloads", pdus, t, unit: "PDUs")
}
print("(check value \(block & 0xFF))")
