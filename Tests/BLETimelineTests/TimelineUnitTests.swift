import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO
import Testing

/// Feeds hand-made H4-less HCI packets through the decoder and builder.
final class SyntheticCapture {
    var events: [TimelineEvent] = []
    lazy var builder = TimelineBuilder(emit: { [unowned self] in self.events.append($0) })
    let decoder = FrameDecoder()
    var frame = 0

    func feed(_ kind: RecordKind, _ direction: Direction, _ bytes: [UInt8], at time: Int64) {
        frame += 1
        bytes.withByteView { view in
            let r = CaptureRecord(
                frame: frame, timestamp: time, direction: direction, kind: kind, rawType: 0,
                payload: view, originalLength: view.count, fileOffset: 0, recordLength: view.count)
            builder.feed(decoder.decode(r))
        }
    }

    /// An ATT PDU on handle 0x0001 in one ACL packet.
    func att(_ pdu: [UInt8], sent: Bool, at time: Int64) {
        let l2cap = [UInt8(pdu.count), 0, 0x04, 0x00] + pdu
        let acl = [0x01, sent ? 0x00 : 0x20, UInt8(l2cap.count), 0] + l2cap
        feed(.aclData, sent ? .sent : .received, acl, at: time)
    }

    /// LE Connection Complete, handle 0x0001, central, peer `addr` (little-endian bytes).
    func connect(peer addr: [UInt8], at time: Int64) {
        let p: [UInt8] = [0x01, 0x00, 0x01, 0x00, 0x00, 0x01] + addr + [0x0C, 0, 0, 0, 0x48, 0, 0]
        feed(.hciEvent, .received, [0x3E, UInt8(p.count)] + p, at: time)
    }

    func disconnect(reason: UInt8, at time: Int64) {
        feed(.hciEvent, .received, [0x05, 0x04, 0x00, 0x01, 0x00, reason], at: time)
    }
}

@Suite struct TimelineUnitTests {
    @Test func unansweredRequestTimesOutAfter30sAndKeepsOrder() {
        let s = SyntheticCapture()
        s.connect(peer: [1, 2, 3, 4, 5, 6], at: 0)
        s.att([0x0A, 0x10, 0x00], sent: true, at: 1_000)  // Read Request 0x0010, never answered
        s.att([0x1B, 0x20, 0x00, 0xAA], sent: false, at: 2_000)  // notification, held behind it
        #expect(s.events.count == 1)  // only the connection: the read is pending
        s.att([0x1B, 0x20, 0x00, 0xBB], sent: false, at: 31_002_000)
        #expect(s.events.map(\.frame) == [1, 2, 3, 4])
        #expect(s.events[1].outcome == .timeout)
        s.builder.finish()
    }

    @Test func requestPast30sWhenTheLinkEndsTimedOut() {
        // The peer's read is never answered and the Disconnection Complete is the next frame,
        // 30.03 s later (captures/bumble-failures/att_timeout.peripheral): the read timed out
        // before the end, it was not cut short by it.
        let s = SyntheticCapture()
        s.connect(peer: [1, 2, 3, 4, 5, 6], at: 0)
        s.att([0x0A, 0x12, 0x00], sent: false, at: 234_000)
        s.disconnect(reason: 0x13, at: 30_266_000)
        s.builder.finish()
        #expect(s.events[1].outcome == .timeout)
        // Within its 30 s the same end cuts the request short.
        let t = SyntheticCapture()
        t.connect(peer: [1, 2, 3, 4, 5, 6], at: 0)
        t.att([0x0A, 0x12, 0x00], sent: false, at: 234_000)
        t.disconnect(reason: 0x13, at: 29_000_000)
        t.builder.finish()
        #expect(t.events[1].outcome == .disconnected(frame: 3))
    }

