import BLEBytes
import BLEPackets
import BLESimulator
import BLETimeline
import Foundation
import Testing

/// What capture replay needs from the simulator: a GATT server laid out with the captured
/// handles, captured notification streams, the peripheral ending a connection, and captured
/// advertising bytes.
@Suite("replay support")
struct ReplaySupportTests {
    // MARK: - Explicit handles

    @Test("explicit handles: discovery reports them, gaps stay, auto handles continue after the last one used")
    func explicitHandles() throws {
        let p = capturedLayoutPeripheral()
        let (world, app) = connectedWorld(p)
        world.run(for: .seconds(3))
        let cb = try #require(app.peripheral)

        // No hidden Generic Attribute service: the captured 0x1801 is an ordinary service.
        let services = try #require(cb.services)
        #expect(services.map(\.uuid) == [CBUUID(string: "1801"), CBUUID(string: "180D"), CBUUID(string: "FFF0")])
        #expect(services.map(\.handle) == [0x0001, 0x0010, 0x0030])
        let hr = services[1]
        let chars = try #require(hr.characteristics)
        #expect(chars.map(\.uuid) == [CBUUID(string: "2A37"), CBUUID(string: "2A38")])
        #expect(chars.map(\.handle) == [0x0012, 0x0016])
        // The notify characteristic named its CCCD; the Body Sensor Location has a user
        // description descriptor at its captured handle.
        #expect(chars[0].descriptors?.map(\.handle) == [0x0013])
        #expect(chars[1].descriptors?.map(\.handle) == [0x0018])
        // FFF0 named only its own handle: its characteristic follows it, and the CCCD the
        // server adds follows the value.
        let vendor = try #require(services[2].characteristics?.first)
        #expect(vendor.handle == 0x0032)
        #expect(vendor.descriptors?.map(\.handle) == [0x0033])
        #expect(p.ignoredHandles.isEmpty)

        // Discovery on the air carries the same handles: the service's end handle (0x001F)
        // bounds characteristic discovery.
        let discoveries = world.trace.radioEvents.compactMap { e -> DiscoveryInfo? in
            if case .discovery(let d, _) = e.kind { d } else { nil }
        }
        #expect(
            discoveries.contains { $0.target == .characteristics && $0.startHandle == 0x10 && $0.endHandle == 0x1F })
        // Descriptor discovery of 2A38 searches up to the service's end, past its descriptor.
        #expect(discoveries.contains { $0.target == .descriptors && $0.startHandle == 0x17 && $0.endHandle == 0x1F })
    }

    @Test("the btsnoop export answers discovery from the explicit handles, read back by blecap's decoder")
    func explicitHandlesExport() throws {
        let p = capturedLayoutPeripheral()
        let (world, app) = connectedWorld(p)
        world.run(for: .seconds(3))
        let cb = try #require(app.peripheral)
        app.central.cancelPeripheralConnection(cb)
        world.run(for: .seconds(1))

        let decoded = try Decoded(world, name: "explicit-handles")
        #expect(decoded.exchanges == world.trace.radioEvents.compactMap(ATTExchange.init))
        // The Read By Group Type response lists every primary service with its handle range.
        let records = Decoded.records(world.btsnoop())
        let groups = try #require(
            records.compactMap { r -> [UInt8]? in
                let att = Array(r.packet.dropFirst(9))
                return r.received && r.packet.first == 0x02 && att.first == 0x11 ? att : nil
            }.first)
        // opcode, length 6, then (start, end, UUID16) per service.
        #expect(
            groups == [
                0x11, 6, 0x01, 0x00, 0x05, 0x00, 0x01, 0x18, 0x10, 0x00, 0x1F, 0x00, 0x0D, 0x18,
                0x30, 0x00, 0x33, 0x00, 0xF0, 0xFF,
            ])
    }

    @Test("duplicate, overlapping, out-of-order and reserved handles: the earlier declaration wins, nothing traps")
    func conflictingHandles() throws {
        let a = SimulatedCharacteristic(
            uuid: CBUUID(string: "AAA1"), properties: [.read], declarationHandle: 0x21,
            valueHandle: 0x22)
        // Its value handle is taken by `a`'s: moved to the next free handles.
        let b = SimulatedCharacteristic(uuid: CBUUID(string: "AAA2"), properties: [.read], valueHandle: 0x22)
        // Zero is reserved.
        let c = SimulatedCharacteristic(uuid: CBUUID(string: "AAA3"), properties: [.read], declarationHandle: 0)
        let first = SimulatedService(
            uuid: CBUUID(string: "AAA0"), characteristics: [a, b, c], handle: 0x20,
            endHandle: 0x2F)
        // Starts inside the first service's group (which ends at 0x2F): moved after it.
        let second = SimulatedService(
            uuid: CBUUID(string: "BBB0"),
            characteristics: [
                SimulatedCharacteristic(uuid: CBUUID(string: "BBB1"), properties: [.read])
            ], handle: 0x28)
        // An end handle below its own last attribute: ignored.
        let third = SimulatedService(
            uuid: CBUUID(string: "CCC0"),
            characteristics: [
                SimulatedCharacteristic(uuid: CBUUID(string: "CCC1"), properties: [.read], valueHandle: 0x50)
            ], handle: 0x40, endHandle: 0x45)
        let p = SimulatedPeripheral(address: BDAddr("C0:00:00:00:00:01")!, services: [first, second, third])
        p.providesGenericAttributeService = false
        p.advertisedServiceUUIDs = [CBUUID(string: "AAA0")]
        #expect(p.ignoredHandles == [0x22, 0x00, 0x28, 0x45])
        #expect(p.omittedAttributeCount == 0)

        let (world, app) = connectedWorld(p, scanFor: CBUUID(string: "AAA0"))
        world.run(for: .seconds(3))
        let services = try #require(app.peripheral?.services)
        #expect(services.map(\.handle) == [0x20, 0x30, 0x40])
        #expect(services[0].characteristics?.map(\.handle) == [0x22, 0x24, 0x26])
        #expect(services[1].characteristics?.map(\.handle) == [0x32])
        // A value handle alone puts the declaration just before it.
        #expect(services[2].characteristics?.map(\.handle) == [0x50])
        // Every value handle answers its own characteristic's reads.
        #expect(app.readErrors.isEmpty)
        #expect(app.reads == 5)
    }

    @Test("handles run out at 0xFFFF: the rest is left out, not wrapped")
    func handleExhaustion() {
        let p = SimulatedPeripheral(
            address: BDAddr("C0:00:00:00:00:02")!,
            services: [
                SimulatedService(
                    uuid: CBUUID(string: "AAA0"),
                    characteristics: [
                        SimulatedCharacteristic(
                            uuid: CBUUID(string: "AAA1"), properties: [.read], declarationHandle: 0xFFFD),
                        SimulatedCharacteristic(
                            uuid: CBUUID(string: "AAA2"), properties: [.notify],
                            descriptors: [SimulatedDescriptor(uuid: CBUUID(string: "2901"))]),
                    ], handle: 0xFFFC),
                SimulatedService(uuid: CBUUID(string: "BBB0"), characteristics: []),
            ])
        // AAA1 takes 0xFFFD–0xFFFE; AAA2 gets its declaration at 0xFFFF and nothing more.
        #expect(p.omittedAttributeCount == 2 + 1 + 1)
        #expect(p.ignoredHandles.isEmpty)
    }

    @Test("arbitrary explicit handles (random, seeded): no trap, the table stays strictly increasing")
    func randomHandles() throws {
        var seed: UInt64 = 0x5EED
        func next(_ bound: UInt64) -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (seed >> 33) % bound
        }
        func handle() -> UInt16? {
            switch next(6) {
            case 0: nil
            case 1: 0
            case 2: 0xFFFF - UInt16(next(4))
            default: UInt16(next(0x60))
            }
        }
        var checked = 0
        for round in 0..<200 {
            let services = (0..<Int(next(4))).map { _ in
                SimulatedService(
                    uuid: CBUUID(string: "AA0\(next(10))"),
                    characteristics: (0..<Int(next(4))).map { _ in
                        SimulatedCharacteristic(
                            uuid: CBUUID(string: "BB0\(next(10))"),
                            properties: next(2) == 0 ? [.read] : [.read, .notify],
                            descriptors: (0..<Int(next(3))).map { _ in
                                SimulatedDescriptor(
                                    uuid: CBUUID(string: next(2) == 0 ? "2901" : "2902"), handle: handle())
                            },
                            declarationHandle: handle(), valueHandle: handle())
                    }, handle: handle(), endHandle: handle())
            }
            let p = SimulatedPeripheral(address: BDAddr(rawValue: UInt64(0xC0_0000_0000 + round)), services: services)
            p.providesGenericAttributeService = next(2) == 0
            p.advertisedServiceUUIDs = services.first.map { [$0.uuid] } ?? []
            // Every handle the server uses, in table order, must increase.
            let (world, app) = connectedWorld(p, scanFor: services.first?.uuid ?? heartRateServiceUUID)
            withExtendedLifetime(app) { world.run(for: .seconds(2)) }
            guard !services.isEmpty, p.omittedAttributeCount == 0 else { continue }
            let discovered = app.peripheral?.services ?? []
            if discovered.count == services.count { checked += 1 }
            var last: UInt16 = 0
            for s in discovered {
                #expect(s.handle > last, "round \(round)")
                last = s.handle
                for c in s.characteristics ?? [] {
                    #expect(c.handle > last, "round \(round)")
                    last = c.handle
                    for d in c.descriptors ?? [] {
                        #expect(d.handle > last, "round \(round)")
                        last = d.handle
                    }
                }
            }
        }
        // A good share of rounds got as far as a full discovery (the others had no services
        // or ran out of handles near 0xFFFF, which the loop skips).
        #expect(checked >= 40)
    }

    @Test("a CCCD is added when none is defined: after the value, or after explicitly placed descriptors")
    func automaticCCCD() throws {
        let placed = SimulatedCharacteristic(
            uuid: CBUUID(string: "AAA1"), properties: [.indicate],
            descriptors: [
                SimulatedDescriptor(
                    uuid: CBUUID(string: "2901"),
                    value: Array("x".utf8), handle: 0x13)
            ],
            valueHandle: 0x12)
        let plain = SimulatedCharacteristic(
            uuid: CBUUID(string: "AAA2"), properties: [.notify],
            descriptors: [SimulatedDescriptor(uuid: CBUUID(string: "2901"))])
        let p = SimulatedPeripheral(
            address: BDAddr("C0:00:00:00:00:03")!,
            services: [
                SimulatedService(uuid: CBUUID(string: "AAA0"), characteristics: [placed, plain], handle: 0x10)
            ])
        p.advertisedServiceUUIDs = [CBUUID(string: "AAA0")]
        let (world, app) = connectedWorld(p, scanFor: CBUUID(string: "AAA0"))
        world.run(for: .seconds(3))
        let chars = try #require(app.peripheral?.services?.first?.characteristics)
        #expect(chars.map(\.handle) == [0x12, 0x16])
        #expect(chars[0].descriptors?.map(\.uuid) == [CBUUID(string: "2901"), CBUUID(string: "2902")])
        #expect(chars[0].descriptors?.map(\.handle) == [0x13, 0x14])
        #expect(chars[1].descriptors?.map(\.uuid) == [CBUUID(string: "2902"), CBUUID(string: "2901")])
        #expect(chars[1].descriptors?.map(\.handle) == [0x17, 0x18])
        // Subscribing writes the added CCCDs, at their handles.
        let subscribed = world.trace.radioEvents.compactMap { e -> UInt16? in
            if case .subscribe(let o, _) = e.kind, e.outcome.responseFrame != nil { o.handle } else { nil }
        }
        #expect(subscribed == [0x14, 0x17])
        #expect(chars.allSatisfy { $0.isNotifying })
    }

    @Test("without the generated Generic Attribute service, Service Changed uses the captured one or is skipped")
    func serviceChangedWithoutGeneratedService() throws {
        // The captured database's own 0x1801 with Service Changed at 0x0003.
        let withSC = capturedLayoutPeripheral()
        let (world, app) = connectedWorld(withSC)
        world.run(for: .seconds(3))
        world.changeServices(of: withSC, to: withSC.services)
        world.run(for: .milliseconds(100))
        let indications = world.trace.radioEvents.compactMap { e -> UInt16? in
            if case .indication(let o) = e.kind { o.handle } else { nil }
        }
        #expect(indications == [0x0003])
        #expect(world.trace.callbacks.contains { if case .didModifyServices = $0 { true } else { false } })

        // A captured database without Service Changed: nothing on the air, nothing reported.
        let without = SimulatedPeripheral(
            address: BDAddr("C0:00:00:00:00:04")!,
            services: [
                SimulatedService(
                    uuid: heartRateServiceUUID,
                    characteristics: [
                        SimulatedCharacteristic(
                            uuid: heartRateMeasurementUUID, properties: [.notify], valueHandle: 0x0C)
                    ], handle: 0x0A)
            ])
        without.providesGenericAttributeService = false
        without.advertisedServiceUUIDs = [heartRateServiceUUID]
        let (world2, app2) = connectedWorld(without)
        world2.run(for: .seconds(3))
        #expect(app2.peripheral?.services?.map(\.handle) == [0x0A])
        world2.changeServices(of: without, to: [])
        world2.run(for: .milliseconds(100))
        #expect(!world2.trace.radioEvents.contains { if case .indication = $0.kind { true } else { false } })
        #expect(!world2.trace.callbacks.contains { if case .didModifyServices = $0 { true } else { false } })
        #expect(world2.trace.worldEvents.contains(.servicesChanged(address: without.address.description)))
        withExtendedLifetime(app) {}
    }

    @Test("the default layout still starts with the hidden Generic Attribute service at 1–4")
    func defaultLayoutUnchanged() throws {
        let (world, app) = connectedWorld(makeHeartRateSensor())
        world.run(for: .seconds(3))
        let services = try #require(app.peripheral?.services)
        // 1–4 hidden; Heart Rate 5 (Measurement 6/7, CCCD 8; Location 9/10); Battery 11.
        #expect(services.map(\.handle) == [5, 11])
        #expect(services[0].characteristics?.map(\.handle) == [7, 10])
        #expect(services[0].characteristics?.first?.descriptors?.map(\.handle) == [8])
        #expect(services[1].characteristics?.map(\.handle) == [13])
    }

    // MARK: - Recorded notification streams

    @Test("a recorded stream: value i goes out offset_i after the subscription, again on each subscription")
    func recordedStream() throws {
        let values: [(offset: Duration, value: [UInt8])] = [
            (.milliseconds(40), [0x00, 72]), (.milliseconds(5), [0x00, 70]), (.milliseconds(40), [0x00, 73]),
            (.milliseconds(900), [0x00, 80]),
        ]
        let sensor = makeHeartRateSensor()
        sensor.notificationSources = [.recorded(characteristic: heartRateMeasurementUUID, values: values)]
        let (world, app) = connectedWorld(sensor, subscribe: false)
        world.run(for: .seconds(2))
        let measurement = try #require(app.characteristic(heartRateMeasurementUUID))
        let cb = try #require(app.peripheral)
        cb.setNotifyValue(true, for: measurement)
        world.run(for: .milliseconds(500))
        // Unsubscribe before the 900 ms value: it never goes out; subscribing again replays.
        cb.setNotifyValue(false, for: measurement)
        world.run(for: .milliseconds(600))
        cb.setNotifyValue(true, for: measurement)
        world.run(for: .seconds(2))

        let subscriptions = world.trace.records.compactMap { r -> (time: Int64, on: Bool)? in
            if case .radio(let e) = r.entry, case .subscribe(_, let cfg) = e.kind { (r.time, cfg != 0) } else { nil }
        }
        #expect(subscriptions.map(\.on) == [true, false, true])
        let sent = world.trace.records.compactMap { r -> (time: Int64, value: [UInt8])? in
            if case .radio(let e) = r.entry, case .notification = e.kind { (r.time, e.value.bytes) } else { nil }
        }
        let first = subscriptions[0].time
        let again = subscriptions[2].time
        // Sorted by offset; equal offsets keep their order.
        #expect(
            sent.map(\.value) == [
                [0x00, 70], [0x00, 72], [0x00, 73], [0x00, 70], [0x00, 72], [0x00, 73],
                [0x00, 80],
            ])
        #expect(
            sent.map(\.time) == [
                first + 5_000, first + 40_000, first + 40_000, again + 5_000, again + 40_000,
                again + 40_000, again + 900_000,
            ])
        #expect(app.values[heartRateMeasurementUUID]?.count == 7)
    }

    @Test("a source targets one of two same-UUID characteristics by value handle")
    func sourceByValueHandle() throws {
        let uuid = CBUUID(string: "FFF1")
        let p = SimulatedPeripheral(
            address: BDAddr("C0:00:00:00:00:05")!,
            services: [
                SimulatedService(
                    uuid: CBUUID(string: "FFF0"),
                    characteristics: [
                        SimulatedCharacteristic(uuid: uuid, properties: [.notify], valueHandle: 0x0C),
                        SimulatedCharacteristic(uuid: uuid, properties: [.notify], valueHandle: 0x0F),
                    ], handle: 0x0A)
            ])
        p.advertisedServiceUUIDs = [CBUUID(string: "FFF0")]
        p.notificationSources = [
            .recorded(characteristic: uuid, valueHandle: 0x0F, values: [(.milliseconds(10), [0xBB])]),
            .init(characteristic: uuid, interval: .milliseconds(20), count: 2, valueHandle: 0x0C) {
                [0xA0 + UInt8($0)]
            },
            // Names a handle whose characteristic has another UUID: feeds nothing.
            .recorded(characteristic: CBUUID(string: "FFF9"), valueHandle: 0x0C, values: [(.zero, [0xEE])]),
        ]
        let (world, app) = connectedWorld(p, scanFor: CBUUID(string: "FFF0"))
        world.run(for: .seconds(3))
        let byHandle = Dictionary(
            grouping: world.trace.radioEvents.compactMap { e -> (UInt16, [UInt8])? in
                if case .notification(let o) = e.kind { (o.handle, e.value.bytes) } else { nil }
            }, by: \.0
        ).mapValues { $0.map(\.1) }
        #expect(byHandle == [0x0C: [[0xA0], [0xA1]], 0x0F: [[0xBB]]])
        // The world's one-off notify can name the handle too.
        world.notify(p, characteristic: uuid, valueHandle: 0x0F, value: [0xCC])
        let last = try #require(world.trace.radioEvents.last)
        if case .notification(let o) = last.kind { #expect(o.handle == 0x0F) } else { Issue.record("no notification") }
        withExtendedLifetime(app) {}
    }

    @Test("indicate: indications where the client enabled them, notifications where Core Bluetooth chose those")
    func recordedIndications() throws {
        let indicateOnly = SimulatedCharacteristic(uuid: CBUUID(string: "AAA1"), properties: [.indicate])
        let both = SimulatedCharacteristic(uuid: CBUUID(string: "AAA2"), properties: [.notify, .indicate])
        let p = SimulatedPeripheral(
            address: BDAddr("C0:00:00:00:00:06")!,
            services: [
                SimulatedService(uuid: CBUUID(string: "AAA0"), characteristics: [indicateOnly, both])
            ])
        p.advertisedServiceUUIDs = [CBUUID(string: "AAA0")]
        p.notificationSources = [
            .recorded(characteristic: CBUUID(string: "AAA1"), values: [(.milliseconds(1), [1])], indicate: true),
            .recorded(characteristic: CBUUID(string: "AAA2"), values: [(.milliseconds(1), [2])], indicate: true),
        ]
        let (world, app) = connectedWorld(p, scanFor: CBUUID(string: "AAA0"))
        withExtendedLifetime(app) { world.run(for: .seconds(3)) }
        let kinds = world.trace.radioEvents.compactMap { e -> String? in
            switch e.kind {
            case .indication: "indication \(e.value.bytes)"
            case .notification: "notification \(e.value.bytes)"
            default: nil
            }
        }
        // Core Bluetooth writes 0x0002 for an indicate-only characteristic, 0x0001 otherwise.
        #expect(kinds == ["indication [1]", "notification [2]"])
    }

    // MARK: - Peripheral-initiated disconnection

    @Test("the peripheral disconnects: remote reason on the air, CBError.peripheralDisconnected, no HCI Disconnect")
    func peripheralDisconnects() throws {
        let sensor = makeHeartRateSensor()
        let (world, app) = connectedWorld(sensor)
        world.run(for: .milliseconds(2500))
        let cb = try #require(app.peripheral)
        #expect(cb.state == .connected)
        world.disconnect(sensor)
        #expect(cb.state == .disconnected)
        #expect(!world.isConnected(sensor))
        let error = try #require(app.disconnectErrors.first ?? nil)
        #expect(app.disconnectErrors.count == 1)
        #expect((error as? CBError)?.code == .peripheralDisconnected)
        #expect(CBError.peripheralDisconnected ~= error)
        #expect(
            world.trace.worldEvents.contains(.peripheralDisconnected(address: sensor.address.description, reason: 0x13))
        )
        let end = try #require(
            world.trace.radioEvents.last { if case .disconnection = $0.kind { true } else { false } })
        guard case .disconnection(_, let reason, let side) = end.kind else { return }
        #expect(reason == 0x13)
        #expect(side == .remote)
        // Nothing more from the sensor's notification source after the end.
        let notifications = world.trace.radioEvents.filter { if case .notification = $0.kind { true } else { false } }
            .count
        world.run(for: .seconds(5))
        #expect(
            world.trace.radioEvents.filter { if case .notification = $0.kind { true } else { false } }.count
                == notifications)

        // The export: Disconnection Complete with 0x13 and no HCI Disconnect command; blecap
        // reads it back as a remote disconnection.
        let records = Decoded.records(world.btsnoop())
        #expect(!records.contains { $0.packet.prefix(3) == [0x01, 0x06, 0x04] })
        #expect(records.contains { $0.packet.first == 0x04 && $0.packet[1] == 0x05 && $0.packet.last == 0x13 })
        let decoded = try Decoded(world, name: "remote-disconnect")
        let decodedEnd = try #require(decoded.events.last { if case .disconnection = $0.kind { true } else { false } })
        if case .disconnection(_, let r, let s) = decodedEnd.kind {
            #expect(r == 0x13)
            #expect(s == .remote)
        }
    }

    @Test("another reason code is carried as given; a peripheral without connections changes nothing")
    func peripheralDisconnectsOtherReason() throws {
        let sensor = makeHeartRateSensor()
        let (world, app) = connectedWorld(sensor)
        world.disconnect(sensor, reason: 0x15)  // before any connection
        #expect(app.disconnectErrors.isEmpty)
        #expect(!world.trace.radioEvents.contains { if case .disconnection = $0.kind { true } else { false } })
        world.run(for: .milliseconds(2500))
        world.disconnect(sensor, reason: 0x15)
        let end = try #require(
            world.trace.radioEvents.last { if case .disconnection = $0.kind { true } else { false } })
        if case .disconnection(_, let reason, let side) = end.kind {
            #expect(reason == 0x15)
            #expect(side == .remote)
        }
        #expect(app.disconnectErrors.count == 1)
        #expect(
            world.trace.jsonl().contains(
                "\"event\":\"peripheral_disconnected\",\"address\":\"D8:0D:18:00:00:01\",\"reason\":21"))
    }

    @Test("with auto-reconnect, a peripheral's disconnection reports isReconnecting and the system connects again")
    func peripheralDisconnectsAutoReconnect() throws {
        let sensor = makeHeartRateSensor()
        let (world, app) = connectedWorld(sensor)
        app.autoReconnect = true
        world.run(for: .milliseconds(2500))
        #expect(app.connections == 1)
        world.disconnect(sensor)
        #expect(app.reconnecting == [true])
        #expect(app.peripheral?.state == .connecting)
        world.run(for: .seconds(1))
        #expect(app.connections == 2)
        #expect(app.peripheral?.state == .connected)
    }

    // MARK: - Captured advertising bytes

    @Test("without an override the fields make the AD structures, as blecap's own decoder reads them")
    func synthesizedAdvertisingData() throws {
        let sensor = makeHeartRateSensor()
        let custom = CBUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        sensor.advertisedServiceUUIDs = [heartRateServiceUUID, custom, batteryServiceUUID]
        sensor.localName = "HRM-7"
        sensor.txPowerLevel = -4
        sensor.serviceData = [(uuid: batteryServiceUUID, data: [87])]
        sensor.manufacturerData = [0x4C, 0x00, 0x01, 0x02]
        let (world, app) = connectedWorld(sensor)
        withExtendedLifetime(app) { world.run(for: .seconds(1)) }
        let ad = try #require(
            world.trace.radioEvents.first { if case .advertisement = $0.kind { true } else { false } })
        let bytes = ad.value.bytes
        try bytes.withByteView { view in
            let data = AdvertisingData(view)
            if case .complete = data.termination {} else { Issue.record("AD structures not well formed: \(bytes)") }
            #expect(data.flags?.rawValue == 0x06)
            #expect(
                Array(data.serviceUUIDs) == [heartRateServiceUUID, batteryServiceUUID, custom].map(\.bluetoothUUID))
            #expect(data.localName.map { String(decoding: $0.toArray(), as: UTF8.self) } == "HRM-7")
            #expect(data.txPowerLevel == -4)
            let m = try #require(data.manufacturerData)
            #expect(m.companyID == 0x004C)
            #expect(m.data.toArray() == [0x01, 0x02])
            let sd = Array(data.serviceData)
            #expect(sd.count == 1)
            #expect(sd.first?.uuid == batteryServiceUUID.bluetoothUUID)
            #expect(sd.first?.data.toArray() == [87])
        }
    }

    @Test("advertisingDataOverride goes on the air and into the export; the fields still make advertisementData")
    func advertisingOverride() throws {
        let sensor = makeHeartRateSensor()
        // Flags, a complete 16-bit UUID list, a 26-byte manufacturer structure and a name: 37
        // bytes, more than one legacy PDU carries.
        let flags: [UInt8] = [0x02, 0x01, 0x06]
        let uuids: [UInt8] = [0x03, 0x03, 0x0D, 0x18]
        let manufacturer: [UInt8] = [0x19, 0xFF, 0x4C, 0x00] + Array(0..<22)
        let name: [UInt8] = [0x03, 0x09] + Array("Ca".utf8)
        let captured = flags + uuids + manufacturer + name
        sensor.advertisingDataOverride = captured
        sensor.localName = "FromFields"
        let (world, app) = connectedWorld(sensor)
        world.run(for: .seconds(1))
        let ad = try #require(
            world.trace.radioEvents.first { if case .advertisement = $0.kind { true } else { false } })
        #expect(ad.value.bytes == captured)
        #expect(app.advertisementData?[CBAdvertisementDataLocalNameKey] as? String == "FromFields")

        // The export splits at structure boundaries: flags + UUIDs + manufacturer (33 bytes)
        // do not fit 31, so the manufacturer structure and the name go in the scan response.
        let reports = Decoded.records(world.btsnoop()).filter {
            $0.packet.count > 3 && $0.packet[1] == 0x3E && $0.packet[3] == 0x02
        }
        let data = reports.map { r -> [UInt8] in
            let length = Int(r.packet[13])
            return Array(r.packet[14..<(14 + length)])
        }
        #expect(data.first == flags + uuids)
        #expect(data.dropFirst().first == manufacturer + name)
    }
}

