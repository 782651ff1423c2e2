import BLELint
import BLETimeline
import Foundation
import Testing

/// Trace lines in the simulator's JSONL format (docs/simulator-trace.md), written by hand so each
/// case changes one field.
enum TraceLine {
    static func api(
        _ seq: Int, _ call: String, manager: String = "poweredOn", peripheralState: String? = nil,
        scanning: Bool = false, disposition: String = "performed", reason: String? = nil,
        _ fields: String = ""
    ) -> String {
        var s = "{\"seq\":\(seq),\"time_us\":\(seq * 1000),\"source\":\"api\",\"call\":\"\(call)\",\"central\":1,"
        s += "\"manager_state\":\"\(manager)\","
        if let peripheralState { s += "\"peripheral_state\":\"\(peripheralState)\"," }
        s += "\"is_scanning\":\(scanning),\"disposition\":\"\(disposition)\""
        if let reason { s += ",\"reason\":\"\(reason)\"" }
        if !fields.isEmpty { s += "," + fields }
        return s + "}"
    }

    static let peripheral = "\"peripheral\":\"5B1E5130-0000-4000-8000-D80D18000001\""

    static func write(
        _ seq: Int, type: String, properties: Int, length: Int, maximum: Int, canSend: Bool,
        disposition: String = "performed", reason: String? = nil, state: String = "connected"
    ) -> String {
        api(
            seq, "writeValue(_:for:type:)", peripheralState: state, disposition: disposition, reason: reason,
            "\(peripheral),\"characteristic\":\"2A39\",\"handle\":12,\"properties\":\(properties),\"write_type\":\"\(type)\",\"length\":\(length),\"maximum_length\":\(maximum),\"can_send\":\(canSend)"
        )
    }

    static func callback(_ seq: Int) -> String {
        "{\"seq\":\(seq),\"time_us\":0,\"source\":\"callback\",\"callback\":\"centralManagerDidUpdateState(_:)\",\"central\":1,\"delivered\":true,\"state\":\"poweredOn\"}"
    }
}

func lintLines(_ lines: [String]) -> CaptureReport {
    SimulatorTraceReader.lint(jsonl: lines.joined(separator: "\n") + "\n")
}

extension CaptureReport {
    var ruleIDs: [String] { findings.map(\.ruleID) }
}

@Suite("Simulator trace JSONL → API-level rules")
struct SimulatorTraceReaderTests {
    @Test("detects a trace by its first key, not a capture or other JSON")
    func detection() {
        #expect(SimulatorTraceReader.detect(Array(TraceLine.callback(1).utf8)))
        #expect(!SimulatorTraceReader.detect(Array("{\"frame\":1}".utf8)))
        #expect(!SimulatorTraceReader.detect(Array("btsnoop\0".utf8)))
        #expect(!SimulatorTraceReader.detect([UInt8]()))
    }

    @Test("scan before poweredOn: scan and connect by state, any other call by its API MISUSE")
    func scanBeforePoweredOn() {
        let r = lintLines([
            TraceLine.api(
                1, "scanForPeripherals(withServices:options:)", manager: "unknown", disposition: "misuse",
                reason: "not_powered_on", "\"services\":[\"180D\"],\"allow_duplicates\":false"),
            TraceLine.api(2, "stopScan()", manager: "poweredOff", disposition: "misuse", reason: "not_powered_on"),
            TraceLine.api(
                3, "connect(_:options:)", manager: "resetting", peripheralState: "disconnected",
                disposition: "misuse", reason: "not_powered_on", "\(TraceLine.peripheral),\"auto_reconnect\":false"),
            // Powered on: fine.
            TraceLine.api(
                4, "scanForPeripherals(withServices:options:)", "\"services\":[\"180D\"],\"allow_duplicates\":false"),
        ])
        #expect(r.of("scan-before-powered-on").map(\.firstFrame) == [1, 2, 3])
        #expect(r.of("scan-before-powered-on").allSatisfy { $0.evidence == .api })
        #expect(r.of("scan-before-powered-on").first?.message.contains(".unknown") == true)
        #expect(r.ruleIDs.allSatisfy { $0 == "BLE001" })
        #expect(r.facts.apiCalls == 4)
    }

