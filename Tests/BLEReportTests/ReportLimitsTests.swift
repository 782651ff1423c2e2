import BLEBytes
import BLELint
import Testing

@testable import BLEReport
@testable import BLETimeline

/// What the page keeps of a capture with more of something than it shows, and that it says so.
@Suite struct ReportLimitsTests {
    /// A connection with `peer` whose GATT server had one discovered service.
    static func ended(_ number: Int, peer: BDAddr, discovered: Bool = true) -> ConnectionSummary {
        var database = GATTDatabase()
        if discovered {
            database.add(
                GATTService(
                    startHandle: 1, endHandle: 5, uuid: BluetoothUUID(uuid16: 0x180D), isPrimary: true,
                    learnedIn: number))
        }
        return ConnectionSummary(
            number: number, controllerIndex: 0, handle: 0x40, peer: peer, peerAddressType: 0, identity: nil, role: 0,
            isLE: true, startFrame: number * 10, startTime: Int64(number) * 1_000_000, unknownStart: false,
            endFrame: number * 10 + 5, endTime: Int64(number) * 1_000_000 + 500_000, endReason: 0x13,
            endSide: .remote, mtu: 23, remoteDatabase: database, remoteCarriedOverFrom: nil,
            localDatabase: GATTDatabase(), localCarriedOverFrom: nil)
    }

    @Test func databasesPastTheLimitAreCountedNotKept() {
        let limit = SessionReportModel.Limits.databasePeers
        let aggregator = SessionAggregator(path: "synthetic")
        // Every connection with a peer of its own, then the first peers again.
        for n in 1...(limit + 10) { aggregator.connectionEnded(Self.ended(n, peer: BDAddr(rawValue: UInt64(n)))) }
        for n in 1...5 { aggregator.connectionEnded(Self.ended(limit + 10 + n, peer: BDAddr(rawValue: UInt64(n)))) }
        let m = aggregator.finish(CaptureReport(path: "synthetic"))
        #expect(m.databases.count == limit)
        #expect(m.databasesOmitted == 10)
        // A capture within the limit has no count (and no key in the page's data).
        let few = SessionAggregator(path: "synthetic")
        few.connectionEnded(Self.ended(1, peer: BDAddr(rawValue: 1)))
        let small = few.finish(CaptureReport(path: "synthetic"))
        #expect(small.databases.count == 1 && small.databasesOmitted == nil)
        #expect(!HTMLReportRenderer.render([small]).contains("\"databasesOmitted\""))
        #expect(HTMLReportRenderer.render([m]).contains("\"databasesOmitted\":10"))
    }

    /// The page lists the first `Limits.connections` connections (the first
    /// `Limits.detailedConnections` of them with their charts) and counts the rest.
    @Test func connectionsPastTheLimitAreCountedNotKept() throws {
        let limits = SessionReportModel.Limits.self
        let aggregator = SessionAggregator(path: "synthetic")
        for n in 1...(limits.connections + 100) {
            aggregator.connectionEnded(Self.ended(n, peer: BDAddr(rawValue: UInt64(n)), discovered: false))
        }
        let m = aggregator.finish(CaptureReport(path: "synthetic"))
        #expect(m.header.connections == limits.connections + 100)
        #expect(m.connections.count == limits.connections)
        #expect(m.connectionsOmitted == 100)
        #expect(m.connections.map(\.number) == Array(1...limits.connections))
        #expect(m.connections.filter(\.detailed).count == limits.detailedConnections)
        let html = HTMLReportRenderer.render([m])
        #expect(html.contains("\"connectionsOmitted\":100"))
    }
}
