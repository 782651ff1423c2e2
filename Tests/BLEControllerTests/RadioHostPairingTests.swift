import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import TestSupport
import Testing

/// Pairing over a real radio (`blecap replay --controller`, role peripheral): a scripted
/// controller whose central pairs the way a host stack does (its own nonces and keys, c1 and
/// s1 or P-256 and f4/f5/f6 from BLECrypto, over the real link's addresses), then starts
/// encryption, so the controller asks the host for the key (LE Long Term Key Request). The
/// captured peripheral answers as the capture shows it.
@Suite struct RadioHostPairingTests {
    /// Legacy Just Works, LTK distributed (over the air, Ubertooth; crackle's test capture).
    static let legacy = Fixtures.capture("public/pcap-ppi192_crackle-pairing-ltk.pcap")
    /// LE Secure Connections Just Works.
    static let secureConnections = Fixtures.capture("bumble/indications_and_errors.central.btsnoop")
    /// The peripheral refused with Pairing Not Supported.
    static let refused = Fixtures.capture("bumble-failures/pairing_refused.central.btsnoop")
    /// No pairing at all.
    static let none = RadioHostTests.central

    /// The controller's public address (ScriptedController's Read BD_ADDR).
    static let controllerAddress = BDAddr(rawValue: 0x1122_3344_5566)

    static func encryptionChange(_ handle: UInt16) -> [UInt8] {
        [
            H4PacketType.event, HCIEventCode.encryptionChange, 4, HCIError.success, UInt8(handle & 0xFF),
            UInt8(handle >> 8), 1,
        ]
    }

    static func longTermKeyRequest(_ handle: UInt16) -> [UInt8] {
        [
            H4PacketType.event, HCIEventCode.leMeta, 13, HCILESubeventCode.longTermKeyRequest, UInt8(handle & 0xFF),
            UInt8(handle >> 8),
        ] + [UInt8](repeating: 0, count: 10)
    }

    /// The scripted controller answers the host's LTK Request Reply with Encryption Change,
    /// and records the key.
    final class Keys {
        var given: [UInt128?] = []
    }

    static func answeringLTK(_ central: ScriptedController, _ keys: Keys, then: @escaping () -> Void) {
        central.answer = { [unowned central] op, parameters in
            switch op {
            case HCIOpcode.leLongTermKeyRequestReply:
                keys.given.append(parameters.withByteView { $0.littleEndianUInt128(at: 2) })
                central.deliver([
                    HCISynthesis.commandComplete(op, [0] + parameters.prefix(2)), encryptionChange(central.handle),
                ])
                then()
                return []
            case HCIOpcode.leLongTermKeyRequestNegativeReply:
                keys.given.append(nil)
                central.deliver([HCISynthesis.commandComplete(op, [0] + parameters.prefix(2))])
                central.endLink()
                return []
            default: return nil
            }
        }
    }

