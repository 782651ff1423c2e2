import BLEBytes
import Foundation
import TestSupport
import Testing

@testable import BLETimeline

/// Issue 28: one record of facts per connection, and unknown stays unknown. ATT_MTU is a fact
/// only when the connection was seen from its start or its exchange was; a capture that starts
/// later knows only a lower bound (the largest ATT PDU seen). Every attribute operation says
/// whose server it addresses.
@Suite struct ConnectionFactsTests {
    /// `bumble/oversized_and_unchecked_writes.central`: Connection Complete at frame 31, no MTU
    /// exchange (ATT_MTU 23 from the start), a 40-byte Write Request at 57.
    static let source = "bumble/oversized_and_unchecked_writes.central.btsnoop"

    /// The capture without its first `dropping` records: it starts during the connection.
    static func startingLater(dropping: Int) throws -> String {
        try Fixtures.derivedBTSnoop(Self.source, drop: Set(1...dropping))
    }

    @Test func aConnectionSeenFromItsStartKnowsItsMTU() throws {
        let t = try Timeline(Fixtures.capture(Self.source))
        let c = try #require(t.connections.first)
        #expect(!c.unknownStart && c.mtuKnown && c.mtu == 23)
        let f = c.facts
        #expect(f.mtu == 23 && f.mtuKnown && f.mtuAtLeast == nil && f.largestAttPDU >= 43)
        let write = try #require(t.at(57, "gatt.write")?.operation)
        #expect(write.mtuKnown && write.mtu == 23 && write.serverIsPeer)
    }

    @Test func aCaptureStartingLaterStatesOnlyALowerBound() throws {
        let path = try Self.startingLater(dropping: 31)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let t = try Timeline(path)
        let c = try #require(t.connections.first)
        #expect(c.unknownStart && !c.mtuKnown)
        let f = c.facts
        #expect(f.mtu == nil && !f.mtuKnown)
        // The 40-byte write (a 43-byte PDU) proves ATT_MTU was at least 43: not 23.
        #expect((f.mtuAtLeast ?? 0) >= 43 && f.mtuAtLeast == f.largestAttPDU)
        #expect(f.mtuText == "unknown (at least \(f.mtuAtLeast!))")
        let write = try #require(t.at(57 - 31, "gatt.write")?.operation)
        #expect(!write.mtuKnown && write.mtu >= 43)
    }

    @Test func operationsNameTheServerTheyAddress() throws {
        // This host is the peripheral: the peer's client reads and writes this host's server,
        // this host notifies from it.
        let t = try Timeline.bumble("clean_heart_rate.peripheral")
        let ops = t.events.compactMap(\.operation)
        #expect(!ops.isEmpty)
        let allLocal = ops.allSatisfy { !$0.serverIsPeer }
        #expect(allLocal)
        let central = try Timeline.bumble("clean_heart_rate.central")
        let allPeer = central.events.compactMap(\.operation).allSatisfy(\.serverIsPeer)
        #expect(allPeer)
        // The peer's client discovered this host's server: its counts are the local side's.
        let facts = try #require(t.connections.first?.facts)
        #expect(facts.attributes.local.characteristics > 0 && facts.attributes.peer.characteristics == 0)
    }

    @Test func aFindInformationBeforeCharacteristicDiscoveryKeepsNoValueAsDescriptor() throws {
        var db = GATTDatabase()
        // Find Information over the whole range answered first: declaration, value, CCCD.
        db.add(GATTDescriptor(handle: 0x10, uuid: BluetoothUUID(uuid16: 0x2803), learnedIn: 1))
        db.add(GATTDescriptor(handle: 0x11, uuid: BluetoothUUID(uuid16: 0xFFF3), learnedIn: 1))
        db.add(GATTDescriptor(handle: 0x12, uuid: BluetoothUUID(uuid16: 0x2902), learnedIn: 1))
        db.add(
            GATTCharacteristic(
                declarationHandle: 0x10, valueHandle: 0x11, properties: 0x10, uuid: BluetoothUUID(uuid16: 0xFFF3),
                learnedIn: 1))
        #expect(db.descriptors.map(\.handle) == [0x12])
        #expect(db.attribute(at: 0x11, connection: 1)?.role == .value)
        #expect(db.counts.characteristics == 1 && db.counts.descriptors == 1)
    }
}
