import BLEAir
import BLEBytes
import BLEReplay
import BLESimulator
import Foundation
import TestSupport
import Testing

/// One GATT server (issue 32): the ATT server of the replay engine and the virtual controller
/// (`ReplayATTServer`) and a replayed peer in the simulator answer reads and writes from the
/// same recorded backing, so the captured client's operations on values get the same answers
/// through either front: the ATT requests as captured, and an app doing the same operations
/// through the simulator's Core Bluetooth API.
@Suite struct OneGATTServerTests {
    /// A read's answer, or a write's outcome (nil: accepted).
    enum Outcome: Equatable {
        case read(ReplayAnswer)
        case wrote(UInt8?)
    }

    /// A client operation on a characteristic value, as the app repeats it.
    struct Operation {
        var handle: UInt16
        /// nil: a read.
        var write: [UInt8]?
        var command = false
    }

    /// The captured client's operations on the peer's characteristic values, with what the
    /// replay's ATT server answers to their requests (replayed in capture order, every request
    /// answered, ATT_MTU as the exchange settles it).
    static func answeredByTheATTServer(_ m: ReplayConnectionModel) -> ([Operation], [Outcome]) {
        let values = Set(m.connection.summary.remoteDatabase.characteristics.map(\.valueHandle))
        var server = ReplayATTServer(model: m.peerServer, faults: .none)
        var bearer = ATTBearerState()
        var operations: [Operation] = []
        var outcomes: [Outcome] = []
        var prepared: [(handle: UInt16, value: [UInt8], error: UInt8?)] = []
        for step in m.steps where step.hostIsClient {
            let request = step.bytes
            let pdu = request.withByteView { ATTPDU($0) }
            let response = server.answer(request, mtu: bearer.mtu)
            let error = response.flatMap { r in r.withByteView(ATTErrorResponse.init(pdu:))?.errorCode }
            switch pdu {
            case .exchangeMTURequest:
                request.withByteView { q in
                    (response ?? []).withByteView {
                        _ = bearer.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0))
                    }
                }
            case .readRequest(let r) where values.contains(r.handle):
                operations.append(Operation(handle: r.handle))
                outcomes.append(.read(ReplayAnswer(response: response ?? [])))
            case .writeRequest(let w) where values.contains(w.handle):
                operations.append(Operation(handle: w.handle, write: w.value.toArray()))
                outcomes.append(.wrote(error))
            case .writeCommand(let w) where values.contains(w.handle):
                operations.append(Operation(handle: w.handle, write: w.value.toArray(), command: true))
            case .prepareWriteRequest(let p) where values.contains(p.handle):
                if let i = prepared.firstIndex(where: { $0.handle == p.handle }) {
                    prepared[i].value += p.partValue.toArray()
                    prepared[i].error = prepared[i].error ?? error
                } else {
                    prepared.append((p.handle, p.partValue.toArray(), error))
                }
            case .executeWriteRequest(let e):
                if e.flags == ATTExecuteWriteRequest.writeAllPreparedWrites {
                    for p in prepared {
                        operations.append(Operation(handle: p.handle, write: p.value))
                        outcomes.append(.wrote(p.error ?? error))
                    }
                }
                prepared = []
            default: break
            }
        }
        return (operations, outcomes)
    }

    /// The same operations by an app against the capture installed into a simulated world.
    static func answeredByTheSimulator(_ replay: CaptureReplay, _ m: ReplayConnectionModel, _ operations: [Operation])
        -> [Outcome]
    {
        let world = SimulatedWorld()
        replay.install(into: world, .number(m.number))
        let app = RecordingCentral(world: world, scanFor: nil, discover: nil)
        app.onReady = { app in
            guard let p = app.peripheral else { return }
            let characteristics = app.discoveredServices.flatMap { $0.characteristics ?? [] }
            for op in operations {
                guard let c = characteristics.first(where: { $0.handle == op.handle }) else { continue }
                if let value = op.write {
                    p.writeValue(Data(value), for: c, type: op.command ? .withoutResponse : .withResponse)
                } else {
                    p.readValue(for: c)
                }
            }
        }
        world.run(for: .seconds(60))
        return app.events.compactMap { e in
            switch e.event {
            case .value(_, .success(let v)): .read(.value(v))
            case .value(_, .failure(let error)): .read(.error(UInt8(error.code.rawValue)))
            case .wrote(_, let error): .wrote(error.map { UInt8($0.code.rawValue) })
            default: nil
            }
        }
    }

    @Test(arguments: [
        "clean_heart_rate.central.btsnoop", "indications_and_errors.central.btsnoop",
        "oversized_and_unchecked_writes.central.btsnoop", "cached_reconnect.central.btsnoop",
        "hr_short_notification.central.btsnoop",
    ])
    func bothFrontsAnswerTheCapturedReadsAndWritesAlike(_ name: String) throws {
        let replay = try CaptureReplay(contentsOf: URL(fileURLWithPath: Fixtures.capture("bumble/\(name)")))
        let m = try #require(replay.models.first { $0.connection.hostIsCentral })
        let (operations, att) = Self.answeredByTheATTServer(m)
        #expect(!att.isEmpty, "the capture reads or writes no value")
        #expect(Self.answeredByTheSimulator(replay, m, operations) == att)
    }

    /// A value longer than ATT_MTU − 1 read as the Read Long procedure reads it (a Read
    /// Request, then a Read Blob at the end of what came, Vol 3 Part G 4.8.3): the ATT server
    /// answers each request with its captured part; the app in the simulator gets one read (as
    /// Core Bluetooth reports it) of the two parts put together.
    @Test func aLongReadIsTheReadAndItsBlobPutTogether() throws {
        let h: UInt16 = 0x0021
        let value = (0..<30).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        var c = SyntheticConnection(peer: BDAddr(rawValue: 0xC0_11_22_33_44_55))
        c.att(ATTReadRequest(handle: h).encoded(), sent: true)
        c.att(Array(value.prefix(22)).withByteView { ATTReadResponse(value: $0).encoded() }, sent: false)
        c.att(ATTReadBlobRequest(handle: h, offset: 22).encoded(), sent: true)
        c.att(Array(value.dropFirst(22)).withByteView { ATTReadBlobResponse(partValue: $0).encoded() }, sent: false)
        let path = ReplayFixtures.temporaryCapture(c.disconnect())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CaptureReplay(contentsOf: URL(fileURLWithPath: path))
        let m = try #require(replay.models.first)

        var server = ReplayATTServer(model: m.peerServer, faults: .none)
        let first = server.answer(ATTReadRequest(handle: h).encoded()) ?? []
        let rest = server.answer(ATTReadBlobRequest(handle: h, offset: 22).encoded()) ?? []
        let parts = try [first, rest].map { r -> [UInt8] in
            guard case .value(let v) = ReplayAnswer(response: r) else { throw ReadFailed() }
            return v
        }
        #expect(parts.joined().elementsEqual(value))

        let world = SimulatedWorld()
        replay.install(into: world)
        let app = RecordingCentral(world: world, scanFor: nil, discover: nil)
        app.onReady = { app in
            let characteristics = app.discoveredServices.flatMap { $0.characteristics ?? [] }
            if let p = app.peripheral, let c = characteristics.first(where: { $0.handle == h }) { p.readValue(for: c) }
        }
        world.run(for: .seconds(10))
        let reads = app.events.compactMap { e -> [UInt8]? in
            if case .value(_, .success(let v)) = e.event { v } else { nil }
        }
        #expect(reads == [Array(parts.joined())])
    }

    struct ReadFailed: Error {}

    /// A value written both ways (Write Command, then two Write Requests, the first refused):
    /// the n-th Write Request gets the n-th captured Write Request's outcome through either
    /// front. (The simulator's replayed peer used to count commands and requests in one list,
    /// so an app's first request got the command's success and its second the refusal.)
    @Test func writeRequestsGetTheCapturedRequestsOutcomesWhateverCommandsCameBetween() throws {
        let h: UInt16 = 0x0021
        let refused = ATTErrorCode.writeNotPermitted
        var c = SyntheticConnection(peer: BDAddr(rawValue: 0xC0_11_22_33_44_66))
        c.att([0x01, 0x02].withByteView { ATTWriteCommand(handle: h, value: $0).encoded() }, sent: true)
        c.att([0x03].withByteView { ATTWriteRequest(handle: h, value: $0).encoded() }, sent: true)
        c.att(
            ATTErrorResponse(requestOpcode: .writeRequest, handle: h, errorCode: refused).encoded(), sent: false)
        c.att([0x04].withByteView { ATTWriteRequest(handle: h, value: $0).encoded() }, sent: true)
        c.att(ATTWriteResponse().encoded(), sent: false)
        let path = ReplayFixtures.temporaryCapture(c.disconnect())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let replay = try CaptureReplay(contentsOf: URL(fileURLWithPath: path))
        let m = try #require(replay.models.first)

        var server = ReplayATTServer(model: m.peerServer, faults: .none)
        let att = [[0x03], [0x04]].map { (v: [UInt8]) -> Outcome in
            let r = v.withByteView { server.answer(ATTWriteRequest(handle: h, value: $0).encoded()) } ?? []
            return .wrote(r.withByteView(ATTErrorResponse.init(pdu:))?.errorCode)
        }
        #expect(att == [.wrote(refused), .wrote(nil)])

        let world = SimulatedWorld()
        replay.install(into: world)
        let app = RecordingCentral(world: world, scanFor: nil, discover: nil)
        app.onReady = { app in
            let characteristics = app.discoveredServices.flatMap { $0.characteristics ?? [] }
            guard let p = app.peripheral, let c = characteristics.first(where: { $0.handle == h }) else { return }
            for v: [UInt8] in [[0x03], [0x04]] { p.writeValue(Data(v), for: c, type: .withResponse) }
        }
        world.run(for: .seconds(10))
        let simulated = app.events.compactMap { e -> Outcome? in
            if case .wrote(_, let error) = e.event { .wrote(error.map { UInt8($0.code.rawValue) }) } else { nil }
        }
        #expect(simulated == att)
    }
}