    @Test func legacyJustWorksAsCaptured() throws {
        let central = ScriptedController(requests: [])
        central.staysConnected = true
        let keys = Keys()
        let preq: [UInt8] = [SMPCode.pairingRequest, 0x03, 0x00, 0x01, 16, 0x00, 0x01]
        let mrand: UInt128 = 0x0F0E_0D0C_0B0A_0908_0706_0504_0302_0100
        var pres: [UInt8] = []
        var sconfirm: UInt128 = 0
        var stk: UInt128?
        var distributed: [[UInt8]] = []
        func c1(_ r: UInt128) -> UInt128 {
            SecurityFunction.c1(
                k: 0, r: r, preq: preq.withByteView { $0.littleEndianUInt56(at: 0)! },
                pres: pres.withByteView { $0.littleEndianUInt56(at: 0)! }, iat: 1,
                ia: ScriptedController.centralAddress.rawValue, rat: 0, ra: Self.controllerAddress.rawValue)
        }
        central.smpOnConnect = [preq]
        central.smp = { [unowned central] pdu in
            switch pdu.first {
            case SMPCode.pairingResponse?:
                pres = pdu
                return [SMPPairingConfirm.pdu(confirm: c1(mrand))]
            case SMPCode.pairingConfirm?:
                sconfirm = pdu.withByteView { $0.littleEndianUInt128(at: 1)! }
                return [SMPPairingRandom.pdu(random: mrand)]
            case SMPCode.pairingRandom?:
                let srand = pdu.withByteView { $0.littleEndianUInt128(at: 1)! }
                // The peripheral's Sconfirm is c1 over its Srand and this link's addresses.
                guard c1(srand) == sconfirm else { return [] }
                stk = SecurityFunction.s1(k: 0, r1: srand, r2: mrand)
                central.deliver([Self.longTermKeyRequest(central.handle)])
                return []
            case SMPCode.encryptionInformation?:
                distributed.append(pdu)
                return []
            case SMPCode.centralIdentification?:
                distributed.append(pdu)
                central.endLink()
                return []
            default: return []
            }
        }
        Self.answeringLTK(central, keys) {}
        let (end, host, report) = try central.run(capture: Self.legacy, timeoutMicros: 60_000_000)
        #expect(try end.get() == .sessionOver, "\(central.smpFromHost)")
        // NoInputNoOutput, no OOB, bonding, no SC; the LTK (EncKey) offered.
        #expect(pres == [SMPCode.pairingResponse, 0x03, 0x00, 0x01, 16, 0x00, 0x01])
        #expect(stk != nil)
        #expect(keys.given == [stk])
        #expect(distributed.map(\.first) == [SMPCode.encryptionInformation, SMPCode.centralIdentification])
        // The key the peripheral distributed is kept for this run.
        let ltk = try #require(distributed.first?.withByteView { $0.littleEndianUInt128(at: 1) })
        #expect(host.virtual.keysThisRun.map(\.ltk) == [ltk])
        #expect(!report.unmodelled.flatMap { $0 }.contains { $0.contains("SMP") })
    }

