import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

@testable import BLEController

/// `--role central`: the captured central of indications_and_errors.peripheral paired at
/// +0.64 s; played against an in-process peripheral host that answers as an LE legacy Just
/// Works responder (its own Srand, c1 and s1), it pairs at the same offset, starts encryption
/// through LE Long Term Key Request, and takes the LTK the host distributes.
@Suite struct CentralPairingTests {
    static let path = Fixtures.capture("bumble/indications_and_errors.peripheral.btsnoop")
    static let hostAddress = BDAddr("C1:22:33:44:55:66")!

    /// Advertises from its random address; returns the bench, the handle and the central's
    /// address and type as its connection complete gave them.
    static func connected() throws -> (Bench, UInt16, BDAddr, UInt8) {
        let bench = try LinkLayerTests.initialised(path) { $0.role = .central }
        var w = ByteWriter()
        w.appendAddress(hostAddress)
        _ = bench.command(HCIOpcode.leSetRandomAddress, w.bytes)
        // Intervals 0x0800 × 2, ADV_IND, own address random, peer, channel map, filter.
        _ = bench.command(HCIOpcode.leSetAdvertisingParameters, [0, 8, 0, 8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, 0])
        _ = bench.command(HCIOpcode.leSetAdvertisingEnable, [1])
        let e = try #require(bench.wait(200_000).compactMap(Event.init).first { isConnectionComplete($0) })
        let handle = UInt16(e.parameters[2]) | UInt16(e.parameters[3]) << 8
        let central = try #require(Array(e.parameters[6..<12]).withByteView { BDAddr(littleEndian: $0) })
        return (bench, handle, central, e.parameters[5])
    }

    static func send(_ bench: Bench, _ handle: UInt16, _ pdu: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for p in HCISynthesis.acl(handle: handle, cid: L2CAPChannel.smp, payload: pdu, received: false, fragment: 251) {
            out += bench.send(p)
        }
        return out
    }

    /// Runs the pairing up to the LTK request; returns the STK the host computed and the
    /// events of the request.
    static func pairUpToLTKRequest(corruptSconfirm: Bool = false) throws -> (Bench, UInt16, UInt128, [UInt8]?) {
        let (bench, handle, central, centralType) = try connected()
        // The captured central's Pairing Request comes at its captured offset (+0.54 s after
        // the connection; 0.2 s of it went in `connected()`), not before.
        #expect(PairingTests.Host.smpPDUs(bench.wait(250_000)).isEmpty)
        // (The captured central ends the link at +0.9 s: the pairing is done before.)
        let preq = try #require(PairingTests.Host.smpPDUs(bench.wait(150_000)).first)
        #expect(preq == [SMPCode.pairingRequest, 0x03, 0x00, 0x01, 16, 0x00, 0x03])  // legacy, no SC
        let pres: [UInt8] = [SMPCode.pairingResponse, 0x03, 0x00, 0x01, 16, 0x00, 0x01]
        let p1 = try #require(preq.withByteView { $0.littleEndianUInt56(at: 0) })
        let p2 = try #require(pres.withByteView { $0.littleEndianUInt56(at: 0) })
        func c1(_ r: UInt128) -> UInt128 {
            SecurityFunction.c1(
                k: 0, r: r, preq: p1, pres: p2, iat: centralType & 1, ia: central.rawValue, rat: 1,
                ra: hostAddress.rawValue)
        }
        let answer = send(bench, handle, pres)
        let mconfirm = try #require(PairingTests.Host.smpPDUs(answer).first, "\(bench.logs.suffix(5)) \(answer)")
        #expect(mconfirm.first == SMPCode.pairingConfirm)
        let srand: UInt128 = 0x0F0E_0D0C_0B0A_0908_0706_0504_0302_0100
        let sconfirm = c1(srand) ^ (corruptSconfirm ? 1 : 0)
        let mrandPDU = try #require(
            PairingTests.Host.smpPDUs(send(bench, handle, [SMPCode.pairingConfirm] + sconfirm.littleEndianOctets))
                .first)
        let mrand = try #require(mrandPDU.withByteView { $0.littleEndianUInt128(at: 1) })
        #expect(mconfirm.withByteView { $0.littleEndianUInt128(at: 1) } == c1(mrand))
        let out = send(bench, handle, [SMPCode.pairingRandom] + srand.littleEndianOctets)
        if corruptSconfirm {
            #expect(
                PairingTests.Host.smpPDUs(out) == [[SMPCode.pairingFailed, SMPPairingFailedReason.confirmValueFailed]])
            return (bench, handle, 0, nil)
        }
        let request = out.compactMap(Event.init).first { $0.subevent == HCILESubeventCode.longTermKeyRequest }
        return (bench, handle, SecurityFunction.s1(k: 0, r1: srand, r2: mrand), request?.parameters)
    }

    static func reply(_ bench: Bench, _ handle: UInt16, _ key: UInt128) -> [[UInt8]] {
        var w = ByteWriter()
        w.appendUInt16LE(handle)
        w.appendBytes(key.littleEndianOctets)
        _ = bench.command(HCIOpcode.leLongTermKeyRequestReply, w.bytes)
        return bench.wait(100_000)
    }

    @Test func theCapturedCentralPairsAndTheHostGetsALongTermKeyRequest() throws {
        let (bench, handle, stk, request) = try Self.pairUpToLTKRequest()
        // LE Long Term Key Request: the handle, Rand 0 and EDIV 0 (the STK).
        var expected = ByteWriter()
        expected.appendUInt8(HCILESubeventCode.longTermKeyRequest)
        expected.appendUInt16LE(handle)
        expected.appendZeros(10)
        #expect(request == expected.bytes)
        let change = Self.reply(bench, handle, stk).compactMap(Event.init).first {
            $0.code == HCIEventCode.encryptionChange
        }
        var ok = ByteWriter()
        ok.appendUInt8(HCIError.success)
        ok.appendUInt16LE(handle)
        ok.appendUInt8(1)
        #expect(change?.parameters == ok.bytes)
        // The host, the responder, distributes its LTK with EDIV and Rand: the central keeps it.
        let ltk: UInt128 = 0xA5A5_0000_1111_2222_3333_4444_5555_6666
        _ = Self.send(bench, handle, [SMPCode.encryptionInformation] + ltk.littleEndianOctets)
        _ = Self.send(bench, handle, [SMPCode.centralIdentification, 0x34, 0x12, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(
            bench.controller.hostKeys[Self.hostAddress] == PeerKey(ltk: ltk, ediv: 0x1234, rand: 0x0807_0605_0403_0201))
        #expect(bench.controller.rejectedInput == 0)
        #expect(
            bench.controller.report().unmodelled.flatMap { $0 }.contains {
                $0.contains("the captured central paired with LE Secure Connections (played as LE legacy Just Works)")
            })
    }

    @Test func aWrongKeyInTheReplyEndsTheLinkWithAMICFailure() throws {
        let (bench, handle, stk, _) = try Self.pairUpToLTKRequest()
        let end = Self.reply(bench, handle, stk ^ 0x80).compactMap(Event.init).first {
            $0.code == HCIEventCode.disconnectionComplete
        }
        #expect(end?.parameters.last == HCIError.connectionTerminatedMICFailure)
        #expect(bench.controller.connectedHandles.isEmpty)
    }

    @Test func aWrongSconfirmFailsThePairing() throws {
        let (bench, _, _, request) = try Self.pairUpToLTKRequest(corruptSconfirm: true)
        #expect(request == nil)
        #expect(bench.controller.connectedHandles.count == 1)
    }
}
