import BLEBytes
import BLEFilter
import Testing

/// A record with a few fields set, for the language itself (operators, absence, errors).
struct FakeSubject: FilterSubject {
    var values: [Int: FilterValue]
    func value(_ field: Int) -> FilterValue? { values[field] }
}

let packets = PacketField.table
let events = EventField.table

func frame(_ n: Int64, opcode: Int64? = nil, handle: Int64? = nil, name: StaticString? = nil) -> FakeSubject {
    var v: [Int: FilterValue] = [PacketField.frame.rawValue: .int(n)]
    if let opcode {
        v[PacketField.att.rawValue] = .present
        v[PacketField.attOpcode.rawValue] = .int(opcode)
    }
    if let handle { v[PacketField.attHandle.rawValue] = .int(handle) }
    if let name { v[PacketField.attName.rawValue] = .name(name) }
    return FakeSubject(values: v)
}

@Suite struct FilterLanguageTests {
    func matches(_ expression: String, _ s: FakeSubject, table: FilterFieldTable = packets) throws -> Bool {
        try Filter(expression, fields: table).matches(s)
    }

    @Test func comparisonOperators() throws {
        let s = frame(150, opcode: 0x12, handle: 0x11)
        #expect(try matches("att.opcode == 0x12", s))
        #expect(try matches("att.opcode == 18", s))
        #expect(try !matches("att.opcode != 18", s))
        #expect(try matches("frame < 151 && frame <= 150 && frame > 149 && frame >= 150", s))
        #expect(try !matches("frame < 150", s))
        #expect(try matches("frame in 100..200", s))
        #expect(try !matches("frame in 151..200", s))
        #expect(try matches("att.handle in {0x10, 0x11}", s))
        #expect(try matches("att.handle in {1, 5..0x20}", s))
        #expect(try !matches("att.handle in {0x10, 0x13}", s))
    }

    @Test func logicAndPrecedence() throws {
        let s = frame(5, opcode: 0x12)
        // && binds tighter than ||.
        #expect(try matches("frame == 1 || frame == 5 && att", s))
        #expect(try !matches("(frame == 1 || frame == 5) && !att", s))
        #expect(try matches("not (frame == 1) and att or frame == 9", s))
        #expect(try matches("!!att", s))
    }

    @Test func absentFieldsMatchNoComparison() throws {
        let s = frame(7)
        #expect(try !matches("att.handle == 1", s))
        #expect(try !matches("att.handle != 1", s))
        #expect(try !matches("att.handle in {1..0xFFFF}", s))
        #expect(try matches("!att.handle", s))
        #expect(try matches("!(att.handle == 1)", s))
        #expect(try !matches("att", s))
    }

    @Test func namesAndGlobs() throws {
        let s = frame(1, opcode: 0x12, name: "Write Request")
        #expect(try matches("att.name == \"Write Request\"", s))
        #expect(try matches("att.name ~ 'Write*'", s))
        #expect(try matches("att.name ~ \"*Req?est\"", s))
        #expect(try !matches("att.name ~ \"write*\"", s))
        #expect(try matches("att.name in {\"Read Request\", \"Write Request\"}", s))
    }

    @Test func uuidsAndAddresses() throws {
        let peer = BDAddr("D8:0D:18:00:00:01")!
        let s = FakeSubject(values: [
            EventField.uuid.rawValue: .uuid(BluetoothUUID(uuid16: 0x2A37)),
            EventField.peer.rawValue: .address(peer),
        ])
        #expect(try matches("uuid == 2A37", s, table: events))
        #expect(try matches("uuid == 0x2a37", s, table: events))
        #expect(try matches("uuid == 00002a37-0000-1000-8000-00805f9b34fb", s, table: events))
        #expect(try !matches("uuid != 2A37", s, table: events))
        #expect(try matches("uuid in {180D, 2A37}", s, table: events))
        #expect(try matches("peer == d8:0d:18:00:00:01", s, table: events))
        #expect(try !matches("peer == D8:0D:18:00:00:02", s, table: events))
    }

    @Test func aliases() throws {
        let s = FakeSubject(values: [PacketField.connectionHandle.rawValue: .int(64)])
        #expect(try matches("conn == 64", s))
        #expect(try matches("connection_handle == 0x40", s))
    }

    func error(_ expression: String, table: FilterFieldTable = packets) -> FilterError? {
        do {
            _ = try Filter(expression, fields: table)
            return nil
        } catch { return error }
    }

    @Test func errorsPointAtTheColumn() throws {
        let unknown = try #require(error("conn == 1 && att.opcod == 0x12"))
        #expect(unknown.column == 14)
        #expect(unknown.message == "unknown field 'att.opcod'; did you mean att.opcode?")
        #expect(
            unknown.description == """
                unknown field 'att.opcod'; did you mean att.opcode?
                  conn == 1 && att.opcod == 0x12
                               ^
                """)
        #expect(error("handle == 1")?.message == "unknown field 'handle'; did you mean att.handle?")
        #expect(error("frame = 1")?.column == 7)
        #expect(error("frame == 1 &")?.column == 12)
        #expect(error("(frame == 1")?.message == "expected ) to close the ( at column 1")
        #expect(error("frame == 0xZZ")?.column == 10)
        #expect(error("frame ~ \"1*\"")?.column == 7)
        #expect(error("att.name < \"x\"")?.column == 10)
        #expect(error("uuid == 2A3")?.column == 9)
        #expect(error("peer == 1", table: events)?.message.hasPrefix("not an address") == true)
        #expect(error("frame in 200..100")?.message == "empty range: 200 is more than 100")
        #expect(error("frame in 5")?.column == 11)
        #expect(error("")?.message == "empty filter")
        #expect(error("frame == 1)")?.column == 11)
        #expect(error("\"frame\" == 1")?.column == 1)
        #expect(error("att.name == \"x")?.message == "unterminated string")
        #expect(error("peer == 1")?.message.hasPrefix("not an address") == true)
        #expect(error("peer_type < 1")?.message == "peer_type is a name: it takes ==, != or ~")
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "(", count: 10_000) + "frame == 1" + String(repeating: ")", count: 10_000)
        #expect(error(deep)?.message == "filter nested too deeply")
        let nots = String(repeating: "!", count: 10_000) + "att"
        #expect(error(nots)?.message == "filter nested too deeply")
    }

    @Test func shortcutsAreExpressions() throws {
        var s = FilterSelection()
        s.add(connection: 2)
        s.add(peer: "D8:0D:18:00:00:01")
        s.add(type: "gatt.*")
        try s.add(frames: "100-200")
        s.add(filter: "handle == 0x10")
        #expect(
            s.parts.map(\.expression) == [
                "conn == 2", "peer == D8:0D:18:00:00:01", "type ~ \"gatt.*\"", "frame in 100..200", "handle == 0x10",
            ])
        #expect(
            s.described
                == "--connection 2 --peer D8:0D:18:00:00:01 --type 'gatt.*' --frames 100-200 --filter 'handle == 0x10'")
        #expect(try s.compile(events) != nil)
        var open = FilterSelection()
        try open.add(frames: "7-")
        try open.add(frames: "-3")
        try open.add(frames: "9")
        #expect(open.parts.map(\.expression) == ["frame in 7..9223372036854775807", "frame in 1..3", "frame in 9..9"])
        for bad in ["0-3", "5-2", "x", "-", "1-2-3"] {
            var b = FilterSelection()
            #expect(throws: FilterError.self) { try b.add(frames: bad) }
        }
        #expect(try FilterSelection().compile(packets) == nil)
    }
}