    @Test func secureConnectionsJustWorksAsCaptured() throws {
        let central = ScriptedController(requests: [])
        central.staysConnected = true
        let keys = Keys()
        // The central's key pair: the specification's sample B (Vol 3 Part H Appendix D).
        let privateKey = try #require(
            P256.Number(bigEndian: Hex.bytes("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")!))
        let own = try #require(P256.multiply(privateKey, x: P256.gx, y: P256.gy))
        let preq: [UInt8] = [SMPCode.pairingRequest, 0x03, 0x00, 0x09, 16, 0x00, 0x01]
        let na: UInt128 = 0xA5A5_0000_1111_2222_3333_4444_5555_6666
        let a = UInt64(1) << 48 | ScriptedController.centralAddress.rawValue
        var pres: [UInt8] = []
        var peerX: [UInt8] = []
        var dhKey: [UInt8] = []
        var cb: UInt128 = 0
        var checks: (macKey: UInt128, ltk: UInt128, b: UInt64)?
        var eb: UInt128?
        central.smpOnConnect = [preq]
        central.smp = { [unowned central] pdu in
            switch pdu.first {
            case SMPCode.pairingResponse?:
                pres = pdu
                return [SMPPairingPublicKey.pdu(xBigEndian: own.x.bigEndianOctets, yBigEndian: own.y.bigEndianOctets)]
            case SMPCode.pairingPublicKey?:
                peerX = Array(pdu[1...32].reversed())
                let peerY = Array(pdu[33...64].reversed())
                if let x = P256.Number(bigEndian: peerX), let y = P256.Number(bigEndian: peerY),
                    let k = P256.dhKey(privateKey: privateKey, peerX: x, peerY: y)
                {
                    dhKey = k.bigEndianOctets
                }
                return []
            case SMPCode.pairingConfirm?:
                cb = pdu.withByteView { $0.littleEndianUInt128(at: 1)! }
                return [SMPPairingRandom.pdu(random: na)]
            case SMPCode.pairingRandom?:
                let nb = pdu.withByteView { $0.littleEndianUInt128(at: 1)! }
                // Cb = f4(PKbx, PKax, Nb, 0): the peripheral committed to Nb with its key.
                guard SecurityFunction.f4(u: peerX, v: own.x.bigEndianOctets, x: nb, z: 0) == cb else { return [] }
                let b = UInt64(1) << 48 | RadioHostPairingTests.scPeripheral.rawValue
                let k = SecurityFunction.f5(w: dhKey, n1: na, n2: nb, a1: a, a2: b)
                checks = (k.macKey, k.ltk, b)
                let ea = SecurityFunction.f6(w: k.macKey, n1: na, n2: nb, r: 0, ioCap: 0x09_0003, a1: a, a2: b)
                central.smp = { [unowned central] pdu in
                    guard pdu.first == SMPCode.pairingDHKeyCheck, let c = checks else { return [] }
                    let got = pdu.withByteView { $0.littleEndianUInt128(at: 1)! }
                    // Eb = f6(MacKey, Nb, Na, 0, IOcapB, B, A).
                    let ioCapB = UInt32(pres[3]) << 16 | UInt32(pres[2]) << 8 | UInt32(pres[1])
                    if got == SecurityFunction.f6(w: c.macKey, n1: nb, n2: na, r: 0, ioCap: ioCapB, a1: c.b, a2: a) {
                        eb = got
                        central.deliver([Self.longTermKeyRequest(central.handle)])
                    }
                    return []
                }
                return [SMPPairingDHKeyCheck.pdu(check: ea)]
            default: return []
            }
        }
        Self.answeringLTK(central, keys) { [unowned central] in central.endLink() }
        let (end, host, _) = try central.run(
            capture: Self.secureConnections, timeoutMicros: 60_000_000)
        #expect(try end.get() == .sessionOver)
        // NoInputNoOutput, bonding and SC.
        #expect(pres == [SMPCode.pairingResponse, 0x03, 0x00, 0x09, 16, 0x00, 0x01])
        #expect(eb != nil)
        let ltk = try #require(checks?.ltk)
        #expect(keys.given == [ltk])
        // Under SC the LTK is derived, not distributed; kept for the run (EDIV and Rand 0).
        #expect(!central.smpFromHost.contains { $0.first == SMPCode.encryptionInformation })
        #expect(host.virtual.keysThisRun.map(\.ltk) == [ltk])
        #expect(host.virtual.keysThisRun.map(\.ediv) == [0])
    }

    /// indications_and_errors' peripheral advertised from this random address.
    static let scPeripheral = BDAddr("DD:5E:C0:00:00:06")!

    @Test func refusedAsCaptured() throws {
        let central = ScriptedController(requests: [])
        central.smpOnConnect = [[SMPCode.pairingRequest, 0x03, 0x00, 0x01, 16, 0x00, 0x01]]
        central.smp = { [unowned central] _ in
            central.endLink()
            return []
        }
        let (end, _, report) = try central.run(capture: Self.refused, timeoutMicros: 60_000_000)
        #expect(try end.get() == .sessionOver)
        #expect(central.smpFromHost == [[SMPCode.pairingFailed, SMPPairingFailedReason.pairingNotSupported]])
        let notes = report.unmodelled.flatMap { $0 }
        #expect(notes.contains { $0.contains("refused as captured (Pairing Failed 0x5)") })
        #expect(!notes.contains { $0.contains("the capture has no pairing") })
    }

    @Test func noPairingInTheCaptureIsPairingNotSupported() throws {
        let central = ScriptedController(requests: [])
        central.smpOnConnect = [[SMPCode.pairingRequest, 0x03, 0x00, 0x01, 16, 0x00, 0x01]]
        central.smp = { [unowned central] _ in
            central.endLink()
            return []
        }
        let (end, _, report) = try central.run(capture: Self.none, timeoutMicros: 60_000_000)
        #expect(try end.get() == .sessionOver)
        #expect(central.smpFromHost == [[SMPCode.pairingFailed, SMPPairingFailedReason.pairingNotSupported]])
        #expect(
            report.unmodelled.flatMap { $0 }.contains {
                $0.contains("the capture has no pairing (refused: Pairing Not Supported)")
            })
    }

    /// The captured peripheral asked its central to secure the link (Security Request: Bonding
    /// and SC) and the central ignored it: played to a real central, the request goes out with
    /// the captured AuthReq, once, and nothing more is asked when the central ignores it too.
    @Test func securityRequestAsCaptured() throws {
        let central = ScriptedController(requests: [])
        central.staysConnected = true
        central.smp = { [unowned central] _ in
            central.endLink()
            return []
        }
        let capture = Fixtures.capture("bumble-failures/security_request_ignored.central.btsnoop")
        let (end, _, _) = try central.run(capture: capture, timeoutMicros: 60_000_000)
        #expect(try end.get() == .sessionOver)
        #expect(
            central.smpFromHost == [
                [SMPCode.securityRequest, SMPAuthReq.bondingFlag | SMPAuthReq.secureConnectionsFlag]
            ])
    }
}
