import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

/// A peripheral with one characteristic per write flavour.
private func makeWriter() -> (SimulatedPeripheral, received: () -> [[UInt8]]) {
    var received: [[UInt8]] = []
    let stream = SimulatedCharacteristic(uuid: CBUUID(string: "FFF1"), properties: [.writeWithoutResponse])
    stream.onWrite = {
        received.append($0)
        return nil
    }
    let control = SimulatedCharacteristic(uuid: CBUUID(string: "FFF2"), properties: [.write])
    let p = SimulatedPeripheral(
        address: BDAddr("C0:FF:EE:00:00:09")!, name: "Writer",
        services: [
            SimulatedService(uuid: CBUUID(string: "FFF0"), characteristics: [stream, control])
        ])
    p.advertisedServiceUUIDs = [CBUUID(string: "FFF0")]
    return (p, { received })
}

/// Connects, discovers everything, then runs `writes` once characteristics are known.
private final class Writer: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var characteristics: [CBUUID: CBCharacteristic] = [:]
    var writeResults: [(CBUUID, (any Error)?)] = []
    var readyCallbacks = 0
    var onReady: ((Writer) -> Void)?

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: [CBUUID(string: "FFF0")]) }
    }
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        self.peripheral = peripheral
        central.stopScan()
        central.connect(peripheral)
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] { characteristics[c.uuid] = c }
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        writeResults.append((characteristic.uuid, error))
    }
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        readyCallbacks += 1
        onReady?(self)
    }
}

private func connectedWriter() -> (SimulatedWorld, Writer, () -> [[UInt8]]) {
    let world = SimulatedWorld()
    let (p, received) = makeWriter()
    world.add(p)
    let app = Writer()
    app.central = CBCentralManager(delegate: app, queue: nil, world: world)
    world.run(for: .seconds(1))
    return (world, app, received)
}

@Suite("Writes as Core Bluetooth does them")
struct WriteSemanticsTests {
    @Test("a without-response flood ignoring canSend: writes beyond the buffers are dropped, not delivered")
    func floodIgnoringCanSend() {
        let (world, app, received) = connectedWriter()
        let p = try! #require(app.peripheral)
        let stream = try! #require(app.characteristics[CBUUID(string: "FFF1")])
        for i in 0..<20 { p.writeValue(Data([UInt8(i)]), for: stream, type: .withoutResponse) }
        world.run(for: .seconds(1))
        let writes = world.trace.calls("writeValue(_:for:type:)")
        #expect(writes.count == 20)
        #expect(writes.filter { $0.disposition == .performed }.count == 8)
        #expect(writes.filter { $0.disposition == .dropped(.cannotSendWriteWithoutResponse) }.count == 12)
        // The call record says canSend was false for exactly the dropped ones.
        for w in writes {
            if case .writeValue(_, _, _, _, _, _, _, let canSend) = w.call {
                #expect(canSend == (w.disposition == .performed))
            }
        }
        #expect(received() == (0..<8).map { [UInt8($0)] })
        #expect(world.trace.radio("gatt.write").count == 8)
        #expect(app.readyCallbacks == 1)
    }

    @Test("a flow-controlled writer (checks canSend, resumes in peripheralIsReady) delivers everything")
    func flowControlledWriter() {
        let (world, app, received) = connectedWriter()
        var next = 0
        let pump: (Writer) -> Void = { w in
            guard let p = w.peripheral, let c = w.characteristics[CBUUID(string: "FFF1")] else { return }
            while next < 20, p.canSendWriteWithoutResponse,
                1 <= p.maximumWriteValueLength(for: .withoutResponse)
            {
                p.writeValue(Data([UInt8(next)]), for: c, type: .withoutResponse)
                next += 1
            }
        }
        app.onReady = pump
        pump(app)
        world.run(for: .seconds(1))
        #expect(received() == (0..<20).map { [UInt8($0)] })
        #expect(!world.trace.apiCalls.contains { if case .dropped = $0.disposition { true } else { false } })
        #expect(app.readyCallbacks >= 2)
    }

    @Test("withoutResponse on a characteristic without Write Without Response is dropped with a warning")
    func withoutResponseNotSupported() {
        let (world, app, _) = connectedWriter()
        let p = try! #require(app.peripheral)
        let control = try! #require(app.characteristics[CBUUID(string: "FFF2")])
        p.writeValue(Data([1]), for: control, type: .withoutResponse)
        world.run(for: .seconds(1))
        #expect(world.trace.apiCalls.last?.disposition == .dropped(.writeTypeNotSupported))
        #expect(world.trace.radio("gatt.write").isEmpty)
        #expect(app.writeResults.isEmpty)
        #expect(world.trace.log.last?.contains("Write Without Response") == true)
    }

