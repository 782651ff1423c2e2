import BLEReplay
import TestSupport
import Testing

/// `CapturedATTPDUs` and `ReplayedPDUs` keep a connection's PDUs in one arena: each element
/// read back is the PDU appended, whatever the lengths around it.
@Suite struct CompactPDUStoreTests {
    /// PDUs of every length that borders an empty one (its start is the previous PDU's end).
    static let pdus: [CapturedATTPDU] = [
        CapturedATTPDU(frame: 3, time: 1_000, sentByHost: true, bytes: [0x0A, 0x03, 0x00]),
        CapturedATTPDU(frame: 4, time: 1_500, sentByHost: false, bytes: []),
        CapturedATTPDU(frame: 5, time: -7, sentByHost: false, bytes: [0x0B] + Array(repeating: 0xEE, count: 600)),
        CapturedATTPDU(frame: 9, time: .max, sentByHost: true, bytes: [0x52, 0x10, 0x00, 0x01]),
        CapturedATTPDU(frame: 10, time: .min, sentByHost: false, bytes: []),
    ]

    @Test func capturedPDUsReadBackAsAppended() {
        let store = CapturedATTPDUs(Self.pdus)
        #expect(Array(store) == Self.pdus)
        #expect(store.count == Self.pdus.count)
        for (i, p) in Self.pdus.enumerated() {
            #expect(Array(store.bytes(at: i)) == p.bytes)
            #expect(store.time(at: i) == p.time && store.sentByHost(at: i) == p.sentByHost)
            #expect(store.opcode(at: i) == p.opcode)
        }
        // Equal stores hold equal PDUs; one PDU's bytes moved to its neighbour is not equal.
        var moved = Self.pdus
        moved[1].bytes = [0x0A]
        moved[0].bytes.removeLast()
        #expect(CapturedATTPDUs(moved) != store)
        #expect(CapturedATTPDUs(Self.pdus) == store)
    }

    @Test func replayedPDUsReadBackAsAppended() {
        let pdus = Self.pdus.enumerated().map { i, p in
            var r = ReplayedPDU(offset: p.time, sentByHost: p.sentByHost, bytes: p.bytes)
            // capturedIndex nil and 0 are different PDUs.
            r.capturedIndex = i == 0 ? nil : i - 1
            return r
        }
        let store = ReplayedPDUs(pdus)
        #expect(Array(store) == pdus)
        for (i, p) in pdus.enumerated() {
            #expect(Array(store.bytes(at: i)) == p.bytes)
            #expect(store.offset(at: i) == p.offset && store.sentByHost(at: i) == p.sentByHost)
        }
    }

    /// A captured connection's exchange read through the store is the one the capture shows:
    /// every PDU starts with an ATT opcode, in frame order, and copies of it compare equal.
    @Test(arguments: Fixtures.captures(in: "bumble").filter { $0.hasSuffix(".btsnoop") })
    func capturedExchangeSurvivesTheStore(_ path: String) throws {
        let session = try CapturedSession(path: path)
        for c in session.connections {
            let pdus = Array(c.att)
            #expect(CapturedATTPDUs(pdus) == c.att)
            #expect(pdus.allSatisfy { !$0.bytes.isEmpty })
            #expect(zip(pdus, pdus.dropFirst()).allSatisfy { $0.frame <= $1.frame })
        }
    }

    /// The script's stream items, kept as records over the captured exchange, read back as
    /// the server's own PDUs of that exchange, in order, each anchored to a step that exists.
    @Test(arguments: Fixtures.captures(in: "bumble").filter { $0.hasSuffix(".btsnoop") })
    func streamItemsAreTheCapturedServerPDUs(_ path: String) throws {
        for m in try CaptureReplay(path: path).models {
            let att = m.connection.att
            #expect(zip(m.stream, m.stream.dropFirst()).allSatisfy { $0.capturedIndex < $1.capturedIndex })
            for item in m.stream {
                #expect(item.bytes == att[item.capturedIndex].bytes)
                #expect(!att[item.capturedIndex].isFromClient)
                #expect(item.hostIsClient == att[item.capturedIndex].hostIsClient)
                if case .subscription(let n) = item.anchor { #expect(m.steps.indices.contains(n)) }
            }
        }
    }
}
