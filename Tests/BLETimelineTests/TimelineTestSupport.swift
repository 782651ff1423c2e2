import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO
import TestSupport
import Testing

/// A whole capture's timeline, collected for assertions.
struct Timeline {
    var events: [TimelineEvent] = []
    var connections: [ConnectionSummary] = []
    /// The tables `scan.filters` events name.
    var scanFilterTables = ScanFilterTables()

    init(_ path: String) throws {
        let reader = try CaptureFile.open(path: path)
        let decoder = FrameDecoder()
        var events: [TimelineEvent] = []
        var connections: [ConnectionSummary] = []
        let builder = TimelineBuilder(emit: { events.append($0) }, connectionEnded: { connections.append($0) })
        while let r = reader.next() { builder.feed(decoder.decode(r)) }
        builder.finish()
        #expect(reader.damage == nil, "\(path)")
        self.events = events
        self.connections = connections.sorted { $0.number < $1.number }
        scanFilterTables = builder.scanFilterTables
    }

    static func bumble(_ name: String) throws -> Timeline {
        try Timeline(Fixtures.capture("bumble/\(name).btsnoop"))
    }

    func at(_ frame: Int, _ type: String) -> TimelineEvent? {
        events.first { $0.frame == frame && $0.type.description == type }
    }

    func of(_ type: String) -> [TimelineEvent] { events.filter { $0.type.description == type } }
}

extension TimelineEvent {
    var operation: AttributeOperation? {
        switch kind {
        case .read(let o, _), .write(let o, _), .subscribe(let o, _), .notification(let o), .indication(let o): o
        default: nil
        }
    }
    var attributeName: String? { operation?.attribute?.displayName }
}

let heartRatePeer = BDAddr("D8:0D:18:00:00:01")!