    @Test func responseOnlyAnswersItsOwnConnectionAndOpcode() {
        let s = SyntheticCapture()
        s.connect(peer: [1, 2, 3, 4, 5, 6], at: 0)
        s.att([0x13], sent: false, at: 10)  // Write Response with no request
        s.att([0x0A, 0x03, 0x00], sent: true, at: 20)
        s.att([0x13], sent: false, at: 30)  // wrong response opcode for a Read
        s.att([0x0B, 0x41], sent: false, at: 40)
        s.builder.finish()
        #expect(
            s.events.map(\.type.description) == [
                "connection.complete", "gatt.unmatched_response", "gatt.read",
                "gatt.unmatched_response",
            ])
        #expect(s.events[2].outcome == .success(frame: 5, latency: 20) && s.events[2].value.bytes == [0x41])
    }

    @Test func disconnectionResolvesOutstandingAndHandleReuseStartsNewConnection() {
        let s = SyntheticCapture()
        s.connect(peer: [1, 2, 3, 4, 5, 6], at: 0)
        s.att([0x0A, 0x03, 0x00], sent: true, at: 10)
        s.disconnect(reason: 0x13, at: 20)
        s.connect(peer: [1, 2, 3, 4, 5, 6], at: 30)
        s.att([0x0B, 0x41], sent: false, at: 40)  // a stale answer: not for connection 2
        s.builder.finish()
        #expect(s.events[1].outcome == .disconnected(frame: 3))
        if case .disconnection(_, 0x13, let side) = s.events[2].kind {
            #expect(side == .remote)
        } else {
            Issue.record("kind")
        }
        #expect(s.events[3].connection == 2)
        #expect(s.events[4].type.description == "gatt.unmatched_response" && s.events[4].connection == 2)
    }

    @Test func aclOnUnknownHandleCreatesUnknownStartConnection() {
        var summaries: [ConnectionSummary] = []
        var events: [TimelineEvent] = []
        let b = TimelineBuilder(emit: { events.append($0) }, connectionEnded: { summaries.append($0) })
        let d = FrameDecoder()
        let pdu: [UInt8] = [0x02, 0x40, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00]
        pdu.withByteView { v in
            b.feed(
                d.decode(
                    CaptureRecord(
                        frame: 1, timestamp: 0, direction: .received, kind: .aclData, rawType: 0,
                        payload: v, originalLength: v.count, fileOffset: 0, recordLength: v.count)))
        }
        b.finish()
        #expect(events.count == 1 && events[0].connection == 1 && events[0].type.description == "gatt.notification")
        #expect(
            summaries.count == 1 && summaries[0].unknownStart && summaries[0].handle == 0x0002
                && summaries[0].endFrame == nil)
    }

    @Test func pairingMethodSelection() throws {
        // Pairing Request/Response bytes: code, IO, OOB, AuthReq, key size, init keys, resp keys.
        func features(_ io: UInt8, oob: UInt8 = 0, auth: UInt8) throws -> SMPPairingFeatures {
            try #require([0x01, io, oob, auth, 16, 3, 3].withByteView { SMPPairingRequest(pdu: $0) }).features
        }
        let sc: UInt8 = 0x0D
        let legacy: UInt8 = 0x05  // bonding + MITM, with/without SC
        #expect(
            PairingMethod.select(initiator: try features(3, auth: 0x09), responder: try features(3, auth: 0x09))
                == .justWorks)
        #expect(
            PairingMethod.select(initiator: try features(1, auth: sc), responder: try features(1, auth: sc))
                == .numericComparison)
        #expect(
            PairingMethod.select(initiator: try features(1, auth: legacy), responder: try features(1, auth: legacy))
                == .justWorks)
        #expect(
            PairingMethod.select(initiator: try features(4, auth: legacy), responder: try features(0, auth: legacy))
                == .passkeyEntry)
        #expect(
            PairingMethod.select(initiator: try features(2, auth: sc), responder: try features(4, auth: sc))
                == .passkeyEntry)
        #expect(
            PairingMethod.select(initiator: try features(3, oob: 1, auth: sc), responder: try features(3, auth: sc))
                == .outOfBand)
        #expect(
            PairingMethod.select(
                initiator: try features(3, oob: 1, auth: legacy), responder: try features(3, auth: legacy))
                == .justWorks)
        #expect(
            PairingMethod.select(initiator: try features(9, auth: legacy), responder: try features(0, auth: legacy))
                == nil)
    }

    @Test func randomInputNeverCrashesAndStaysBounded() {
        var rng = SystemRandomNumberGenerator()
        let s = SyntheticCapture()
        let kinds: [RecordKind] = [.hciCommand, .hciEvent, .aclData, .note]
        for i in 0..<20_000 {
            let n = Int.random(in: 0..<40, using: &rng)
            var bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Bias towards the interesting codes so the parsers are reached.
            if i % 3 == 0, n > 2 {
                bytes[0] = 0x3E
                bytes[2] = [0x01, 0x0D, 0x03, 0x0A][i % 4]
            }
            if i % 5 == 0, n > 8 {
                bytes[0] = 0x01
                bytes[1] = 0x20
                bytes[6] = 0x04
                bytes[7] = 0
            }
            s.feed(kinds[i % kinds.count], i % 2 == 0 ? .sent : .received, bytes, at: Int64(i) * 1000)
        }
        s.builder.finish()
        #expect(zip(s.events, s.events.dropFirst()).allSatisfy { $0.frame <= $1.frame })
    }

    @Test func databaseNamesAndUpserts() {
        // Discovered through the builder so the database is built the way it is in practice.
        let s = SyntheticCapture()
        var summaries: [ConnectionSummary] = []
        s.builder = TimelineBuilder(emit: { s.events.append($0) }, connectionEnded: { summaries.append($0) })
        s.connect(peer: [1, 2, 3, 4, 5, 6], at: 0)
        s.att([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], sent: true, at: 1)
        // Two characteristic declarations: 0x0002 → 0x0003 (Read, 2A00), 0x0004 → 0x0005 (Notify, 2A37).
        s.att(
            [0x09, 0x07, 0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A, 0x04, 0x00, 0x10, 0x05, 0x00, 0x37, 0x2A],
            sent: false, at: 2)
        s.att([0x04, 0x06, 0x00, 0x06, 0x00], sent: true, at: 3)
        s.att([0x05, 0x01, 0x06, 0x00, 0x02, 0x29], sent: false, at: 4)
        s.att([0x12, 0x06, 0x00, 0x02, 0x00], sent: true, at: 5)  // indications on
        s.att([0x13], sent: false, at: 6)
        s.att([0x12, 0x03, 0x00, 0x01, 0x00], sent: true, at: 7)  // 01 00 to a non-CCCD: a write
        s.builder.finish()
        let db = summaries[0].remoteDatabase
        #expect(db.characteristics.map(\.valueHandle) == [3, 5])
        #expect(db.attribute(at: 6, connection: 1)?.displayName == "Heart Rate Measurement CCCD")
        #expect(db.attribute(at: 4, connection: 1)?.displayName == "Heart Rate Measurement declaration")
        #expect(db.attribute(at: 6, connection: 2)?.carriedOver == true)
        #expect(s.events.map(\.type.description).suffix(2) == ["gatt.subscribe", "gatt.write"])
        #expect(s.events.last?.outcome == .endOfCapture)
    }
}
