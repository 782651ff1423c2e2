import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

@testable import BLEController

/// A host that pairs: an in-process central doing LE legacy Just Works the way a host stack
/// does (its own Mrand, its own c1 and s1 from BLECrypto), then encrypting with the STK,
/// taking the peer's LTK, re-encrypting with it on the same link and on a later connection.
/// The captured peripheral (cached_reconnect: two connections to the same peer, no pairing in
/// the capture) must answer as a legacy Just Works peripheral would.
@Suite struct PairingTests {
    static let reconnect = Fixtures.capture("bumble/cached_reconnect.central.btsnoop")
    static let sc = Fixtures.capture("bumble/indications_and_errors.central.btsnoop")

    /// The host's side of one link.
    final class Host {
        let bench: Bench
        let address = BDAddr("C0:11:22:33:44:55")!  // its random static address
        var handle: UInt16 = 0
        var peer: BDAddr = BDAddr(rawValue: 0)
        var peerType: UInt8 = 0

        init(_ path: String) throws {
            bench = try LinkLayerTests.initialised(path)
            var w = ByteWriter()
            w.appendAddress(address)
            _ = bench.command(HCIOpcode.leSetRandomAddress, w.bytes)
        }

        /// LE Create Connection (own address: random) to the capture's first peer.
        func connect() throws {
            let m = try #require(bench.controller.replay.models.first { $0.connection.hostIsCentral })
            peer = try #require(m.connection.summary.peer)
            peerType = m.connection.summary.peerAddressType ?? 0
            let create = HCILECreateConnection(
                scanInterval: 96, scanWindow: 96, initiatorFilterPolicy: 0, peerAddressType: peerType,
                peerAddress: peer, ownAddressType: 1,
                connection: HCIConnectionParameters(
                    intervalMin: 24, intervalMax: 24, maxLatency: 0, supervisionTimeout: 72, minCELength: 0,
                    maxCELength: 0))
            bench.send(create.h4Encoded())
            let e = try #require(bench.wait(500_000).compactMap(Event.init).first { isConnectionComplete($0) })
            handle = UInt16(e.parameters[2]) | UInt16(e.parameters[3]) << 8
        }

        /// Sends one SMP PDU and returns the SMP PDUs the peer answers with (after `wait` µs).
        func smp(_ pdu: [UInt8], wait: Int64 = 0) -> [[UInt8]] {
            var out: [[UInt8]] = []
            for p in HCISynthesis.acl(
                handle: handle, cid: L2CAPChannel.smp, payload: pdu, received: false, fragment: 251)
            {
                out += bench.send(p)
            }
            out += bench.wait(wait)
            return Self.smpPDUs(out)
        }

        /// SMP payloads in ACL packets from the controller (single-fragment frames).
        static func smpPDUs(_ packets: [[UInt8]]) -> [[UInt8]] {
            packets.compactMap { p in
                guard p.first == H4PacketType.acl, p.count >= 9, UInt16(p[7]) | UInt16(p[8]) << 8 == L2CAPChannel.smp
                else { return nil }
                return Array(p[9...])
            }
        }

        func enableEncryption(rand: UInt64, ediv: UInt16, key: UInt128) -> [[UInt8]] {
            var w = ByteWriter()
            w.appendUInt16LE(handle)
            w.appendUInt64LE(rand)
            w.appendUInt16LE(ediv)
            w.appendBytes(key.littleEndianOctets)
            let status = bench.command(HCIOpcode.leEnableEncryption, w.bytes).compactMap { Event($0)?.commandStatus }
            #expect(status.first?.status == HCIError.success)
            return bench.wait(200_000)
        }

