import BLELint
import BLESimLint
import BLESimulator
import BLETimeline
import Foundation
import Testing

/// The rule ids the linter must report on a session, and nothing else. Rules are named by slug
/// and resolved through the registry. Two of them (peripheral-not-retained,
/// gatt-before-connected) are written on another branch: while they are not registered their
/// tests check that the linter received the calls they need; once they are, their ids are
/// expected like any other.
struct Expectation {
    var slugs: [String]

    var registered: Set<String> { Set(slugs.compactMap { RuleRegistry.rule(named: $0)?.descriptor.id }) }
}

/// Lints a session and checks that exactly `expected` fired; returns the report.
@discardableResult
func expectFindings(_ world: SimulatedWorld, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation)
    -> CaptureReport
{
    let report = world.trace.lint()
    let e = Expectation(slugs: expected)
    #expect(report.damage == nil && report.error == nil, sourceLocation: sourceLocation)
    #expect(
        Set(report.findings.map(\.ruleID)) == e.registered,
        "\(report.findings.map { "\($0.ruleID) \($0.message)" })", sourceLocation: sourceLocation)
    #expect(report.findings.allSatisfy { $0.evidence == .api }, sourceLocation: sourceLocation)
    // Every finding points at an API call of the trace.
    let apiSequences = Set(world.trace.records.compactMap { if case .api = $0.entry { $0.sequence } else { nil } })
    #expect(report.findings.allSatisfy { apiSequences.contains($0.firstFrame) }, sourceLocation: sourceLocation)
    return report
}

@Suite("Example centrals: right versions work and lint clean, wrong versions get exactly their rule ids")
struct ExamplesTests {
    // MARK: - Right versions

    @Test("000 heart-rate central: filtered scan, stop, connect, discover, subscribe 2A37, parse, read 2A19")
    func heartRateCentral() {
        let strap = HeartRateStrap()
        let (world, app) = world([makeLamp(), strap.device]) { HeartRateCentral() }
        world.run(for: .seconds(6))

        #expect(app.discoveredPeripheral?.identifier == strap.device.identifier)
        #expect(app.discoveredPeripheral?.state == .connected)
        #expect(app.centralManager.isScanning == false)
        #expect(app.heartRates == [72, 300, 75])
        #expect(app.rejectedMeasurements == 1)
        #expect(app.batteryLevel == 91)
        #expect(app.bodySensorLocation == 0x01)
        #expect(app.notifying == [heartRateMeasurementUUID, batteryLevelUUID])
        // The lamp was on the air but never reported to the 180D scan.
        let discovered = world.trace.callbacks.compactMap {
            if case .didDiscover(let p, _, _, _) = $0 { p } else { nil }
        }
        #expect(discovered == [strap.device.identifier])
        #expect(world.trace.log.isEmpty)

        let report = expectFindings(world, [])
        #expect(report.facts.apiCalls == world.trace.apiCalls.count)
        #expect(report.facts.apiCalls > 8)
    }

    @Test("004 temperature central: notify, read on request, write with response")
    func temperatureCentral() {
        let sensor = AmbientSensor()
        let (world, app) = world([makeLamp(), sensor.device]) { TemperatureCentral() }
        #expect(world.run(until: { app.isReady }, timeout: .seconds(5)))
        app.requestTemperature()
        app.setState(true)
        world.run(for: .seconds(1))
        #expect(app.currentTemperature == "21°")  // the read's answer
        #expect(sensor.state == true)
        #expect(app.confirmedWrites == 1 && app.failedWrites == 0)
        world.run(for: .seconds(6))
        // Then the notifications: 19°, 20°, 21° every two seconds.
        #expect(app.currentTemperature == "21°")
        #expect(app.temperatureUpdates == 4)
        app.setState(false)
        world.run(for: .seconds(1))
        #expect(sensor.state == false)
        #expect(sensor.stateWrites == 2)

        expectFindings(world, [])
    }

    @Test("flow-controlled .withoutResponse stream: every value arrives, nothing to report")
    func flowControlledStream() {
        let sensor = AmbientSensor(acceptsCommands: true)
        let (world, app) = world([sensor.device]) { FlowControlledStateStreamer() }
        #expect(world.run(until: { app.isReady }, timeout: .seconds(5)))
        app.stream((0..<40).map { Data([UInt8($0 % 2), UInt8($0)]) })
        world.run(for: .seconds(3))
        #expect(app.queue.isEmpty)
        #expect(sensor.stateWrites == 40)
        // It did run into full buffers, and waited.
        #expect(
            world.trace.callbacks.contains { if case .isReadyToSendWriteWithoutResponse = $0 { true } else { false } })
        #expect(!world.trace.apiCalls.contains { if case .dropped = $0.disposition { true } else { false } })

