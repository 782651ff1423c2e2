import BLEBytes
import BLEPackets
import BLESimulator
import BLETimeline
import CaptureIO
import Foundation
import Testing

/// A simulated run exported as btsnoop and read back by blecap's own reader, decoder and
/// timeline builder must give back the simulator's ATT exchange: same PDUs (opcode, handle,
/// offset, value), same answers, same order, same virtual-clock times.
///
/// Checked by hand while writing this (tshark 4.x; the tests do not run it): with the exports
/// kept (`BLECAP_KEEP_EXPORTS=/tmp/dir swift test --filter BTSnoopExportTests`),
/// `tshark -r F -Y btatt` shows 21 ATT PDUs in the heart-rate session (47 frames) and 24 in
/// the article session (63 frames), the counts these tests derive from the simulator's events
/// and find in blecap's decoding. `-Y _ws.malformed` shows one frame, the heart-rate session's
/// deliberately malformed measurement (16-bit format flag, one byte; tshark's Heart Rate
/// dissector flags the value, ATT decodes), and none in the article session.
@Suite("btsnoop export round trip")
struct BTSnoopExportTests {
    @Test("the seed heart-rate session: export → CaptureFile → FrameDecoder → TimelineBuilder")
    func heartRateRoundTrip() throws {
        let (world, _, app) = heartRateWorld()
        world.run(for: .seconds(7))
        let p = try #require(app.discoveredPeripheral)
        app.centralManager.cancelPeripheralConnection(p)
        world.run(for: .seconds(1))
        let decoded = try Decoded(world, name: "heart-rate")

        let expected = world.trace.radioEvents.compactMap(ATTExchange.init)
        #expect(expected.count == 13)
        #expect(decoded.exchanges == expected)
        // The comparison can fail: one notification byte changed in the file is caught.
        var bytes = world.btsnoop()
        let measurement = try #require(heartRateNotifications.last)
        let at = try #require(
            (0..<(bytes.count - 6)).last {
                bytes[$0] == 0x1B && Array(bytes[($0 + 3)..<($0 + 3 + measurement.count)]) == measurement
            })
        bytes[at + 4] ^= 0xFF
        #expect(try Decoded(bytes: bytes, name: "tampered").exchanges != expected)
        #expect(decoded.attPDUCount == expectedATTPDUs(world))
        expectSameConnections(world, decoded)
        // The CCCD write decodes as a plain write: the central never discovered descriptors,
        // so the capture does not say that handle is a CCCD (the exchange is the same PDU).
        let cccd = try #require(world.trace.radioEvents.first { if case .subscribe = $0.kind { true } else { false } })
        let cccdHandle = try #require(ATTExchange(cccd)?.handle)
        #expect(
            decoded.events.contains {
                if case .write(let o, .request) = $0.kind { o.handle == cccdHandle } else { false }
            })
        // The ending the central asked for: HCI Disconnect, reason 0x16 local.
        let end = try #require(decoded.events.last { if case .disconnection = $0.kind { true } else { false } })
        if case .disconnection(_, let reason, let side) = end.kind {
            #expect(reason == 0x16)
            #expect(side == .local)
        }
    }

    @Test("the article's peripheral manager: long write, notifications, unsubscribe, link loss")
    func articleRoundTrip() throws {
        let (world, peripheral, central) = articleWorld()
        let p = try #require(central.discoveredPeripheral)
        central.requestTemperature()
        central.setState(true)
        world.run(for: .milliseconds(300))
        // A long write: two Prepare Writes and an Execute Write, fragmented over ACL.
        p.writeValue(
            Data((0..<300).map { UInt8(truncatingIfNeeded: $0) }),
            for: try #require(central.discoveredStateCharacteristic),
            type: .withResponse)
        world.run(for: .milliseconds(300))
        for i in 0..<3 { _ = peripheral.push("\(20 + i)°") }
        // A notification longer than 27 bytes of ACL data.
        _ = peripheral.push(String(repeating: "t", count: 60))
        world.run(for: .milliseconds(300))
        p.setNotifyValue(false, for: try #require(central.discoveredTemperatureCharacteristic))
        world.run(for: .milliseconds(300))
        world.setAdapterState(.poweredOff, of: peripheral.peripheralManager)
        world.run(for: .seconds(3))

        let decoded = try Decoded(world, name: "article")
        let expected = world.trace.radioEvents.compactMap(ATTExchange.init)
        #expect(decoded.exchanges == expected)
        #expect(decoded.attPDUCount == expectedATTPDUs(world))
        expectSameConnections(world, decoded)
        // Reassembly worked: the long notification is whole.
        #expect(decoded.events.contains { if case .notification = $0.kind { $0.value.count == 60 } else { false } })
        // Link loss: no HCI Disconnect, a Disconnection Complete with 0x08.
        let end = try #require(decoded.events.last { if case .disconnection = $0.kind { true } else { false } })
        if case .disconnection(_, let reason, let side) = end.kind {
            #expect(reason == 0x08)
            #expect(side == .linkLoss)
        }
    }

    @Test(
        "HCI framing: 27-byte ACL fragments with Packet Boundary flags, Number Of Completed Packets per sent fragment")
    func framing() throws {
        let (world, peripheral, central) = articleWorld()
        _ = peripheral.push(String(repeating: "n", count: 100))
        central.discoveredPeripheral?.writeValue(
            Data(repeating: 7, count: 100),
            for: central.discoveredStateCharacteristic!, type: .withResponse)
        world.run(for: .milliseconds(300))
        let bytes = world.btsnoop()
        #expect(Array(bytes.prefix(8)) == Array("btsnoop\0".utf8))
        #expect(Array(bytes[8..<16]) == [0, 0, 0, 1, 0, 0, 0x03, 0xEA])  // version 1, datalink 1002

        let records = Decoded.records(bytes)
        var sentFragments = 0
        var completed = 0
        var previousTime = Int64.min
        var pbSent: [UInt8] = []
        var pbReceived: [UInt8] = []
        for r in records {
            #expect(r.time >= previousTime)
            previousTime = r.time
            switch r.packet.first {
            case H4ACL:
                let pb = (r.packet[2] >> 4) & 0x3
                let length = Int(r.packet[3]) | Int(r.packet[4]) << 8
                #expect(length <= 27)
                #expect(length == r.packet.count - 5)
                if r.received {
                    pbReceived.append(pb)
                } else {
                    pbSent.append(pb)
                    sentFragments += 1
                }
            case 0x04 where r.packet[1] == 0x13:
                completed += 1
            default: break
            }
        }
        #expect(sentFragments > 0)
        #expect(completed == sentFragments)
        #expect(Set(pbSent) == [0b00, 0b01])
        #expect(Set(pbReceived) == [0b10, 0b01])
        // The first record is HCI Reset at the world's start time.
        #expect(records.first?.packet == [0x01, 0x03, 0x0C, 0x00])
        #expect(records.first?.time == world.configuration.epochMicros)
    }

    @Test("the export is deterministic and differs between different runs")
    func deterministic() {
        func run(_ push: String) -> [UInt8] {
            let (world, peripheral, central) = articleWorld()
            #expect(peripheral.push(push))
            world.run(for: .milliseconds(100))
            #expect(central.temperatures == [push])
            return world.btsnoop()
        }
        #expect(run("a") == run("a"))
        #expect(run("a") != run("b"))
    }

    /// ATT PDUs the simulator's events stand for: each request or server-initiated PDU, and
    /// each answer (response, error or confirmation) that came.
    private func expectedATTPDUs(_ world: SimulatedWorld) -> Int {
        world.trace.radioEvents.reduce(0) { n, e in
            guard ATTExchange(e) != nil else { return n }
            return n + 1 + (e.outcome.responseFrame != nil ? 1 : 0)
        }
    }

    private func expectSameConnections(_ world: SimulatedWorld, _ decoded: Decoded) {
        func connections(_ events: [TimelineEvent]) -> [String] {
            events.compactMap { e in
                switch e.kind {
                case .connectionComplete(let c): "\(e.connection ?? 0) up \(c.handle) \(e.peer?.description ?? "-")"
                case .disconnection(_, let r, let s): "\(e.connection ?? 0) down \(r) \(s.name)"
                default: nil
                }
            }
        }
        #expect(connections(decoded.events) == connections(world.trace.radioEvents))
        let ads = { (events: [TimelineEvent]) in
            events.filter { if case .advertisement(let a) = $0.kind { a.eventType != 4 } else { false } }.map(\.peer)
        }
        #expect(ads(decoded.events) == ads(world.trace.radioEvents))
    }
}