        /// Pairs with LE legacy Just Works; returns the STK, or nil when the peer refused.
        func pairLegacy(authReq: UInt8 = 0x01, corruptConfirm: Bool = false) throws -> (stk: UInt128, pres: [UInt8])? {
            let preq: [UInt8] = [SMPCode.pairingRequest, 0x03, 0x00, authReq, 16, 0x03, 0x03]
            guard let pres = smp(preq).first, pres.first == SMPCode.pairingResponse else { return nil }
            let mrand: UInt128 = 0x1234_5678_9ABC_DEF0_0FED_CBA9_8765_4321
            let p1 = try #require(preq.withByteView { $0.littleEndianUInt56(at: 0) })
            let p2 = try #require(pres.withByteView { $0.littleEndianUInt56(at: 0) })
            func c1(_ r: UInt128) -> UInt128 {
                SecurityFunction.c1(
                    k: 0, r: r, preq: p1, pres: p2, iat: 1, ia: address.rawValue, rat: peerType & 1, ra: peer.rawValue)
            }
            let mconfirm = c1(mrand) ^ (corruptConfirm ? 1 : 0)
            let sconfirm = try #require(smp([SMPCode.pairingConfirm] + mconfirm.littleEndianOctets).first)
            #expect(sconfirm.first == SMPCode.pairingConfirm && sconfirm.count == 17)
            let answer = try #require(smp([SMPCode.pairingRandom] + mrand.littleEndianOctets).first)
            if corruptConfirm {
                #expect(answer == [SMPCode.pairingFailed, SMPPairingFailedReason.confirmValueFailed])
                return nil
            }
            #expect(answer.first == SMPCode.pairingRandom && answer.count == 17)
            let srand = try #require(answer.withByteView { $0.littleEndianUInt128(at: 1) })
            // The peer's confirm is c1 over its random: the host checks it as a host does.
            #expect(sconfirm.withByteView { $0.littleEndianUInt128(at: 1) } == c1(srand))
            return (SecurityFunction.s1(k: 0, r1: srand, r2: mrand), pres)
        }
    }

    static func events(_ out: [[UInt8]], code: UInt8) -> [Event] {
        out.compactMap(Event.init).filter { $0.code == code }
    }

    @Test func legacyJustWorksThenLTKOnTheSameLinkAndTheNextConnection() throws {
        let host = try Host(Self.reconnect)
        try host.connect()
        let (stk, pres) = try #require(try host.pairLegacy(authReq: 0x0D))  // bonding, MITM, SC asked
        // NoInputNoOutput, no OOB, bonding, no MITM, no SC; the host's keys taken, the LTK given.
        #expect(pres == [SMPCode.pairingResponse, 0x03, 0x00, 0x01, 16, 0x03, 0x01])
        let out = host.enableEncryption(rand: 0, ediv: 0, key: stk)
        let change = try #require(Self.events(out, code: HCIEventCode.encryptionChange).first)
        #expect(change.parameters == [HCIError.success] + host.handle.leBytes + [1])
        // Phase 3: Encryption Information (LTK), Central Identification (EDIV, Rand).
        let keys = Host.smpPDUs(out)
        #expect(keys.map { $0.first } == [SMPCode.encryptionInformation, SMPCode.centralIdentification])
        #expect(keys.map(\.count) == [17, 11])
        let ltk = try #require(keys[0].withByteView { $0.littleEndianUInt128(at: 1) })
        let ediv = try #require(keys[1].withByteView { $0.u16le(1) })
        let rand = try #require(keys[1].withByteView { $0.u64le(3) })
        // The host sends its own keys (it offered IdKey and EncKey); nothing answers them.
        #expect(host.smp([SMPCode.identityInformation] + [UInt8](repeating: 7, count: 16)).isEmpty)

        // Re-encryption with the LTK on the encrypted link: Encryption Key Refresh Complete.
        let refresh = host.enableEncryption(rand: rand, ediv: ediv, key: ltk)
        #expect(
            Self.events(refresh, code: HCIEventCode.encryptionKeyRefreshComplete).first?.parameters
                == [HCIError.success] + host.handle.leBytes)
        #expect(Self.events(refresh, code: HCIEventCode.encryptionChange).isEmpty)