// MARK: - Fixtures

/// A database as a capture shows it: the device's own Generic Attribute service at 1–5 with
/// Service Changed, Heart Rate at 0x10–0x1F with gaps, a vendor service with only its start
/// handle named.
private func capturedLayoutPeripheral() -> SimulatedPeripheral {
    let gatt = SimulatedService(
        uuid: CBUUID(string: "1801"),
        characteristics: [
            SimulatedCharacteristic(
                uuid: CBUUID(string: "2A05"), properties: [.indicate],
                descriptors: [SimulatedDescriptor(uuid: CBUUID(string: "2902"), handle: 0x04)],
                declarationHandle: 0x02, valueHandle: 0x03)
        ], handle: 0x01, endHandle: 0x05)
    let hr = SimulatedService(
        uuid: heartRateServiceUUID,
        characteristics: [
            SimulatedCharacteristic(
                uuid: heartRateMeasurementUUID, properties: [.notify],
                descriptors: [SimulatedDescriptor(uuid: CBUUID(string: "2902"), handle: 0x13)],
                declarationHandle: 0x11, valueHandle: 0x12),
            SimulatedCharacteristic(
                uuid: CBUUID(string: "2A38"), properties: [.read], value: [0x01],
                descriptors: [
                    SimulatedDescriptor(
                        uuid: CBUUID(string: "2901"), value: Array("loc".utf8),
                        handle: 0x18)
                ],
                valueHandle: 0x16),
        ], handle: 0x10, endHandle: 0x1F)
    let vendor = SimulatedService(
        uuid: CBUUID(string: "FFF0"),
        characteristics: [
            SimulatedCharacteristic(uuid: CBUUID(string: "FFF1"), properties: [.read, .notify])
        ], handle: 0x30)
    let p = SimulatedPeripheral(address: BDAddr("D8:0D:18:00:00:01")!, name: "HRM", services: [gatt, hr, vendor])
    p.providesGenericAttributeService = false
    p.advertisedServiceUUIDs = [heartRateServiceUUID]
    return p
}

