import BLEBytes
import BLEPackets
import BLEReplay
import TestSupport
import Testing

@testable import BLEController

/// The captured central's pairing over a radio (`SMPInitiator`), against the captured
/// peripheral's (`SMPResponder`, as captured), both from the same capture's security:
/// indications_and_errors paired with LE Secure Connections Just Works, bonding, LTK and IRK
/// both ways. Each side has its own nonces and P-256 key pair; the PDUs cross as a link would
/// carry them, and each side checks the other's values.
@Suite struct SMPInitiatorTests {
    static let capture = Fixtures.capture("bumble/indications_and_errors.peripheral.btsnoop")
    static let central: (type: UInt8, address: BDAddr) = (1, BDAddr("C0:FF:EE:00:00:01")!)
    static let peripheral: (type: UInt8, address: BDAddr) = (1, BDAddr("DD:5E:C0:00:00:06")!)

    /// One side's PDUs, log and notes.
    final class Side {
        var out: [[UInt8]] = []
        var notes: [String] = []
        var random: SplitMix64
        init(seed: UInt64) { random = SplitMix64(seed: seed) }
        var io: SMPResponderIO {
            SMPResponderIO(
                send: { [unowned self] in out.append($0) }, log: { _ in }, note: { [unowned self] in notes.append($0) },
                random: { [unowned self] in random.next() })
        }
        func take() -> [[UInt8]] {
            defer { out = [] }
            return out
        }
    }

    struct Run {
        var initiator: SMPInitiator
        var responder: SMPResponder
        var fromInitiator: [[UInt8]] = []
        var fromResponder: [[UInt8]] = []
        var encryptWith: UInt128?
        var notes: [String] = []
    }

    /// Crosses the PDUs until neither side sends; `tamper` may change one of the responder's.
    static func pair(tamper: ([UInt8]) -> [UInt8] = { $0 }) throws -> Run {
        let security = try #require(try CaptureReplay(path: capture).models.first?.connection.security)
        let a = Side(seed: 1)
        let b = Side(seed: 2)
        let keyA = SecureConnectionsKeyPair.make { a.random.next() }
        let keyB = SecureConnectionsKeyPair.make { b.random.next() }
        var run = Run(
            initiator: SMPInitiator(initiator: central, responder: peripheral, security: security),
            responder: SMPResponder(initiator: central, responder: peripheral, security: security, policy: .asCaptured))
        run.initiator.start(a.io)
        var toResponder = a.take()
        var rounds = 0
        while !toResponder.isEmpty, rounds < 20 {
            rounds += 1
            run.fromInitiator += toResponder
            for p in toResponder { p.withByteView { run.responder.receive($0, b.io) { keyB } } }
            let toInitiator = b.take().map(tamper)
            run.fromResponder += toInitiator
            for p in toInitiator {
                let step = p.withByteView { run.initiator.receive($0, a.io) { keyA } }
                if case .encrypt(let key) = step { run.encryptWith = key }
            }
            toResponder = a.take()
        }
        run.notes = a.notes
        return run
    }

    /// The captured Pairing Request goes out as captured; both sides reach the same LTK by
    /// their own values, which the initiator gives the controller to encrypt with; after
    /// encryption the initiator sends its IRK and identity address (IdKey, as agreed).
    @Test func secureConnectionsJustWorksAsCaptured() throws {
        var run = try Self.pair()
        #expect(run.fromInitiator.first == [SMPCode.pairingRequest, 0x03, 0x00, 0x09, 16, 0x03, 0x03])
        #expect(
            run.fromInitiator.map(\.first) == [
                SMPCode.pairingRequest, SMPCode.pairingPublicKey, SMPCode.pairingRandom, SMPCode.pairingDHKeyCheck,
            ])
        // The peripheral role's responder distributes no IRK (docs/real-radio.md): the one
        // difference from the captured peripheral, and the initiator says so.
        #expect(run.notes.count == 1 && run.notes[0].contains("other keys"), "\(run.notes)")
        #expect(
            run.notes.first?.contains(
                "responder EncKey) than the captured one (initiator EncKey+IdKey, responder EncKey+IdKey)") == true)
        let key = try #require(run.encryptWith)
        #expect(run.responder.pairing?.key == key)
        let a = Side(seed: 3)
        // Under SC the responder's EncKey is derived, not sent, and it agreed to nothing else:
        // once encrypted, the initiator's IdKey goes at once.
        run.initiator.encryptionChanged(enabled: true, a.io)
        #expect(a.out.map(\.first) == [SMPCode.identityInformation, SMPCode.identityAddressInformation])
        var w = ByteWriter()
        w.appendAddress(Self.central.address)
        #expect(a.out.last == [SMPCode.identityAddressInformation, 1] + w.bytes)
        #expect(run.initiator.finished && run.initiator.bond == PeerKey(ltk: key, ediv: 0, rand: 0))
    }

    /// A peripheral whose Cb does not match its Nb: Pairing Failed, Confirm Value Failed
    /// (Vol 3 Part H 2.3.5.6.2), no key for the controller, and the report says why.
    @Test func aConfirmThatDoesNotMatchFailsThePairing() throws {
        let run = try Self.pair { p in
            guard p.first == SMPCode.pairingConfirm else { return p }
            var t = p
            t[1] ^= 0x01
            return t
        }
        #expect(run.encryptWith == nil)
        #expect(
            run.fromInitiator.last == SMPPairingFailed(reason: SMPPairingFailedReason.confirmValueFailed).encoded())
        #expect(run.notes.contains { $0.contains("Cb does not match") }, "\(run.notes)")
    }
}