private let H4ACL: UInt8 = 0x02

/// One ATT exchange as the air shows it.
struct ATTExchange: Equatable, CustomStringConvertible {
    var connection: Int?
    var opcode: UInt8
    var handle: UInt16
    var offset: UInt16?
    var value: [UInt8]
    var outcome: String
    var time: Int64
    var latency: Int64?

    init?(_ e: TimelineEvent) {
        connection = e.connection
        time = e.time
        latency = e.outcome.latency
        offset = nil
        value = e.value.bytes
        switch e.kind {
        case .mtuExchange(let client, let server, _, _):
            opcode = 0x02
            handle = 0
            value =
                [UInt8(client & 0xFF), UInt8(client >> 8)] + (server.map { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } ?? [])
        case .discovery(let d, _):
            switch d.target {
            case .primaryServices, .secondaryServices: opcode = d.filter != nil ? 0x06 : 0x10
            case .includes, .characteristics: opcode = 0x08
            case .descriptors: opcode = 0x04
            }
            handle = d.startHandle
            value = [UInt8(d.endHandle & 0xFF), UInt8(d.endHandle >> 8)] + Array((d.filter?.description ?? "").utf8)
        case .read(let o, _), .write(let o, _), .subscribe(let o, _), .notification(let o), .indication(let o):
            opcode = o.opcode
            handle = o.handle
            offset = o.offset
        default:
            return nil
        }
        switch e.outcome {
        case .success: outcome = "success"
        case .error(_, _, let code, let h): outcome = "error \(code) at \(h)"
        case .none: outcome = "none"
        case .disconnected: outcome = "disconnected"
        case .pending, .endOfCapture: outcome = "unanswered"
        default: outcome = "\(e.outcome.name)"
        }
    }

