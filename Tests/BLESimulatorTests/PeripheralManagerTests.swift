import BLEBytes
import BLESimulator
import BLETimeline
import Foundation
import Testing

@Suite("Peripheral-manager role")
struct PeripheralManagerTests {
    @Test("the article's peripheral: discovered by service, read, write with response, notify")
    func articleSession() throws {
        let (world, peripheral, central) = articleWorld()
        #expect(central.notifying == [true])
        #expect(peripheral.subscribed.count == 1)
        #expect(peripheral.peripheralManager.isAdvertising)
        let p = try #require(central.discoveredPeripheral)
        #expect(p.identifier == peripheral.peripheralManager.device.identifier)
        #expect(central.discoveredStateCharacteristic != nil)

        // Read: the app answers in didReceiveRead; the central sees the value.
        central.requestTemperature()
        world.run(for: .milliseconds(200))
        #expect(peripheral.reads == 1)
        #expect(central.currentTemperature == "21°")

        // Write with response: the app sees the bit, the central gets didWriteValue.
        central.setState(true)
        world.run(for: .milliseconds(200))
        #expect(peripheral.state == true)
        #expect(peripheral.writes == [[0x01]])
        #expect(central.writeResults == [nil])
        central.setState(false)
        world.run(for: .milliseconds(200))
        #expect(peripheral.state == false)

        // Notify: pushed without a request.
        #expect(peripheral.push("30°"))
        world.run(for: .milliseconds(200))
        #expect(central.temperatures == ["21°", "30°"])

        // Nothing misused on either side.
        #expect(world.trace.log.isEmpty)
        #expect(
            world.trace.peripheralManagerRecords.allSatisfy {
                if case .call(_, _, _, .misuse) = $0.entry { false } else { true }
            })

        // On the air: the read carried the app's value, the write the central's, the
        // notification the pushed one; all on the temperature/state value handles.
        let radio = world.trace.radioEvents
        let read = try #require(radio.first { if case .read = $0.kind { true } else { false } })
        #expect(read.value.bytes == Array("21°".utf8))
        #expect(read.outcome.responseFrame != nil)
        let write = try #require(radio.first { if case .write(_, .request) = $0.kind { true } else { false } })
        #expect(write.value.bytes == [0x01])
        let notification = try #require(radio.first { if case .notification = $0.kind { true } else { false } })
        #expect(notification.value.bytes == Array("30°".utf8))

