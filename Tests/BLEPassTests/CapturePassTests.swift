import BLEPackets
import BLEPass
import BLETimeline
import CaptureIO
import TestSupport
import Testing

/// A consumer that writes down every hook it is called with, in order.
final class HookLog: CaptureConsumer {
    let observes: CaptureObservations
    var stopAfter: Int?
    var log: [String] = []
    var records = 0
    var frames = 0
    var events: [String] = []
    var connections: [Int] = []

    init(_ observes: CaptureObservations, stopAfter: Int? = nil) {
        self.observes = observes
        self.stopAfter = stopAfter
    }

    func begin(_ pass: CapturePass) { log.append("begin") }
    func record(_ record: CaptureRecord) {
        records += 1
        log.append("record \(record.frame)")
    }
    func frame(_ frame: DecodedFrame) {
        frames += 1
        log.append("frame \(frame.record.frame)")
    }
    func frameAfterTimeline(_ frame: DecodedFrame) { log.append("after \(frame.record.frame)") }
    func event(_ event: TimelineEvent) {
        events.append("\(event.frame) \(event.type)")
        log.append("event \(event.frame)")
    }
    func connectionEnded(_ summary: ConnectionSummary) {
        connections.append(summary.number)
        log.append("ended \(summary.number)")
    }
    var isDone: Bool { stopAfter.map { records >= $0 } ?? false }
    func finish(_ pass: CapturePass) { log.append("finish") }
}

@Suite struct CapturePassTests {
    static let capture = "bumble/clean_heart_rate.central.btsnoop"

    static func pass(keys: LinkLayerKeys = LinkLayerKeys()) throws -> CapturePass {
        let path = try Fixtures.existing(capture)
        return CapturePass(reader: try CaptureFile.open(path: path), name: path, keys: keys)
    }

    /// The events and connections a reader → decoder → builder loop written by hand gives.
    static func handBuilt() throws -> (frames: Int, events: [String], connections: [Int]) {
        let reader = try CaptureFile.open(path: try Fixtures.existing(capture))
        var events: [String] = []
        var connections: [Int] = []
        let builder = TimelineBuilder(
            emit: { events.append("\($0.frame) \($0.type)") }, connectionEnded: { connections.append($0.number) })
        let decoder = FrameDecoder()
        var frames = 0
        while let r = reader.next() {
            frames += 1
            builder.feed(decoder.decode(r))
        }
        builder.finish()
        return (frames, events, connections)
    }

    @Test func everythingObservedIsWhatTheHandBuiltLoopGives() throws {
        let expected = try Self.handBuilt()
        let log = HookLog([.records, .frames, .framesAfterTimeline, .events, .connections])
        try Self.pass().run(log)
        #expect(expected.frames > 0 && !expected.events.isEmpty && !expected.connections.isEmpty)
        #expect(log.records == expected.frames)
        #expect(log.frames == expected.frames)
        #expect(log.events == expected.events)
        #expect(log.connections == expected.connections)
        // Per record: record, frame, what the timeline made final on it, then after; the
        // events and ends of the end of the capture after the last record, before finish.
        let isTimeline = { (e: String) in e.hasPrefix("event ") || e.hasPrefix("ended ") }
        let skeleton = log.log.filter { !isTimeline($0) }
        #expect(skeleton.first == "begin" && skeleton.last == "finish")
        #expect(skeleton.count == 2 + 3 * expected.frames)
        for i in stride(from: 1, to: skeleton.count - 1, by: 3) {
            let n = skeleton[i].dropFirst("record ".count)
            #expect(skeleton[i + 1] == "frame \(n)" && skeleton[i + 2] == "after \(n)")
        }
        var previous = ""
        for entry in log.log {
            if isTimeline(entry) {
                #expect(previous.hasPrefix("frame ") || previous == skeleton[skeleton.count - 2])
            } else {
                previous = entry
            }
        }
    }

    @Test func onlyDeclaredHooksAreCalled() throws {
        let frames = HookLog(.frames)
        try Self.pass().run(frames)
        #expect(frames.records == 0 && frames.events.isEmpty && frames.connections.isEmpty)
        #expect(frames.frames == (try Self.handBuilt()).frames)
        let ended = HookLog(.connections)
        try Self.pass().run(ended)
        #expect(ended.frames == 0 && ended.events.isEmpty)
        #expect(ended.connections == (try Self.handBuilt()).connections)
    }

    @Test func aListGivesEachConsumerWhatItWouldSeeAlone() throws {
        let alone = HookLog([.frames, .events])
        try Self.pass().run(alone)
        let a = HookLog([.frames, .events])
        let b = HookLog(.connections)
        try Self.pass().run([a, b])
        #expect(a.log == alone.log)
        #expect(b.connections == (try Self.handBuilt()).connections)
    }

    @Test func aConsumerThatIsDoneStopsThePass() throws {
        let log = HookLog([.records, .frames], stopAfter: 5)
        let pass = try Self.pass(keys: try #require(LinkLayerKeys.parse("00112233445566778899AABBCCDDEEFF")).asKeys)
        pass.run(log)
        #expect(log.records == 5 && log.frames == 5)
        #expect(pass.stoppedEarly)
        #expect(log.log.last == "finish")
        // A pass that stopped early has not seen every link: no key is said to match none.
        #expect(pass.unmatchedKeys.isEmpty && pass.notes.isEmpty)
    }

    @Test func aKeyThatMatchedNoLinkIsNotedOnce() throws {
        let key = try #require(LinkLayerKeys.parse("00112233445566778899AABBCCDDEEFF"))
        let pass = try Self.pass(keys: key.asKeys)
        pass.run(HookLog(.frames))
        #expect(pass.unmatchedKeys == ["00112233445566778899aabbccddeeff"])
        #expect(pass.notes == ["note: --ltk 00112233445566778899aabbccddeeff matched no link in \(pass.name)"])
    }
}

extension LinkLayerKeys.Key {
    var asKeys: LinkLayerKeys {
        var keys = LinkLayerKeys()
        keys.add(self)
        return keys
    }
}
