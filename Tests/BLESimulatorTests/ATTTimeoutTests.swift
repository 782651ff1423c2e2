import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

/// A peripheral-manager app with one dynamic read/write characteristic that answers requests
/// only when told to: `answerAfter` nil never answers (the "forgot respond" bug), otherwise it
/// answers that long after the request reached it.
private final class SlowServer: CBPeripheralManagerDelegate {
    var manager: CBPeripheralManager!
    var answerAfter: Duration?
    var writesSeen = 0
    let world: SimulatedWorld

    init(world: SimulatedWorld) {
        self.world = world
        manager = CBPeripheralManager(delegate: self, queue: nil, world: world)
    }
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        let c = CBMutableCharacteristic(
            type: CBUUID(string: "FFF1"), properties: [.read, .write], value: nil, permissions: [.readable, .writeable])
        let s = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        s.characteristics = [c]
        peripheral.add(s)
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "FFF0")]])
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        writesSeen += 1
        guard let delay = answerAfter, let first = requests.first else { return }
        world.schedule(after: delay) { peripheral.respond(to: first, withResult: .success) }
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        request.value = Data([1])
        peripheral.respond(to: request, withResult: .success)
    }
}

/// A central that connects, discovers FFF1 and then does what the test says; it records the
/// delegate's view.
private final class Client: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    var characteristic: CBCharacteristic?
    var writeErrors: [(any Error)?] = []
    var readErrors: [(any Error)?] = []
    var disconnectErrors: [(any Error)?] = []
    /// Retries the write from inside the failed write's callback.
    var retryInCallback = false

    init(world: SimulatedWorld) { central = CBCentralManager(delegate: self, queue: nil, world: world) }

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
        characteristic = service.characteristics?.first
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        writeErrors.append(error)
        if error != nil, retryInCallback { peripheral.writeValue(Data([9]), for: characteristic, type: .withResponse) }
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        readErrors.append(error)
    }
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        disconnectErrors.append(error)
    }
}

private func connected() throws -> (SimulatedWorld, SlowServer, Client, CBPeripheral, CBCharacteristic) {
    let world = SimulatedWorld()
    let server = SlowServer(world: world)
    let client = Client(world: world)
    _ = world.run(until: { client.characteristic != nil }, timeout: .seconds(5))
    let p = try #require(client.peripheral)
    let c = try #require(client.characteristic)
    return (world, server, client, p, c)
}