/// A world with `peripheral` and a central that scans for `scanFor`, connects, discovers
/// everything (services, characteristics, descriptors), reads what is readable and (unless
/// `subscribe` is false) subscribes to what notifies or indicates.
private func connectedWorld(
    _ peripheral: SimulatedPeripheral, scanFor: CBUUID = heartRateServiceUUID,
    subscribe: Bool = true
) -> (SimulatedWorld, DiscoveringCentral) {
    let world = SimulatedWorld()
    world.add(peripheral)
    let app = DiscoveringCentral(service: scanFor, subscribe: subscribe)
    app.central = CBCentralManager(delegate: app, queue: nil, world: world)
    return (world, app)
}

private final class DiscoveringCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    let service: CBUUID
    let subscribe: Bool
    var advertisementData: [String: Any]?
    var disconnectErrors: [(any Error)?] = []
    var reconnecting: [Bool] = []
    var connections = 0
    var autoReconnect = false
    var reads = 0
    var readErrors: [any Error] = []
    var values: [CBUUID: [Data]] = [:]

    init(service: CBUUID, subscribe: Bool) {
        self.service = service
        self.subscribe = subscribe
    }

    func characteristic(_ uuid: CBUUID) -> CBCharacteristic? {
        peripheral?.services?.lazy.compactMap { $0.characteristics?.first { $0.uuid == uuid } }.first
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { central.scanForPeripherals(withServices: [service]) }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        self.peripheral = peripheral
        self.advertisementData = advertisementData
        central.stopScan()
        central.connect(peripheral, options: [CBConnectPeripheralOptionEnableAutoReconnect: autoReconnect])
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connections += 1
        peripheral.delegate = self
        peripheral.discoverServices(nil)
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        disconnectErrors.append(error)
        reconnecting.append(isReconnecting)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] {
            peripheral.discoverDescriptors(for: c)
            if c.properties.contains(.read) { peripheral.readValue(for: c) }
            if subscribe, !c.properties.isDisjoint(with: [.notify, .indicate]) {
                peripheral.setNotifyValue(true, for: c)
            }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        if let error {
            readErrors.append(error)
        } else if let v = characteristic.value {
            values[characteristic.uuid, default: []].append(v)
        }
        if characteristic.properties.contains(.read) { reads += 1 }
    }
}
