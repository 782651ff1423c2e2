import BLEBytes
import BLEPackets
import Foundation
import TestSupport
import Testing

@testable import BLEReplay

/// Divergences real over-the-air captures showed (issue 33), one test per class, on the
/// shipped captures (captures/public, SOURCES.md): each now replays identically at realtime
/// and at max speed, or names the captured behaviour no replay can reproduce.
@Suite struct ReplayRealCaptureTests {
    static func replay(_ name: String) throws -> CaptureReplay {
        try CaptureReplay(path: Fixtures.capture("public/\(name)"))
    }

    /// bsniffhub's nRF Sniffer capture holds only Find Information (no service or characteristic
    /// discovery): the server named its declarations there (0x0001 a service, 0x0002 a
    /// characteristic declaration), which the model now holds, so the replayed responses list
    /// every pair the captured ones did (before: from 0x0003 on, 1 of 46 PDUs identical).
    @Test func findInformationPairsAreTheServersTable() throws {
        let replay = try Self.replay("pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap")
        for speed in [ReplaySpeed.realtime, .max] {
            let report = replay.run(speed: speed)
            let c = try #require(report.connections.first)
            #expect(c.fidelity.isIdentical, "\(speed.description): \(BumbleReplayTests.describe(c.fidelity))")
            #expect(c.fidelity.captured == 46)
            let server = c.model.peerServer
            #expect(server.attribute(0x0001)?.type == ReplayAttribute.primaryService)
            #expect(server.attribute(0x0002)?.type == ReplayAttribute.characteristic)
            #expect(server.attribute(0x0002)?.isInferred == false)
        }
    }

    /// A declaration known only from Find Information has no known value: Read By Type and Read
    /// By Group Type cannot list it (a guess would put an empty value on the air).
    @Test func declarationsWithoutValueAreNotListed() throws {
        let replay = try Self.replay("pcap-nordic272_bsniffhub-encrypted-bad-mic.pcap")
        let model = try #require(replay.models(.all).first)
        #expect(model.peerServer.attribute(0x0001)?.value == [])
        var server = ReplayATTServer(model: model.peerServer, faults: .none)
        // Read By Group Type Request, primary services, 0x0001–0xFFFF.
        let answer = server.answer([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28])
        #expect(answer?.first == ATTOpcode.errorResponse.rawValue)
    }

    /// crackle's LE Secure Connections capture: the server's Attribute Not Found names the last
    /// handle it searched (the request's ending handle, or its own last attribute 0x0046 when
    /// the range runs past it, never below the starting handle). Before, Read By Group Type of
    /// secondary services over 0x0001–0xFFFF was answered naming 0x0001 (18 of 37 identical).
    @Test func attributeNotFoundNamesTheLastHandleSearched() throws {
        let replay = try Self.replay("pcapng-lell256_crackle-le-secure-connections.pcapng")
        for speed in [ReplaySpeed.realtime, .max] {
            let c = try #require(replay.run(speed: speed).connections.first)
            #expect(c.fidelity.isIdentical, "\(speed.description): \(BumbleReplayTests.describe(c.fidelity))")
            let server = c.model.peerServer
            #expect(server.lastHandle == 0x0046)
            #expect(
                server.notFoundPolicies[ATTOpcode.readByGroupTypeRequest.rawValue]
                    == ReplayServerModel.NotFoundPolicy.lastSearched)
            #expect(server.notFoundHandle(opcode: 0x10, start: 0x0001, end: 0xFFFF) == 0x0046)
            #expect(server.notFoundHandle(opcode: 0x10, start: 0x0047, end: 0xFFFF) == 0x0047)
        }
    }

    /// WHAD's pairing capture lost frames after encryption: frame 1494, a list of
    /// characteristic declarations (7-octet entries), follows frame 1491's Read By Type for
    /// includes. The timeline took its entries for includes; the model leaves them out, so the
    /// first discovery pass replays as captured (before: diverged at frame 64, 25 of 155), and
    /// the report names frame 1494 as what no replay can reproduce.
    @Test func aResponseToALostRequestIsNamed() throws {
        let replay = try Self.replay("pcap-lell256_whad-pairing-gatt-conn-update.pcap")
        for speed in [ReplaySpeed.realtime, .max] {
            let report = replay.run(speed: speed)
            let c = try #require(report.connections.first)
            #expect(!c.fidelity.isIdentical)
            #expect(c.fidelity.divergence?.captured?.frame == 1494)
            #expect(c.fidelity.matching == 109)
            let u = try #require(c.unreproducible)
            #expect(u.kind == .responseToAnotherRequest)
            #expect(u.frame == 1494)
            #expect(u.detail.contains("frame 1491"))
            #expect(!c.model.peerServer.attributes.contains { $0.type == ReplayAttribute.include })
            #expect(c.model.peerServer.attribute(0x0011)?.type == ReplayAttribute.characteristic)
            #expect(
                report.json().contains("\"unreproducible\":{\"kind\":\"response_to_another_request\",\"frame\":1494"))
        }
    }
}

