import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

@Suite("Seed heart-rate central against a simulated sensor")
struct HeartRateSessionTests {
    @Test("scan by 180D, stop, connect, discover, subscribe to 2A37, parse, read 2A19")
    func fullSession() {
        let (world, sensor, app) = heartRateWorld()
        world.run(for: .seconds(8))

        #expect(app.states == [.poweredOn])
        #expect(app.connected == 1)
        #expect(app.discoveredPeripheral?.state == .connected)
        #expect(app.discoveredPeripheral?.identifier == sensor.identifier)
        #expect(app.heartRates == expectedHeartRates)
        #expect(app.rejectedMeasurements == 1)
        #expect(app.batteryLevel == 87)
        #expect(app.centralManager.isScanning == false)

        let trace = world.trace
        // The scan was filtered by 180D: the lamp advertised but was never reported.
        let scans = trace.calls("scanForPeripherals(withServices:options:)")
        #expect(scans.count == 1)
        #expect(scans.first?.call == .scanForPeripherals(services: [heartRateServiceUUID], allowDuplicates: false))
        let discovered = trace.callbacks.compactMap { if case .didDiscover(let p, _, _, _) = $0 { p } else { nil } }
        #expect(discovered == [sensor.identifier])
        // Both devices were on the air, once each (duplicates filtered), the lamp first.
        let heard = trace.radioEvents.filter { if case .advertisement = $0.kind { true } else { false } }.compactMap(
            \.peer)
        #expect(heard == [BDAddr("C0:FF:EE:00:00:02")!, sensor.address])
        // Nothing was misused; connect was made with the peripheral retained.
        #expect(trace.apiCalls.allSatisfy { $0.disposition == .performed || $0.disposition == .noEffect })
        #expect(
            trace.calls("connect(_:options:)").first?.call
                == .connect(peripheral: sensor.identifier, autoReconnect: false, retained: true))
        #expect(trace.log.isEmpty)

        // Callback order of the central's flow.
        let names = trace.callbackNames()
        let order = [
            "centralManagerDidUpdateState(_:)", "centralManager(_:didDiscover:advertisementData:rssi:)",
            "centralManager(_:didConnect:)", "peripheral(_:didDiscoverServices:)",
            "peripheral(_:didDiscoverCharacteristicsFor:error:)",
        ]
        #expect(order.compactMap { names.firstIndex(of: $0) } == order.compactMap { names.firstIndex(of: $0) }.sorted())
        #expect(names.filter { $0 == "peripheral(_:didUpdateNotificationStateFor:error:)" }.count == 2)

        // The radio timeline has the capture model's shape: MTU first, then discovery.
        let radioTypes = trace.radioEvents.map { "\($0.type)" }
        #expect(radioTypes.prefix(2) == ["scan.start", "advertisement"] || radioTypes.first == "scan.start")
        let connect = radioTypes.firstIndex(of: "connection.complete")
        #expect(connect != nil)
        #expect(connect.map { radioTypes[$0 + 1] } == "gatt.mtu")
        let subscribe = trace.radioEvents.first { if case .subscribe = $0.kind { true } else { false } }
        #expect(subscribe?.value.bytes == [0x01, 0x00])
        #expect(subscribe.map { if case .success = $0.outcome { true } else { false } } == true)
        let notifications = trace.radioEvents.filter { if case .notification = $0.kind { true } else { false } }
        #expect(notifications.map(\.value.bytes) == heartRateNotifications)
        // Frames are the records' sequence numbers.
        for r in trace.records { if case .radio(let e) = r.entry { #expect(e.frame == r.sequence) } }
    }

    @Test("MTU: 20 bytes without response until the exchange, then ATT_MTU − 3; 512 with response")
    func maximumWriteValueLength() {
        let (world, _, app) = heartRateWorld()
        #expect(world.run(until: { app.connected == 1 }, timeout: .seconds(5)))
        let p = try! #require(app.discoveredPeripheral)
        #expect(p.maximumWriteValueLength(for: .withoutResponse) == 20)
        #expect(p.maximumWriteValueLength(for: .withResponse) == 512)
        world.run(for: .seconds(1))
        // min(iOS 527, sensor 247) = 247.
        #expect(p.maximumWriteValueLength(for: .withoutResponse) == 244)
        #expect(world.trace.calls("maximumWriteValueLength(for:)").count == 3)
    }

    @Test("requests go out one at a time per connection, in call order")
    func oneOutstandingRequest() {
        let (world, _, app) = heartRateWorld()
        world.run(for: .seconds(3))
        let requests = world.trace.radioEvents.filter {
            switch $0.kind {
            case .read, .subscribe, .discovery, .mtuExchange: true
            case .write(_, let v): v != .command
            default: false
            }
        }
        #expect(requests.count >= 8)
        // Each request starts after the previous one's response frame.
        for (a, b) in zip(requests, requests.dropFirst()) {
            let answered = a.outcome.responseFrame ?? Int.max
            #expect(answered < b.frame, "request \(b.frame) overlaps \(a.frame)")
            #expect(a.time + (a.outcome.latency ?? 0) <= b.time)
        }
        // Reads answered in the order they were asked.
        let reads = world.trace.callbacks.compactMap { cb -> CBUUID? in
            if case .didUpdateValue(_, let c, _, nil) = cb, c != heartRateMeasurementUUID { c } else { nil }
        }
        #expect(reads == [CBUUID(string: "2A38"), batteryLevelUUID])
        #expect(app.batteryLevel == 87)
    }

    @Test("the same program gives the same trace, byte for byte")
    func deterministic() {
        func session() -> String {
            let (world, sensor, app) = heartRateWorld()
            world.schedule(after: .seconds(3)) { world.notify(sensor, characteristic: batteryLevelUUID, value: [86]) }
            world.run(for: .seconds(8))
            _ = app
            return world.trace.jsonl()
        }
        let a = session()
        let b = session()
        #expect(!a.isEmpty)
        #expect(a == b)
        // And it is not trivially constant: a different world gives a different trace.
        let (world, _, app) = heartRateWorld(retains: false)
        world.run(for: .seconds(8))
        _ = app
        #expect(world.trace.jsonl() != a)
        // Every line is one JSON object.
        for line in a.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any])
        }
    }
}