    @Test("unfiltered scan: nil and empty service lists, not a filtered one")
    func unfilteredScan() {
        let r = lintLines([
            TraceLine.api(
                1, "scanForPeripherals(withServices:options:)", "\"services\":null,\"allow_duplicates\":false"),
            TraceLine.api(2, "scanForPeripherals(withServices:options:)", "\"services\":[],\"allow_duplicates\":true"),
            TraceLine.api(
                3, "scanForPeripherals(withServices:options:)",
                "\"services\":[\"0000FFF0-0000-1000-8000-00805F9B34FB\"],\"allow_duplicates\":false"),
        ])
        #expect(r.ruleIDs == ["BLE005", "BLE005"])
        #expect(r.findings.map(\.firstFrame) == [1, 2])
    }

    @Test("write checks: type against properties, length against the maximum, canSend, each on its own")
    func writes() {
        let r = lintLines([
            // Write Without Response on a Write-only characteristic (0x08).
            TraceLine.write(
                1, type: "withoutResponse", properties: 0x08, length: 1, maximum: 244, canSend: true,
                disposition: "dropped", reason: "write_type_not_supported"),
            // With response on Write: fine.
            TraceLine.write(2, type: "withResponse", properties: 0x08, length: 100, maximum: 512, canSend: true),
            // Too long with response.
            TraceLine.write(3, type: "withResponse", properties: 0x08, length: 600, maximum: 512, canSend: true),
            // Too long without response.
            TraceLine.write(
                4, type: "withoutResponse", properties: 0x04, length: 30, maximum: 20, canSend: true,
                disposition: "dropped", reason: "exceeds_maximum_length"),
            // canSend false, twice on the same characteristic: one finding with both calls.
            TraceLine.write(
                5, type: "withoutResponse", properties: 0x04, length: 4, maximum: 244, canSend: false,
                disposition: "dropped", reason: "can_send_false"),
            TraceLine.write(
                6, type: "withoutResponse", properties: 0x04, length: 4, maximum: 244, canSend: false,
                disposition: "dropped", reason: "can_send_false"),
            // canSend false because not connected: another rule's business.
            TraceLine.write(
                7, type: "withoutResponse", properties: 0x04, length: 4, maximum: 20, canSend: false,
                disposition: "misuse", reason: "not_connected", state: "connecting"),
        ])
        #expect(r.of("unchecked-write").map(\.firstFrame) == [1])
        #expect(r.of("unchecked-write").first?.message.contains("0x000C (2A39)") == true)
        #expect(r.of("oversized-write").map(\.firstFrame) == [3, 4])
        #expect(r.of("write-without-response-flow").map(\.frames) == [[5, 6]])
        #expect(r.of("write-without-response-flow").first?.message.hasPrefix("2 writeValue") == true)
        // Write 7 (peripheral still connecting) is gatt-before-connected's, and only its.
        #expect(r.of("gatt-before-connected").map(\.firstFrame) == [7])
        #expect(
            r.findings.filter { $0.slug != "gatt-before-connected" }.allSatisfy {
                $0.handle == 12 && $0.evidence == .api
            })
    }

    @Test("scan left running: connect while scanning, not after stopScan")
    func scanLeftRunning() {
        let r = lintLines([
            TraceLine.api(
                1, "connect(_:options:)", peripheralState: "disconnected", scanning: true,
                "\(TraceLine.peripheral),\"auto_reconnect\":false,\"retained\":true"),
            TraceLine.api(2, "stopScan()", scanning: true),
            TraceLine.api(
                3, "connect(_:options:)", peripheralState: "disconnected",
                "\(TraceLine.peripheral),\"auto_reconnect\":false,\"retained\":true"),
        ])
        #expect(r.ruleIDs == ["BLE004"])
        #expect(r.findings.first?.firstFrame == 1)
        #expect(r.notEvaluable("scan-left-running") == nil)
    }

    @Test("every call reaches the rules with its context; callbacks and radio records are skipped")
    func calls() throws {
        let connect = try #require(
            try SimulatorTraceReader.call(
                fromLine: Data(
                    TraceLine.api(
                        7, "connect(_:options:)", peripheralState: "disconnected", scanning: true,
                        "\(TraceLine.peripheral),\"auto_reconnect\":false,\"retained\":false"
                    ).utf8)))
        #expect(connect.sequence == 7 && connect.time == 7000)
        #expect(connect.peripheral == "5B1E5130-0000-4000-8000-D80D18000001")
        #expect(connect.peripheralState == .disconnected && connect.isScanning)
        guard case .connect(.poweredOn, false) = connect.kind else {
            Issue.record("\(connect.kind)")
            return
        }

        let discover = try #require(
            try SimulatorTraceReader.call(
                fromLine: Data(
                    TraceLine.api(
                        8, "discoverServices(_:)", peripheralState: "connecting", disposition: "misuse",
                        reason: "not_connected",
                        "\(TraceLine.peripheral),\"services\":[\"180D\"],\"delegate_set\":true"
                    ).utf8)))
        #expect(discover.disposition == .misuse(reason: "not_connected"))
        #expect(discover.peripheralState == .connecting)
        guard case .discoverServices(let services?, true) = discover.kind else {
            Issue.record("\(discover.kind)")
            return
        }
        #expect(services.map(\.description) == ["180D"])

        let read = try #require(
            try SimulatorTraceReader.call(
                fromLine: Data(
                    TraceLine.api(
                        9, "readValue(for:)", peripheralState: "connected",
                        "\(TraceLine.peripheral),\"characteristic\":\"2A19\",\"properties\":18"
                    ).utf8)))
        #expect(read.selector == "readValue(for:)")
        #expect(read.attribute?.description == "2A19")
        guard case .peripheralCommand = read.kind else {
            Issue.record("\(read.kind)")
            return
        }

        #expect(try SimulatorTraceReader.call(fromLine: Data(TraceLine.callback(10).utf8)) == nil)
        #expect(try SimulatorTraceReader.call(fromLine: Data("   ".utf8)) == nil)
    }

    @Test("damage: a broken line stops the read, findings before it are kept")
    func damage() {
        let r = lintLines([
            TraceLine.api(
                1, "scanForPeripherals(withServices:options:)", "\"services\":null,\"allow_duplicates\":false"),
            TraceLine.callback(2),
            "{\"seq\":3,\"source\":\"api\"",  // cut short
            TraceLine.api(
                4, "scanForPeripherals(withServices:options:)", "\"services\":null,\"allow_duplicates\":false"),
        ])
        #expect(r.damage?.hasPrefix("line 3:") == true)
        #expect(r.findings.map(\.firstFrame) == [1])
        #expect(r.isUnreadable)

        let badUUID = lintLines([
            TraceLine.api(
                1, "scanForPeripherals(withServices:options:)",
                "\"services\":[\"not a uuid\"],\"allow_duplicates\":false")
        ])
        #expect(badUUID.damage?.contains("services") == true)

        let noCall = lintLines(["{\"seq\":1,\"time_us\":0,\"source\":\"api\"}"])
        #expect(noCall.damage == "line 1: missing call")
    }

    @Test("a renamed, unknown or mistyped key fails the line: no call is dropped silently")
    func strictLines() {
        let connect = TraceLine.api(
            1, "connect(_:options:)", peripheralState: "disconnected", scanning: true,
            "\(TraceLine.peripheral),\"auto_reconnect\":false,\"retained\":true")
        #expect(lintLines([connect]).damage == nil)
        func damage(_ line: String) -> String? {
            let r = lintLines([connect, line])
            // The finding of the good line before it is kept.
            #expect(r.findings.map(\.firstFrame) == [1])
            return r.damage
        }
        // A required key renamed: missing.
        #expect(
            damage(connect.replacingOccurrences(of: "\"is_scanning\"", with: "\"scanning\""))
                == "line 2: missing is_scanning")
        #expect(damage(connect.replacingOccurrences(of: "\"time_us\"", with: "\"time\"")) == "line 2: missing time_us")
        // An optional key renamed: unknown.
        #expect(
            damage(connect.replacingOccurrences(of: "\"retained\"", with: "\"retain\""))
                == "line 2: field \"retain\": unknown key for connect(_:options:)")
        // A call or a value the trace does not have.
        #expect(
            damage(connect.replacingOccurrences(of: "connect(_:options:)", with: "connect(_:)"))
                == "line 2: field \"call\": unknown call 'connect(_:)'")
        #expect(
            damage(connect.replacingOccurrences(of: "poweredOn", with: "on"))
                == "line 2: field \"manager_state\" has the wrong type or value")
        #expect(
            damage(connect.replacingOccurrences(of: "\"retained\":true", with: "\"retained\":1"))
                == "line 2: field \"retained\" has the wrong type or value")
        #expect(
            damage(
                TraceLine.write(2, type: "withResponse", properties: 0x08, length: 4, maximum: 20, canSend: true)
                    .replacingOccurrences(of: "\"can_send\":true", with: "\"canSend\":true"))
                == "line 2: missing can_send")
        // Other sources: only the header is required.
        #expect(
            damage("{\"seq\":2,\"time_us\":0,\"source\":\"callbacks\"}")
                == "line 2: field \"source\" has the wrong type or value")
    }

    @Test("the shared record: what the simulator writes is what the reader decodes")
    func sharedRecordRoundTrip() throws {
        let call = TraceAPICall(
            central: 2, managerState: .poweredOn, peripheralState: .connected, isScanning: false,
            inCallback: "peripheral(_:didDiscoverCharacteristicsFor:error:)",
            disposition: .dropped(.cannotSendWriteWithoutResponse),
            call: .writeValue(
                peripheral: "5B1E5130-0000-4000-8000-D80D18000001", characteristic: "2A39", handle: 12,
                properties: 0x04, writeType: .withoutResponse, length: 4, maximumLength: 20, canSend: false))
        let line = SimulatorTraceLine(seq: 9, timeMicros: 1234, body: .api(call))
        #expect(
            line.text.hasPrefix(
                "{\"seq\":9,\"time_us\":1234,\"source\":\"api\",\"call\":\"writeValue(_:for:type:)\",\"central\":2,"))
        #expect(try JSONDecoder().decode(SimulatorTraceLine.self, from: Data(line.text.utf8)) == line)
        let read = try #require(try SimulatorTraceReader.call(fromLine: Data(line.text.utf8)))
        #expect(read.disposition == .dropped(reason: "can_send_false"))
        guard case .writeValue(12, 4, false, 0x04, 20, false) = read.kind else {
            Issue.record("\(read.kind)")
            return
        }
        let scan = SimulatorTraceLine(
            seq: 1, timeMicros: 0,
            body: .api(
                TraceAPICall(
                    central: 1, managerState: .unknown, isScanning: false, disposition: .misuse(.notPoweredOn),
                    call: .scanForPeripherals(services: nil, allowDuplicates: false))))
        #expect(scan.text.contains("\"services\":null"))
        #expect(try JSONDecoder().decode(SimulatorTraceLine.self, from: Data(scan.text.utf8)) == scan)
    }

    @Test("from a file: detected by CaptureLinter, a line over the limit is damage, not an allocation")
    func file() throws {
        let dir = FileManager.default.temporaryDirectory
        let good = dir.appendingPathComponent("blecap-trace-\(UUID().uuidString).jsonl").path
        try
            ([
                TraceLine.callback(1),
                TraceLine.api(
                    2, "scanForPeripherals(withServices:options:)", "\"services\":null,\"allow_duplicates\":false"),
            ]
            .joined(separator: "\n")).write(toFile: good, atomically: true, encoding: .utf8)  // no final newline
        defer { try? FileManager.default.removeItem(atPath: good) }
        let r = CaptureLinter.lint(path: good)
        #expect(r.format == SimulatorTraceReader.format)
        #expect(r.frames == 2)
        #expect(r.ruleIDs == ["BLE005"])

        let long = dir.appendingPathComponent("blecap-trace-\(UUID().uuidString).jsonl").path
        var bytes = Array(TraceLine.callback(1).utf8) + [0x0A] + Array("{\"seq\":2,\"x\":\"".utf8)
        bytes += [UInt8](repeating: 0x61, count: SimulatorTraceReader.maximumLineLength + 10)
        try Data(bytes).write(to: URL(fileURLWithPath: long))
        defer { try? FileManager.default.removeItem(atPath: long) }
        let l = CaptureLinter.lint(path: long)
        #expect(l.damage == "line 2 is longer than \(SimulatorTraceReader.maximumLineLength) bytes")
        #expect(l.frames == 1)
    }
}