        // The callback order of the peripheral side.
        let names = world.trace.managerCallbacks().map(\.name)
        #expect(
            names.prefix(3) == [
                "peripheralManagerDidUpdateState(_:)", "peripheralManager(_:didAdd:error:)",
                "peripheralManagerDidStartAdvertising(_:error:)",
            ])
        #expect(names.contains("peripheralManager(_:central:didSubscribeTo:)"))
    }

    @Test("the app's answer is the response: its latency and its error reach the central")
    func deferredAndErrorAnswers() throws {
        final class Slow: CBPeripheralManagerDelegate {
            var manager: CBPeripheralManager!
            var pending: CBATTRequest?
            let characteristic = CBMutableCharacteristic(
                type: CBUUID(string: "FFF1"), properties: [.read, .write],
                value: nil, permissions: [.readable, .writeable])
            func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
                guard peripheral.state == .poweredOn else { return }
                let s = CBMutableService(type: articleServiceUUID, primary: true)
                s.characteristics = [characteristic]
                peripheral.add(s)
                peripheral.startAdvertising([
                    CBAdvertisementDataServiceUUIDsKey: [articleServiceUUID],
                    CBAdvertisementDataLocalNameKey: "Slow",
                    CBAdvertisementDataManufacturerDataKey: Data([0x4C, 0x00]),
                ])
            }
            func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
                pending = request  // answered later
            }
            func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
                peripheral.respond(to: requests[0], withResult: .writeNotPermitted)
            }
        }
        let world = SimulatedWorld()
        let app = Slow()
        app.manager = CBPeripheralManager(delegate: app, queue: nil, world: world)
        let central = ArticleCentral(world: world)
        #expect(
            world.run(
                until: {
                    central.discoveredStateCharacteristic == nil && central.discoveredTemperatureCharacteristic != nil
                },
                timeout: .seconds(5)))
        // Only the two keys the peripheral manager supports are advertised.
        let start = try #require(world.trace.managerCalls("startAdvertising(_:)").first?.call)
        #expect(
            start
                == .startAdvertising(
                    localName: "Slow", serviceUUIDs: [articleServiceUUID],
                    ignoredKeys: [CBAdvertisementDataManufacturerDataKey]))
        #expect(central.discoveredPeripheral?.name == "Slow")

        central.requestTemperature()
        world.run(for: .seconds(2))
        let pending = try #require(app.pending)
        #expect(central.temperatures.isEmpty)  // no answer yet: no response on the air
        let read = try #require(world.trace.radioEvents.last { if case .read = $0.kind { true } else { false } })
        #expect(read.outcome == .pending)
        pending.value = Data("late".utf8)
        app.manager.respond(to: pending, withResult: .success)
        world.run(for: .milliseconds(100))
        #expect(central.temperatures == ["late"])
        let answered = try #require(world.trace.radioEvents.last { if case .read = $0.kind { true } else { false } })
        // The response went out when the app answered, 2 s after the request.
        #expect(answered.outcome.latency == 2_000_000)

        // A refused write: the central gets the ATT error.
        central.discoveredPeripheral?.writeValue(
            Data([1]), for: central.discoveredTemperatureCharacteristic!,
            type: .withResponse)
        world.run(for: .milliseconds(200))
        #expect(central.writeResults.count == 1)
        let write = try #require(world.trace.radioEvents.last { if case .write = $0.kind { true } else { false } })
        if case .error(_, _, let code, _) = write.outcome {
            #expect(code == 0x03)
        } else {
            Issue.record("\(write.outcome)")
        }
    }

    @Test("responding twice is API MISUSE and changes nothing on the air")
    func respondTwice() throws {
        let (world, peripheral, central) = articleWorld()
        peripheral.respondsTwice = true
        central.requestTemperature()
        world.run(for: .milliseconds(200))
        let responds = world.trace.managerCalls("respond(to:withResult:)")
        #expect(responds.map(\.disposition) == [.performed, .misuse(.noPendingRequest)])
        #expect(world.trace.log.count == 1)
        #expect(world.trace.log.first?.contains("API MISUSE") == true)
        #expect(central.temperatures == ["21°"])
        #expect(world.trace.radioEvents.filter { if case .read = $0.kind { true } else { false } }.count == 1)
    }

    @Test("a long write arrives as one array; answering each of its requests is misuse after the first")
    func longWriteArray() throws {
        let (world, peripheral, central) = articleWorld()
        let p = try #require(central.discoveredPeripheral)
        let state = try #require(central.discoveredStateCharacteristic)
        let mtu = p.maximumWriteValueLength(for: .withoutResponse) + 3
        let long = Data((0..<(mtu + 40)).map { UInt8(truncatingIfNeeded: $0) })
        p.writeValue(long, for: state, type: .withResponse)
        world.run(for: .seconds(1))
        // Prepare Write × 2 then Execute Write on the air; one didReceiveWrite with both parts.
        let variants = world.trace.radioEvents.compactMap { if case .write(_, let v) = $0.kind { v } else { nil } }
        #expect(variants == [.prepare, .prepare, .execute])
        #expect(peripheral.writes.count == 2)
        #expect(peripheral.writes.joined().elementsEqual(long))
        // The article's loop answers both: the second answer is misuse; the central is told once.
        #expect(
            world.trace.managerCalls("respond(to:withResult:)").map(\.disposition)
                == [.performed, .misuse(.noPendingRequest)])
        #expect(central.writeResults == [nil])
    }

    @Test("updateValue returns false when the transmit queue is full, then isReady follows")
    func backpressure() throws {
        var sim = CBPeripheralManager.Simulation()
        sim.transmitQueueCapacity = 4
        let (world, peripheral, central) = articleWorld(simulation: sim)
        var accepted: [String] = []
        var refusedAt: Int?
        for i in 0..<10 {
            if peripheral.push("\(i)") {
                accepted.append("\(i)")
            } else {
                refusedAt = i
                break
            }
        }
        #expect(accepted == ["0", "1", "2", "3"])
        #expect(refusedAt == 4)
        #expect(peripheral.readyCalls == 0)
        world.run(for: .milliseconds(100))
        #expect(peripheral.readyCalls == 1)
        #expect(peripheral.push("4"))
        world.run(for: .milliseconds(100))
        // Exactly what was accepted arrived, in order; the refused value never went out.
        #expect(central.temperatures == ["0", "1", "2", "3", "4"])
        let results = world.trace.managerCalls("updateValue(_:for:onSubscribedCentrals:)").map { c -> Bool? in
            if case .updateValue(_, _, _, _, let r) = c.call { r } else { nil }
        }
        #expect(results == [true, true, true, true, false, true])
        #expect(world.trace.managerCallbacks().filter { $0 == .isReadyToUpdateSubscribers }.count == 1)
    }

    @Test("unsubscribe and disconnection end notifications; only subscribed centrals get them")
    func unsubscribe() throws {
        let (world, peripheral, central) = articleWorld()
        // A second central connects but never subscribes.
        final class Quiet: CBCentralManagerDelegate {
            var central: CBCentralManager!
            var peripheral: CBPeripheral?
            var connected = false
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                if central.state == .poweredOn { central.scanForPeripherals(withServices: [articleServiceUUID]) }
            }
            func centralManager(
                _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
                advertisementData: [String: Any], rssi RSSI: NSNumber
            ) {
                self.peripheral = peripheral
                central.stopScan()
                central.connect(peripheral)
            }
            func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { connected = true }
        }
        let quiet = Quiet()
        quiet.central = CBCentralManager(delegate: quiet, queue: nil, world: world)
        #expect(world.run(until: { quiet.connected }, timeout: .seconds(5)))

        #expect(peripheral.push("1"))
        world.run(for: .milliseconds(100))
        #expect(central.temperatures == ["1"])
        let notifications = {
            world.trace.radioEvents.filter { if case .notification = $0.kind { true } else { false } }
        }
        #expect(notifications().count == 1)  // not to the quiet central
        #expect(peripheral.temperatureCharacteristic?.subscribedCentrals?.count == 1)

        // The central unsubscribes: didUnsubscribeFrom, and updates go to nobody.
        let p = try #require(central.discoveredPeripheral)
        p.setNotifyValue(false, for: try #require(central.discoveredTemperatureCharacteristic))
        world.run(for: .milliseconds(200))
        #expect(central.notifying == [true, false])
        #expect(peripheral.unsubscribed == 1)
        #expect(peripheral.subscribed.isEmpty)
        #expect(peripheral.temperatureCharacteristic?.subscribedCentrals?.isEmpty == true)
        #expect(peripheral.push("2"))
        world.run(for: .milliseconds(100))
        #expect(central.temperatures == ["1"])
        #expect(notifications().count == 1)
        let last = world.trace.managerCalls("updateValue(_:for:onSubscribedCentrals:)").last?.call
        #expect(
            last
                == .updateValue(
                    characteristic: articleTemperatureUUID, length: 1, maximumLength: nil, centrals: 0,
                    result: true))

        // Subscribed again, then the central disconnects: Core Bluetooth reports the unsubscribe.
        p.setNotifyValue(true, for: try #require(central.discoveredTemperatureCharacteristic))
        world.run(for: .milliseconds(200))
        #expect(peripheral.subscribed.count == 1)
        central.centralManager.cancelPeripheralConnection(p)
        world.run(for: .milliseconds(200))
        #expect(peripheral.unsubscribed == 2)
        #expect(peripheral.subscribed.isEmpty)
    }

    @Test("values longer than maximumUpdateValueLength are cut to it, with a warning")
    func maximumUpdateValueLength() throws {
        let (world, peripheral, central) = articleWorld()
        let subscriber = try #require(peripheral.subscribed.first)
        // min(central 527, device 247) − 3.
        #expect(subscriber.maximumUpdateValueLength == 244)
        let long = String(repeating: "x", count: 300)
        #expect(peripheral.push(long))
        world.run(for: .milliseconds(100))
        #expect(central.temperatures == [String(repeating: "x", count: 244)])
        #expect(world.trace.log.count == 1)
        #expect(world.trace.log.first?.contains("maximumUpdateValueLength") == true)
        let call = world.trace.managerCalls("updateValue(_:for:onSubscribedCentrals:)").last?.call
        #expect(
            call
                == .updateValue(
                    characteristic: articleTemperatureUUID, length: 300, maximumLength: 244,
                    centrals: 1, result: true))
    }

    @Test("calls before poweredOn are API MISUSE; power-off clears services and advertising")
    func notPoweredOn() throws {
        final class Eager: CBPeripheralManagerDelegate {
            var manager: CBPeripheralManager!
            var states: [CBManagerState] = []
            init(world: SimulatedWorld) {
                manager = CBPeripheralManager(delegate: self, queue: nil, world: world)
                let s = CBMutableService(type: articleServiceUUID, primary: true)
                manager.add(s)  // WRONG: before poweredOn
                manager.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [articleServiceUUID]])
            }
            func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) { states.append(peripheral.state) }
        }
        let world = SimulatedWorld()
        let app = Eager(world: world)
        let calls = world.trace.peripheralManagerRecords.compactMap {
            if case .call(let c, let s, _, let d) = $0.entry { (c.name, s, d) } else { nil }
        }
        #expect(
            calls.map(\.0) == ["CBPeripheralManager.init(delegate:queue:options:)", "add(_:)", "startAdvertising(_:)"])
        #expect(calls.dropFirst().allSatisfy { $0.1 == .unknown && $0.2 == .misuse(.notPoweredOn) })
        #expect(world.trace.log.count == 2)
        world.run(for: .seconds(1))
        #expect(app.states == [.poweredOn])
        #expect(app.manager.isAdvertising == false)

        // The article's peripheral, powered off while a central is subscribed.
        let (w2, peripheral, central) = articleWorld()
        w2.setAdapterState(.poweredOff, of: peripheral.peripheralManager)
        #expect(peripheral.peripheralManager.state == .poweredOff)
        #expect(peripheral.peripheralManager.isAdvertising == false)
        #expect(peripheral.push("x") == false)
        w2.run(for: .seconds(3))
        // The central lost the link (supervision timeout); the subscription ended with it.
        #expect(central.discoveredPeripheral == nil)
        #expect(peripheral.subscribed.isEmpty)
        let reason = w2.trace.radioEvents.compactMap {
            if case .disconnection(_, let r, _) = $0.kind { r } else { nil }
        }
        #expect(reason == [0x08])
    }

    @Test("a static value is answered by Core Bluetooth; a writable static characteristic is refused")
    func staticValues() throws {
        final class Static: CBPeripheralManagerDelegate {
            var manager: CBPeripheralManager!
            var added: [(CBUUID, Bool)] = []
            var readRequests = 0
            func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
                guard peripheral.state == .poweredOn else { return }
                let good = CBMutableService(type: articleServiceUUID, primary: true)
                good.characteristics = [
                    CBMutableCharacteristic(
                        type: articleTemperatureUUID, properties: [.read],
                        value: Data("19°".utf8), permissions: [.readable])
                ]
                let bad = CBMutableService(type: CBUUID(string: "FFE0"), primary: true)
                bad.characteristics = [
                    CBMutableCharacteristic(
                        type: CBUUID(string: "FFE1"), properties: [.read, .write],
                        value: Data([1]), permissions: [.readable, .writeable])
                ]
                peripheral.add(good)
                peripheral.add(bad)
                peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [articleServiceUUID]])
            }
            func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
                added.append((service.uuid, error == nil))
            }
            func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
                readRequests += 1
            }
        }
        let world = SimulatedWorld()
        let app = Static()
        app.manager = CBPeripheralManager(delegate: app, queue: nil, world: world)
        let central = ArticleCentral(world: world)
        #expect(world.run(until: { central.discoveredTemperatureCharacteristic != nil }, timeout: .seconds(5)))
        #expect(app.added.map(\.0) == [articleServiceUUID, CBUUID(string: "FFE0")])
        #expect(app.added.map(\.1) == [true, false])
        #expect(
            world.trace.managerCalls("add(_:)").map(\.disposition) == [.performed, .misuse(.cachedValueNotReadOnly)])
        central.requestTemperature()
        world.run(for: .milliseconds(200))
        #expect(central.temperatures == ["19°"])
        #expect(app.readRequests == 0)
    }

    @Test("peripheral-manager records render as JSONL, deterministically")
    func jsonl() {
        func run() -> String {
            let (world, peripheral, central) = articleWorld()
            central.requestTemperature()
            central.setState(true)
            world.run(for: .milliseconds(300))
            _ = peripheral.push("25°")
            world.run(for: .milliseconds(100))
            return world.trace.jsonl()
        }
        let a = run()
        #expect(a == run())
        let lines = a.split(separator: "\n").filter { $0.contains("\"source\":\"peripheral_manager\"") }
        #expect(lines.count > 8)
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["manager"] as? Int == 1)
            #expect(object?["call"] != nil || object?["callback"] != nil)
        }
    }
}
