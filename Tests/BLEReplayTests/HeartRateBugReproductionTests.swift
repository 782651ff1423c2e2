import BLEReplay
import BLESimulator
import Foundation
import TestSupport
import Testing

// Reproducing a field bug from a capture.
//
// A common way to parse a Heart Rate Measurement reads the flags octet and then the value
// at the width the flags announce, without looking at the length. The careful way checks
// the length first and returns nil for a value too short for its format (Heart Rate
// Service 3.1.1.1 gives the format). The
// capture hr_short_notification.central.btsnoop (captures/bumble/README.md,
// scenario 9) holds twelve measurements from a real GATT server, two of them truncated.
//
// On iOS the unchecked parser would trap on Data's subscript and crash the app; here both
// parsers run over a byte view that audits its bounds instead (an out-of-bounds subscript
// returns 0 and is recorded), so the test process survives and the failure is observable.
// The parsers below are the project's own.

/// The bytes a parser reads: `Data` in the app, `BoundsAuditingBytes` in the test.
protocol MeasurementBytes {
    var count: Int { get }
    subscript(_ index: Int) -> UInt8 { get }
}

extension Data: MeasurementBytes {}

/// A measurement's bytes that record every read past the end instead of trapping.
final class BoundsAuditingBytes: MeasurementBytes {
    let bytes: [UInt8]
    private(set) var outOfBoundsReads: [Int] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }
    subscript(_ index: Int) -> UInt8 {
        guard bytes.indices.contains(index) else {
            outOfBoundsReads.append(index)
            return 0
        }
        return bytes[index]
    }
}

/// The two parsers. Flags bit 0 is the Heart Rate Value Format: 0 a UINT8 value in octet 1,
/// 1 a little-endian UINT16 in octets 1–2 (GATT Specification Supplement, Heart Rate
/// Measurement).
enum HeartRateParsers {
    /// The common way: the value is read where the flags say it is, whatever the length. A 1- or
    /// 2-octet measurement announcing UINT16 is read past its end.
    static func unchecked<B: MeasurementBytes>(_ m: B) -> Int {
        let wide = m[0] & 0x01 == 0x01
        let low = Int(m[1])
        return wide ? low + Int(m[2]) * 256 : low
    }

    /// The careful way: too short for the flags octet and a UINT8 value, or for a
    /// UINT16 one, is not a measurement (nil).
    static func checked<B: MeasurementBytes>(_ m: B) -> Int? {
        guard m.count >= 2 else { return nil }
        let wide = m[0] & 0x01 == 0x01
        if wide {
            guard m.count >= 3 else { return nil }
            return Int(m[1]) + Int(m[2]) * 256
        }
        return Int(m[1])
    }
}

/// A heart-rate central written the usual Core Bluetooth way: scan for Heart
/// Rate, stop, connect, discover, subscribe to what notifies, read what reads, and parse every
/// measurement with the parser it was built with.
final class HeartRateMonitor: CBCentralManagerDelegate, CBPeripheralDelegate {
    struct Parsed {
        let value: [UInt8]
        let bpm: Int?
        let outOfBoundsReads: [Int]
    }

    let heartRateServiceUUID = CBUUID(string: "180D")
    let heartRateMeasurementUUID = CBUUID(string: "2A37")
    var centralManager: CBCentralManager!
    var discoveredPeripheral: CBPeripheral?
    let parse: (BoundsAuditingBytes) -> Int?
    private(set) var measurements: [Parsed] = []

    init(world: SimulatedWorld, parse: @escaping (BoundsAuditingBytes) -> Int?) {
        self.parse = parse
        centralManager = CBCentralManager(delegate: self, queue: nil, world: world)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        central.scanForPeripherals(withServices: [heartRateServiceUUID], options: nil)
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral,
        advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {
        discoveredPeripheral = peripheral
        central.stopScan()
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        peripheral.discoverServices([heartRateServiceUUID])
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for service in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: service) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for characteristic in service.characteristics ?? [] {
            if characteristic.properties.contains(.notify) { peripheral.setNotifyValue(true, for: characteristic) }
            if characteristic.properties.contains(.read) { peripheral.readValue(for: characteristic) }
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        guard let data = characteristic.value, characteristic.uuid == heartRateMeasurementUUID else { return }
        let audited = BoundsAuditingBytes([UInt8](data))
        let bpm = parse(audited)
        measurements.append(Parsed(value: audited.bytes, bpm: bpm, outOfBoundsReads: audited.outOfBoundsReads))
    }
}

@Suite struct HeartRateBugReproductionTests {
    static let capture = Fixtures.capture("bumble/hr_short_notification.central.btsnoop")

    /// Runs the monitor against the captured sensor; returns what it parsed and the captured
    /// measurements (frame, value) in order.
    static func monitor(_ parse: @escaping (BoundsAuditingBytes) -> Int?) throws
        -> (parsed: [HeartRateMonitor.Parsed], captured: [(frame: Int, value: [UInt8])])
    {
        let replay = try CaptureReplay(contentsOf: URL(fileURLWithPath: capture))
        let m = try #require(replay.models.first)
        let handle = try #require(Captured.valueHandle(m, CBUUID(string: "2A37")))
        let world = SimulatedWorld()
        replay.install(into: world)
        let app = HeartRateMonitor(world: world, parse: parse)
        world.run(for: .seconds(20))
        return (app.measurements, Captured.stream(m, handle: handle).map { ($0.frame, $0.value) })
    }

    /// Too short for what its flags announce: the flags octet plus a UINT8 or UINT16 value.
    static func isTruncated(_ value: [UInt8]) -> Bool {
        guard let flags = value.first else { return true }
        return value.count < 1 + (flags & 0x01 == 0x01 ? 2 : 1)
    }

    @Test func oldParserReadsPastTheEndOnShortMeasurements() throws {
        let (parsed, captured) = try Self.monitor { HeartRateParsers.unchecked($0) }
        // The app received every captured measurement, in order.
        #expect(parsed.map(\.value) == captured.map(\.value))
        #expect(parsed.count == 12)

        let overruns = parsed.indices.filter { !parsed[$0].outOfBoundsReads.isEmpty }
        // Exactly the truncated ones (README: #5 = `01`, frame 57; #9 = `01 48`, frame 61) …
        #expect(overruns == parsed.indices.filter { Self.isTruncated(parsed[$0].value) })
        #expect(overruns.map { captured[$0].frame } == [57, 61])
        // … each read past its own end: where Data's subscript would have trapped.
        for i in overruns {
            let m = parsed[i]
            #expect(m.outOfBoundsReads.allSatisfy { $0 >= m.value.count }, "measurement \(i + 1)")
        }
    }

    @Test func fixedParserRejectsShortMeasurements() throws {
        let (parsed, captured) = try Self.monitor { HeartRateParsers.checked($0) }
        #expect(parsed.map(\.value) == captured.map(\.value))
        #expect(parsed.allSatisfy { $0.outOfBoundsReads.isEmpty })
        let rejected = parsed.indices.filter { parsed[$0].bpm == nil }
        #expect(rejected.map { captured[$0].frame } == [57, 61])
        #expect(rejected == parsed.indices.filter { Self.isTruncated(parsed[$0].value) })
        // The other ten: the README's bpm column, in order.
        #expect(parsed.compactMap(\.bpm) == [75, 77, 77, 75, 73, 71, 72, 75, 78, 76])
    }
}