        // The next captured connection to the same peer: the bond holds.
        _ = host.bench.command(HCIOpcode.disconnect, host.handle.leBytes + [HCIError.remoteUserTerminatedConnection])
        host.bench.wait(100_000)
        try host.connect()
        let again = host.enableEncryption(rand: rand, ediv: ediv, key: ltk)
        #expect(
            Self.events(again, code: HCIEventCode.encryptionChange).first?.parameters
                == [HCIError.success] + host.handle.leBytes + [1])
        // Another EDIV: the peer has no such key (PIN or Key Missing; the link stays up).
        let missing = host.enableEncryption(rand: rand, ediv: ediv &+ 1, key: ltk)
        #expect(
            Self.events(missing, code: HCIEventCode.encryptionChange).first?.parameters
                == [HCIError.pinOrKeyMissing] + host.handle.leBytes + [1])
        // The right EDIV and Rand with another key: the MIC fails and the link ends.
        let wrong = host.enableEncryption(rand: rand, ediv: ediv, key: ltk ^ 1)
        let end = try #require(Self.events(wrong, code: HCIEventCode.disconnectionComplete).first)
        #expect(
            end.parameters == [HCIError.success] + host.handle.leBytes + [HCIError.connectionTerminatedMICFailure])
        #expect(host.bench.controller.connectedHandles.isEmpty)

        let report = host.bench.controller.report()
        let notes = report.unmodelled.flatMap { $0 }
        #expect(notes.contains { $0.contains("the capture never paired (answered with LE legacy Just Works)") })
        #expect(notes.contains { $0.contains("PIN or Key Missing") })
        #expect(notes.contains { $0.contains("MIC failure") })
        #expect(host.bench.controller.rejectedInput == 0)
    }

    @Test func aWrongConfirmFailsThePairingAndTheSTKIsNeverHeld() throws {
        let host = try Host(Self.reconnect)
        try host.connect()
        #expect(try host.pairLegacy(corruptConfirm: true) == nil)
        // No pairing, no key: encryption with EDIV and Rand 0 finds none.
        let out = host.enableEncryption(rand: 0, ediv: 0, key: 0x42)
        #expect(
            Self.events(out, code: HCIEventCode.encryptionChange).first?.parameters
                == [HCIError.pinOrKeyMissing] + host.handle.leBytes + [0])
    }

    /// indications_and_errors paired with LE Secure Connections: the peer, without P-256,
    /// answers as a peripheral without SC does, and the report says so; SC's Pairing Public Key
    /// is not supported.
    @Test func anSCCaptureIsAnsweredWithLegacyPairing() throws {
        let host = try Host(Self.sc)
        try host.connect()
        let (stk, pres) = try #require(try host.pairLegacy(authReq: 0x09))
        #expect(pres[3] & 0x08 == 0)  // no SC
        let out = host.enableEncryption(rand: 0, ediv: 0, key: stk)
        #expect(Self.events(out, code: HCIEventCode.encryptionChange).first?.parameters.first == HCIError.success)
        #expect(
            host.bench.controller.report().unmodelled.flatMap { $0 }.contains {
                $0.contains("paired with LE Secure Connections (answered as a peripheral without SC")
            })
        // A host that insists on SC sends its public key anyway: Command Not Supported.
        let again = try Host(Self.sc)
        try again.connect()
        _ = again.smp([SMPCode.pairingRequest, 0x03, 0x00, 0x09, 16, 0x03, 0x03])
        #expect(
            again.smp([SMPCode.pairingPublicKey] + [UInt8](repeating: 1, count: 64))
                == [[SMPCode.pairingFailed, SMPPairingFailedReason.commandNotSupported]])
    }
}

extension UInt16 {
    fileprivate var leBytes: [UInt8] { [UInt8(truncatingIfNeeded: self), UInt8(truncatingIfNeeded: self >> 8)] }
}