        expectFindings(world, [])
    }

    // MARK: - Wrong versions

    @Test("scan in init before poweredOn, for nil services: scan-before-powered-on + unfiltered-scan")
    func scansBeforePoweredOn() throws {
        let strap = HeartRateStrap()
        let (world, app) = world([strap.device]) { ScansBeforePoweredOn() }
        world.run(for: .seconds(3))
        // Ignored with API MISUSE; the later, right scan still found the strap.
        #expect(world.trace.log.contains { $0.contains("API MISUSE") && $0.contains("powered on") })
        #expect(app.discoveredPeripheral?.state == .connected)

        let report = expectFindings(world, ["scan-before-powered-on", "unfiltered-scan"])
        // Both point at the one call in init, the first API call after the manager's creation.
        let firstScan = try #require(
            world.trace.records.first {
                if case .api(let a) = $0.entry, case .scanForPeripherals = a.call { true } else { false }
            })
        #expect(report.findings.allSatisfy { $0.firstFrame == firstScan.sequence })
    }

    @Test("scan for nil services: unfiltered-scan only")
    func scansForNilServices() {
        let strap = HeartRateStrap()
        let (world, app) = world([makeLamp(), strap.device]) { ScansForNilServices() }
        world.run(for: .seconds(3))
        // The unfiltered scan reported the lamp too (and, louder and faster, first).
        let discovered = world.trace.callbacks.compactMap {
            if case .didDiscover(let p, _, _, _) = $0 { p } else { nil }
        }
        #expect(discovered.first == makeLamp().identifier)
        _ = app
        expectFindings(world, ["unfiltered-scan"])
    }

    @Test("connect while the scan still runs: scan-left-running")
    func leavesScanRunning() {
        let strap = HeartRateStrap()
        let (world, app) = world([strap.device]) { LeavesScanRunning() }
        world.run(for: .seconds(3))
        #expect(app.centralManager.isScanning)
        expectFindings(world, ["scan-left-running"])
    }

    @Test("write type the characteristic does not allow: unchecked-write")
    func writesWithoutCheckingProperties() {
        let strap = HeartRateStrap()
        let (world, app) = world([strap.device]) { WritesWithoutCheckingProperties() }
        world.run(for: .seconds(3))
        #expect(app.discoveredPeripheral?.state == .connected)  // (keeps the app alive too)
        // Dropped: nothing reached the Control Point.
        #expect(strap.controlPointWrites.isEmpty)
        #expect(world.trace.log.contains { $0.contains("Write Without Response") })
        let report = expectFindings(world, ["unchecked-write"])
        #expect(report.findings.first?.message.contains("2A39") == true)
    }

    @Test("write longer than maximumWriteValueLength: oversized-write")
    func writesWithoutCheckingLength() {
        let sensor = AmbientSensor()
        let (world, app) = world([sensor.device]) { WritesWithoutCheckingLength() }
        #expect(world.run(until: { app.isReady }, timeout: .seconds(5)))
        app.setState(true)
        world.run(for: .seconds(2))
        // The server refused the long value (Invalid Attribute Value Length).
        #expect(app.failedWrites == 1)
        #expect(sensor.state == false)
        let length = world.trace.apiCalls.compactMap {
            if case .writeValue(_, _, _, _, _, let length, _, _) = $0.call { length } else { nil }
        }
        #expect(length.count == 1 && length[0] > 512)
        expectFindings(world, ["oversized-write"])
    }

    @Test("without-response flood ignoring canSendWriteWithoutResponse: write-without-response-flow, once")
    func floodsWithoutResponse() {
        let sensor = AmbientSensor(acceptsCommands: true)
        let (world, app) = world([sensor.device]) { FloodsWithoutResponse() }
        #expect(world.run(until: { app.isReady }, timeout: .seconds(5)))
        app.stream((0..<40).map { Data([UInt8($0 % 2), UInt8($0)]) })
        world.run(for: .seconds(2))
        // Only what fit the controller's buffers went out; the rest was dropped.
        let buffers = world.configuration.writeWithoutResponseBuffers
        #expect(sensor.stateWrites == buffers)
        let report = expectFindings(world, ["write-without-response-flow"])
        #expect(report.findings.count == 1)
        #expect(report.findings.first?.message.hasPrefix("\(40 - buffers) writeValue") == true)
    }

    @Test("peripheral not retained: the linter gets connect with retained = false")
    func doesNotRetainPeripheral() {
        let strap = HeartRateStrap()
        let (world, app) = world([strap.device]) { DoesNotRetainPeripheral() }
        world.run(for: .seconds(3))
        // The connection attempt died with the object: no didConnect, the strap never connected.
        #expect(!world.isConnected(strap.device))
        #expect(!world.trace.callbacks.contains { if case .didConnect = $0 { true } else { false } })
        _ = app
        // What the peripheral-not-retained rule reads.
        let connects = world.trace.lintCalls.filter { if case .connect = $0.kind { true } else { false } }
        #expect(connects.count == 1)
        if case .connect(let state, let retained)? = connects.first?.kind {
            #expect(state == .poweredOn)
            #expect(retained == false)
        }
        #expect(connects.first?.peripheral == strap.device.identifier.uuidString)
        expectFindings(world, ["peripheral-not-retained"])
    }

    @Test("discover before didConnect: the linter gets discoverServices refused in state connecting")
    func discoversBeforeConnected() {
        let strap = HeartRateStrap()
        let (world, app) = world([strap.device]) { DiscoversBeforeConnected() }
        world.run(for: .seconds(3))
        #expect(app.discoveredPeripheral?.state == .connected)
        #expect(app.discoveredPeripheral?.services == nil)
        // What the gatt-before-connected rule reads.
        let discovers = world.trace.lintCalls.filter { if case .discoverServices = $0.kind { true } else { false } }
        #expect(discovers.count == 1)
        #expect(discovers.first?.peripheralState == .connecting)
        #expect(discovers.first?.disposition == .misuse(reason: BLELint.APICall.Disposition.notConnected))
        expectFindings(world, ["gatt-before-connected"])
    }

    @Test("descriptor write to the CCCD instead of setNotifyValue: cccd-written-directly")
    func writesTheCCCD() {
        let strap = HeartRateStrap()
        let (world, app) = world([strap.device]) { WritesTheCCCD() }
        world.run(for: .seconds(3))
        #expect(app.heartRates.isEmpty)  // refused: nothing subscribed
        let report = expectFindings(world, ["cccd-written-directly"])
        #expect(report.findings.first?.message.contains("setNotifyValue(_:for:)") == true)
    }

    @Test("a characteristic kept across a reconnect: stale-attribute")
    func keepsCharacteristicsAcrossReconnect() {
        let strap = HeartRateStrap()
        let (world, app) = world([strap.device]) { KeepsCharacteristicsAcrossReconnect() }
        world.run(for: .seconds(3))
        #expect(app.bodySensorLocation == 0x01)
        world.loseLink(strap.device)
        world.run(for: .seconds(10))
        #expect(app.connections == 2)
        let report = expectFindings(world, ["stale-attribute"])
        #expect(report.findings.first?.message.contains("readValue(for:)") == true)
        #expect(report.findings.first?.message.contains("2A38") == true)
    }

    // MARK: - The same findings from a file, as `blecap lint trace.jsonl` reads it

    @Test("a trace written to disk lints like the trace in memory")
    func traceFile() throws {
        let strap = HeartRateStrap()
        let (world, app) = world([makeLamp(), strap.device]) { ScansBeforePoweredOn() }
        world.run(for: .seconds(3))
        #expect(app.discoveredPeripheral != nil)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blecap-trace-\(UUID().uuidString).jsonl"
        ).path
        try world.trace.jsonl().write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let fromFile = CaptureLinter.lint(path: path)
        let inMemory = world.trace.lint(name: path)
        #expect(fromFile.format == SimulatorTraceReader.format)
        #expect(fromFile.error == nil && fromFile.damage == nil)
        #expect(fromFile.frames == world.trace.records.count)
        #expect(fromFile.findings == inMemory.findings)
        #expect(!fromFile.findings.isEmpty)

        // Every line decodes to the typed record the simulator wrote it from (BLETimeline's
        // SimulatorTraceLine, the one vocabulary of writer and reader).
        let written = world.trace.lines
        let decoded = try world.trace.jsonl().split(separator: "\n").map {
            try JSONDecoder().decode(SimulatorTraceLine.self, from: Data($0.utf8))
        }
        #expect(decoded.count == written.count)
        #expect(written.contains { if case .api = $0.body { true } else { false } })
        for (d, w) in zip(decoded, written) {
            #expect(d.seq == w.seq && d.timeMicros == w.timeMicros && d.source == w.source)
            switch (d.body, w.body) {
            case (.api, .api): #expect(d == w)
            case (.other(_, let df), .other(_, let wf)):
                // Foundation's decoder does not keep key order; the members are the same.
                #expect(df.sorted { $0.key < $1.key } == wf.sorted { $0.key < $1.key })
            default: Issue.record("line \(w.seq): \(d.source) read back, \(w.source) written")
            }
        }
    }
}