    @Test("withResponse on a write-without-response-only characteristic fails with writeNotPermitted")
    func withResponseNotSupported() {
        let (world, app, received) = connectedWriter()
        let p = try! #require(app.peripheral)
        let stream = try! #require(app.characteristics[CBUUID(string: "FFF1")])
        let control = try! #require(app.characteristics[CBUUID(string: "FFF2")])
        p.writeValue(Data([1]), for: stream, type: .withResponse)
        p.writeValue(Data([2]), for: control, type: .withResponse)
        world.run(for: .seconds(1))
        #expect(app.writeResults.count == 2)
        #expect(app.writeResults.first.map { CBATTError.writeNotPermitted ~= $0.1! } == true)
        #expect(app.writeResults.last?.1 == nil)
        #expect(received().isEmpty)
        let outcomes = world.trace.radioEvents.filter { if case .write = $0.kind { true } else { false } }.map(
            \.outcome)
        if case .error(_, _, let code, let handle) = outcomes.first {
            #expect(code == 0x03)
            #expect(handle == stream.handle)
        } else {
            Issue.record("first write did not fail on the air: \(outcomes)")
        }
    }

    @Test("long write: Prepare Write chunks then Execute; over 512 bytes fails")
    func longWrite() {
        let (world, app, _) = connectedWriter()
        let p = try! #require(app.peripheral)
        let control = try! #require(app.characteristics[CBUUID(string: "FFF2")])
        let value = [UInt8](repeating: 0xAB, count: 500)
        p.writeValue(Data(value), for: control, type: .withResponse)
        p.writeValue(Data(count: 513), for: control, type: .withResponse)
        world.run(for: .seconds(2))
        let variants = world.trace.radioEvents.compactMap { e -> WriteVariant? in
            if case .write(_, let v) = e.kind { v } else { nil }
        }
        // ATT_MTU 247 → 242-byte chunks: 3 prepares + execute for 500 bytes.
        #expect(variants.prefix(4) == [.prepare, .prepare, .prepare, .execute])
        #expect(app.writeResults.first?.1 == nil)
        #expect(app.writeResults.last.map { CBATTError.invalidAttributeValueLength ~= $0.1! } == true)
    }

    /// Rule: a server cannot know a long write's length before Execute Write: Prepare Write
    /// requests are queued (checked for permission only), and prepared values exceeding the
    /// attribute's maximum length (512 octets, Core Vol 3 Part F 3.2.9) are discarded at
    /// execution with an Error Response «Invalid Attribute Value Length» for the Execute Write
    /// (Vol 3 Part F 3.4.6.3). So 513 bytes at ATT_MTU 247 go out as three accepted Prepare
    /// Writes and fail at the Execute Write, whose error names the characteristic's handle.
    @Test("a >512-byte long write is refused at Execute Write, not at the first Prepare Write")
    func oversizedLongWriteFailsAtExecute() {
        let (world, app, _) = connectedWriter()
        let p = try! #require(app.peripheral)
        let control = try! #require(app.characteristics[CBUUID(string: "FFF2")])
        p.writeValue(Data(count: 513), for: control, type: .withResponse)
        world.run(for: .seconds(2))
        let writes = world.trace.radioEvents.filter { if case .write = $0.kind { true } else { false } }
        let variants = writes.compactMap { e -> WriteVariant? in if case .write(_, let v) = e.kind { v } else { nil } }
        #expect(variants == [.prepare, .prepare, .prepare, .execute])
        #expect(writes.prefix(3).allSatisfy { if case .success = $0.outcome { true } else { false } })
        if case .error(_, _, let code, let handle) = writes.last?.outcome {
            #expect(code == 0x0D)
            #expect(handle == control.handle)
        } else {
            Issue.record("the Execute Write did not fail: \(String(describing: writes.last?.outcome))")
        }
        #expect(app.writeResults.count == 1)
        #expect(app.writeResults.first.map { CBATTError.invalidAttributeValueLength ~= $0.1! } == true)
    }

    @Test("withoutResponse longer than ATT_MTU − 3 is dropped")
    func tooLongWithoutResponse() {
        let (world, app, received) = connectedWriter()
        let p = try! #require(app.peripheral)
        let stream = try! #require(app.characteristics[CBUUID(string: "FFF1")])
        p.writeValue(
            Data(count: p.maximumWriteValueLength(for: .withoutResponse) + 1), for: stream, type: .withoutResponse)
        world.run(for: .seconds(1))
        #expect(world.trace.apiCalls.last?.disposition == .dropped(.exceedsMaximumLength))
        #expect(received().isEmpty)
    }
}