/// Whether a server PDU can answer the request before it (BLEPackets' `ATTPDU.mismatch`).
@Suite struct ATTResponseMatchTests {
    static func mismatch(_ q: [UInt8], _ r: [UInt8]) -> ATTResponseMismatch? {
        q.withByteView { qv in r.withByteView { ATTPDU.mismatch(request: qv, response: $0) } }
    }

    @Test func pairsThatFit() {
        // Read By Type (characteristic) 0x0010–0x001E and a list of one 7-octet entry.
        #expect(
            Self.mismatch(
                [0x08, 0x10, 0x00, 0x1E, 0x00, 0x03, 0x28], [0x09, 0x07, 0x11, 0x00, 0x02, 0x12, 0x00, 0x23, 0x2A])
                == nil)
        #expect(Self.mismatch([0x0A, 0x03, 0x00], [0x01, 0x0A, 0x03, 0x00, 0x02]) == nil)
        #expect(Self.mismatch([0x0A, 0x03, 0x00], [0x0B, 0x41]) == nil)
    }

    @Test func pairsThatDoNot() {
        // Includes asked, characteristics listed.
        #expect(
            Self.mismatch(
                [0x08, 0x10, 0x00, 0x1E, 0x00, 0x02, 0x28], [0x09, 0x07, 0x11, 0x00, 0x02, 0x12, 0x00, 0x23, 0x2A])
                == .entrySize(7))
        // A Read Response to a Write Request; an Error Response naming a Read Blob.
        #expect(Self.mismatch([0x12, 0x03, 0x00, 0x01], [0x0B, 0x41]) == .otherRequest(answered: .readRequest))
        #expect(
            Self.mismatch([0x0A, 0x03, 0x00], [0x01, 0x0C, 0x03, 0x00, 0x07])
                == .otherRequest(answered: .readBlobRequest))
        // Find Information over 0x0001–0x0005 listing 0x0009.
        #expect(
            Self.mismatch([0x04, 0x01, 0x00, 0x05, 0x00], [0x05, 0x01, 0x09, 0x00, 0x02, 0x29]) == .outsideRange(0x0009)
        )
    }
}

/// Unreproducible responses in a capture built here: each named with its frames, and no more
/// than `maximumUnreproducible` kept however many the capture holds (hostile input).
@Suite struct ReplayUnreproducibleTests {
    /// 200 Read Requests of 0x0003, each followed by a Write Response: none answers its read.
    static func capture() -> String {
        var w = SyntheticConnection(peer: BDAddr(rawValue: 0xC0_00_00_00_00_33))
        for _ in 0..<200 {
            w.att([0x0A, 0x03, 0x00], sent: true)
            w.att([0x13], sent: false)
        }
        return ReplayFixtures.temporaryCapture(w.disconnect())
    }

    @Test func responsesToOtherRequestsAreNamedAndBounded() throws {
        let path = Self.capture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let report = try CaptureReplay(path: path).run()
        let c = try #require(report.connections.first)
        #expect(c.model.unreproducible.count == ReplayConnectionModel.maximumUnreproducible)
        // The model answers the read as a server would (no captured value: an empty one),
        // so the replay diverges at the first Write Response, which the report names.
        let d = try #require(c.fidelity.divergence)
        #expect(d.position == 1)
        let u = try #require(c.unreproducible)
        #expect(u.kind == .responseToAnotherRequest)
        #expect(u.capturedIndex == 1)
        #expect(u.frame == d.captured?.frame)
        #expect(u.detail.contains("it answers a Write Request"))
        // Nothing filed from them: the reads were never answered with a value in the model.
        #expect(c.model.peerServer.reads.isEmpty)
    }
}
