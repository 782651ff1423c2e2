import BLEBytes
import BLETimeline
import CaptureIO
import Testing

/// The controller's Filter Accept List as `connection.create` reports it (docs/timeline.md),
/// from hand-made HCI traffic (Core 5.4 Vol 4 Part E 7.8.12, 7.8.15–7.8.17) with the bad cases
/// the shipped captures do not show.
@Suite struct AcceptListTimelineTests {
    final class Script {
        let s = SyntheticCapture()
        var time: Int64 = 0
        @discardableResult func command(_ opcode: UInt16, _ p: [UInt8]) -> Int {
            time += 1000
            s.feed(.hciCommand, .sent, [UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(p.count)] + p, at: time)
            return s.frame
        }
        func complete(_ opcode: UInt16, status: UInt8) {
            time += 1000
            s.feed(
                .hciEvent, .received, [0x0E, 0x04, 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), status], at: time)
        }
        func commandStatus(_ opcode: UInt16, status: UInt8) {
            time += 1000
            s.feed(
                .hciEvent, .received, [0x0F, 0x04, status, 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)], at: time)
        }
        /// Add (0x2011) or remove (0x2012) a public address (written most significant byte first).
        @discardableResult func device(_ opcode: UInt16, _ addr: [UInt8], status: UInt8? = 0) -> Int {
            let f = command(opcode, [0x00] + addr.reversed())
            if let status { complete(opcode, status: status) }
            return f
        }
        /// LE Create Connection through the filter accept list (initiator filter policy 1).
        func createThroughList() {
            command(
                0x200D,
                [0x60, 0x00, 0x30, 0x00, 0x01, 0x00] + [UInt8](repeating: 0, count: 6)
                    + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00])
            commandStatus(0x200D, status: 0)
        }
        /// The list each `connection.create` names (nil: it names none), as readers look it up.
        var lists: [FilterAcceptList?] {
            s.builder.finish()
            var out: [FilterAcceptList?] = []
            for e in s.events {
                guard case .connectionCreate(let info) = e.kind else { continue }
                out.append(info.acceptList.flatMap { s.builder.scanFilterTables.acceptList($0) })
            }
            return out
        }
    }

    static let a: [UInt8] = [0xC0, 0x11, 0x22, 0x33, 0x44, 0x55]
    static let b: [UInt8] = [0xC0, 0x99, 0x88, 0x77, 0x66, 0x55]
    static let c: [UInt8] = [0xC0, 0x00, 0x00, 0x00, 0x00, 0x02]

    @Test func listFollowsConfirmedCommandsOnly() throws {
        let t = Script()
        let reset = t.command(0x0C03, [])
        t.complete(0x0C03, status: 0)
        t.device(0x2011, Self.b)
        t.command(0x2010, [])
        t.complete(0x2010, status: 0)  // clear: b gone
        let clear = t.s.frame - 1
        t.device(0x2012, Self.c)  // remove of a device never added: noted
        let rejected = t.device(0x2011, Self.c, status: 0x07)  // Memory Capacity Exceeded: not added
        t.device(0x2011, Self.b)
        t.command(0x2011, [0x00] + Self.b.reversed())
        t.commandStatus(0x2011, status: 0x01)  // refused by a Command Status: not applied
        t.command(0x2011, [0x00, 0x01])  // too short to name a device: noted
        let addA = t.device(0x2011, Self.a)
        t.device(0x2012, Self.b)  // b removed again
        t.createThroughList()
        let list = try #require(t.lists.first ?? nil)
        #expect(list.entries.map(\.address.description) == ["C0:11:22:33:44:55"])
        #expect(list.entries.first?.frame == addA)
        #expect(list.complete && list.clearedFrame == clear && clear > reset)
        #expect(list.anomalies == 4)
        #expect(list.firstAnomalyFrame == rejected - 2)  // the remove of c, just before
        #expect(list.membership(of: BDAddr("C0:11:22:33:44:55")).contains("was on it (added at frame \(addA))"))
        #expect(list.membership(of: BDAddr("C0:99:88:77:66:55")).contains("was not on it"))
    }

    /// No Reset or Clear in the capture: devices added before it may be on the list, so its
    /// content is not claimed whole and a peer missing from it is not called absent.
    @Test func listWithoutResetIsNotComplete() throws {
        let t = Script()
        t.device(0x2011, Self.a)
        t.device(0x2012, Self.b)  // set up before the capture, perhaps: noted, nothing removed
        t.createThroughList()
        let list = try #require(t.lists.first ?? nil)
        #expect(!list.complete && list.entries.count == 1 && list.anomalies == 1)
        #expect(list.membership(of: BDAddr("C0:99:88:77:66:55")).contains("added before the capture began"))
    }

    /// A create naming its peer (policy 0) carries no list; an unanswered command is never applied.
    @Test func directCreateCarriesNoListAndUnansweredCommandsChangeNothing() throws {
        let t = Script()
        t.command(0x0C03, [])
        t.device(0x2011, Self.a, status: nil)  // never answered
        t.command(
            0x200D,
            [0x60, 0x00, 0x30, 0x00, 0x00, 0x00] + Self.a.reversed()
                + [0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00])
        t.createThroughList()
        let lists = t.lists
        #expect(lists.count == 2 && lists[0] == nil)
        #expect(lists[1]?.entries.isEmpty == true && lists[1]?.complete == true)
    }
}