@Suite("ATT transaction timeout (Core Vol 3 Part F 3.3.3)")
struct ATTTimeoutTests {
    /// Rule: "A transaction not completed within 30 seconds shall time out. Such a transaction
    /// shall be considered to have failed and the local higher layers shall be informed of this
    /// failure. No more attribute protocol requests, commands, indications or notifications shall
    /// be sent to the target device on this ATT bearer" (Core 5.4 Vol 3 Part F 3.3.3). A
    /// peripheral-manager app that never calls `respond(to:withResult:)` leads there on the
    /// central: until 30 s nothing happens and later requests wait behind the open one; at 30 s
    /// the pending write's `didWriteValueFor` gets `CBError.connectionTimeout` (CBErrorDomain 6,
    /// the simulator's choice: Apple documents no error for this), the trace records world
    /// event `att_timeout` naming the request, further commands are refused (the peripheral is
    /// `.disconnecting`), and one connection interval later the link ends (HCI 0x16, iOS ends it
    /// as public reports show: react-native-ble-plx issue 566) with `didDisconnectPeripheral`
    /// carrying the same error.
    @Test("a request the server app never answers fails after 30 s and the link is dropped")
    func unansweredRequestTimesOut() throws {
        let (world, server, client, p, c) = try connected()
        client.retryInCallback = true
        server.answerAfter = nil
        let start = world.now
        p.writeValue(Data([1]), for: c, type: .withResponse)
        p.readValue(for: c)  // queued behind the open write
        world.run(until: start + .seconds(29))
        #expect(server.writesSeen == 1)
        #expect(client.writeErrors.isEmpty && client.readErrors.isEmpty)
        #expect(p.state == .connected)
        let readsOnAir = world.trace.radioEvents.count { if case .read = $0.kind { true } else { false } }

        world.run(until: start + .seconds(31))
        #expect(client.writeErrors.count == 1)
        let error = try #require(client.writeErrors.first ?? nil) as NSError
        #expect(error.domain == CBErrorDomain && error.code == CBError.Code.connectionTimeout.rawValue)
        // The queued read never went out and gets no callback; the retry was refused.
        #expect(client.readErrors.isEmpty)
        #expect(world.trace.radioEvents.count { if case .read = $0.kind { true } else { false } } == readsOnAir)
        let refused = world.trace.apiCalls.filter { $0.call.name == "writeValue(_:for:type:)" }.last
        #expect(refused?.disposition == .misuse(.notConnected))
        #expect(refused?.context.inCallback == "peripheral(_:didWriteValueFor:error:)")
        // The link is gone, with the timeout as the reason the app hears.
        #expect(p.state == .disconnected)
        #expect(client.disconnectErrors.count == 1)
        #expect(CBError.connectionTimeout ~= (client.disconnectErrors.first ?? nil) ?? CBError(.unknown))
        let disconnection = world.trace.radioEvents.last { if case .disconnection = $0.kind { true } else { false } }
        if case .disconnection(_, let reason, let side) = disconnection?.kind {
            #expect(reason == 0x16 && side == .local)
        } else {
            Issue.record("no disconnection on the air")
        }

        // The trace names the timed-out request by its seq, and the JSONL carries the event.
        let timeout = try #require(
            world.trace.worldEvents.compactMap { e -> Int? in
                if case .attTransactionTimeout(_, let request) = e { request } else { nil }
            }.first)
        let write = try #require(
            world.trace.records.first {
                if case .radio(let e) = $0.entry, case .write(_, .request) = e.kind { true } else { false }
            })
        #expect(timeout == write.sequence)
        // In the timeline's model the request's outcome is `timeout` (not the disconnection).
        if case .radio(let e) = write.entry { #expect(e.outcome == .timeout) }
        let jsonl = world.trace.jsonl()
        #expect(jsonl.contains("\"event\":\"att_timeout\""))
        #expect(jsonl.contains("\"request\":\(write.sequence)"))
    }

    /// Rule: the timeout is 30 s exactly: a server app that answers after 29 s is slow, not
    /// failed; the write succeeds and the link stays up.
    @Test("an answer within 30 s completes the transaction; nothing times out")
    func lateAnswerWithinTimeout() throws {
        let (world, server, client, p, c) = try connected()
        server.answerAfter = .seconds(29)
        p.writeValue(Data([1]), for: c, type: .withResponse)
        world.run(for: .seconds(40))
        #expect(client.writeErrors.count == 1 && client.writeErrors[0] == nil)
        #expect(p.state == .connected)
        #expect(!world.trace.worldEvents.contains { if case .attTransactionTimeout = $0 { true } else { false } })
        // The bearer still works.
        p.readValue(for: c)
        world.run(for: .seconds(1))
        #expect(client.readErrors.count == 1 && client.readErrors[0] == nil)
    }

    /// Rule: after the timeout the server app's late answer changes nothing (the transaction is
    /// over; its request awaits no answer any more once the link is gone: misuse
    /// `no_pending_request`).
    @Test("a server answer after the timeout is not delivered")
    func answerAfterTimeoutIgnored() throws {
        let (world, server, client, p, c) = try connected()
        server.answerAfter = .seconds(35)
        p.writeValue(Data([1]), for: c, type: .withResponse)
        world.run(for: .seconds(40))
        #expect(client.writeErrors.count == 1)
        #expect(client.writeErrors.first.flatMap { $0 } is CBError)
        #expect(world.trace.managerCalls("respond(to:withResult:)").map(\.disposition) == [.misuse(.noPendingRequest)])
    }
}