    var description: String {
        "c\(connection ?? 0) op 0x\(String(opcode, radix: 16)) h\(handle) o\(offset.map(String.init) ?? "-") "
            + "\(value.count)B \(outcome) t\(time) l\(latency.map(String.init) ?? "-")"
    }
}

/// An export read back through blecap's pipeline.
struct Decoded {
    var events: [TimelineEvent] = []
    var exchanges: [ATTExchange] { events.compactMap(ATTExchange.init) }
    /// Complete L2CAP PDUs on the ATT channel.
    var attPDUCount = 0

    init(_ world: SimulatedWorld, name: String) throws {
        try self.init(bytes: world.btsnoop(), name: name)
    }

    init(bytes: [UInt8], name: String) throws {
        let dir = ProcessInfo.processInfo.environment["BLECAP_KEEP_EXPORTS"]
        let path = (dir ?? FileManager.default.temporaryDirectory.path) + "/blecap-sim-\(name)-\(getpid()).btsnoop"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { if dir == nil { try? FileManager.default.removeItem(atPath: path) } }
        let reader = try CaptureFile.open(path: path)
        let decoder = FrameDecoder()
        var events: [TimelineEvent] = []
        let builder = TimelineBuilder(emit: { events.append($0) })
        var att = 0
        while let r = reader.next() {
            let frame = decoder.decode(r)
            if case .malformed(let why) = frame.layer { Issue.record("frame \(r.frame) malformed: \(why)") }
            if let pdu = frame.l2cap, pdu.channel == 0x0004 { att += 1 }
            builder.feed(frame)
        }
        builder.finish()
        #expect(reader.damage == nil)
        self.events = events
        attPDUCount = att
    }

    /// The records of a btsnoop file (H4), parsed independently of CaptureIO.
    static func records(_ b: [UInt8]) -> [(packet: [UInt8], received: Bool, time: Int64)] {
        func u32(_ i: Int) -> UInt32 { b[i..<i + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        var out: [(packet: [UInt8], received: Bool, time: Int64)] = []
        var i = 16
        while i + 24 <= b.count {
            let length = Int(u32(i + 4))
            let flags = u32(i + 8)
            let t = Int64(bitPattern: UInt64(u32(i + 16)) << 32 | UInt64(u32(i + 20))) - 0x00DC_DDB3_0F2F_8000
            out.append((Array(b[(i + 24)..<(i + 24 + length)]), flags & 1 != 0, t))
            i += 24 + length
        }
        return out
    }
}
