import BLEBytes
import BLESimulator
import Dispatch
import Foundation

// Sessions per second of the simulator (issue 5, "Deterministic and fast"): each session is a
// fresh world with one sensor and a central that scans (filtered), connects, discovers,
// subscribes, receives `notifications` notifications and disconnects; the whole trace is
// recorded, as in a test. Usage: BLESimulatorBench [sessions] [notifications] [--dump | --export FILE]

// `--dump`: print one session's trace (JSONL) and an FNV-1a hash of its btsnoop export
// instead of timing, to check that a change to the simulator keeps its output byte for byte.
let dump = CommandLine.arguments.contains("--dump")
/// `--export FILE`: write one session's btsnoop export (the conformance suite has tshark read it);
/// a FILE ending in .pcapng gets the pcapng export instead, each trace event's packets commented.
let exportPath: String? = CommandLine.arguments.firstIndex(of: "--export").flatMap {
    $0 + 1 < CommandLine.arguments.count ? CommandLine.arguments[$0 + 1] : nil
}
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let sessions = arguments.first ?? 10_000
let notificationsPerSession = arguments.dropFirst().first ?? 100

let serviceUUID = CBUUID(string: "180D")
let measurementUUID = CBUUID(string: "2A37")
/// Parsed once, like the UUIDs: the sensor's address is a constant of the benchmark, and
/// parsing its text per session measured the string code, not the simulator.
let sensorAddress = BDAddr("D8:0D:18:00:00:01")!

/// The session's central: the usual Core Bluetooth flow (scan, connect, discover, subscribe),
/// disconnecting after the
/// last expected notification.
final class BenchCentral: CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager!
    var peripheral: CBPeripheral?
    let expected: Int
    var received = 0
    var disconnected = false

    init(expected: Int) {
        self.expected = expected
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        central.scanForPeripherals(withServices: [serviceUUID])
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
        peripheral.discoverServices([serviceUUID])
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral,
        timestamp: CFAbsoluteTime, isReconnecting: Bool, error: (any Error)?
    ) {
        disconnected = true
        self.peripheral = nil
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for s in peripheral.services ?? [] { peripheral.discoverCharacteristics([measurementUUID], for: s) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for c in service.characteristics ?? [] where c.properties.contains(.notify) {
            peripheral.setNotifyValue(true, for: c)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        guard characteristic.value != nil else { return }
        received += 1
        if received == expected { central.cancelPeripheralConnection(peripheral) }
    }
}

func session(_ n: Int, dump: Bool = false, export: String? = nil) -> (notifications: Int, records: Int, ok: Bool) {
    let world = SimulatedWorld()
    let sensor = SimulatedPeripheral(
        address: sensorAddress, name: "HRM",
        services: [
            SimulatedService(
                uuid: serviceUUID,
                characteristics: [
                    SimulatedCharacteristic(uuid: measurementUUID, properties: [.notify])
                ])
        ])
    sensor.advertisedServiceUUIDs = [serviceUUID]
    sensor.notificationSources = [
        .init(
            characteristic: measurementUUID, interval: .milliseconds(15),
            count: notificationsPerSession
        ) { [0x00, UInt8(truncatingIfNeeded: 60 + $0)] }
    ]
    world.add(sensor)
    let app = SimulatedWorld.withCurrent(world) { BenchCentral(expected: notificationsPerSession) }
    _ = world.run(until: { app.disconnected }, timeout: .seconds(600))
    if dump {
        print(world.trace.jsonl(), terminator: "")
        let export = world.btsnoop()
        let hash = export.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        print("btsnoop \(export.count) bytes, FNV-1a \(String(hash, radix: 16))")
    }
    if let export,
        !FileManager.default.createFile(
            atPath: export,
            contents: Data(export.hasSuffix(".pcapng") ? BTSnoopExporter(world: world).pcapng() : world.btsnoop()))
    {
        print("cannot write \(export)")
        exit(2)
    }
    return (app.received, world.trace.records.count, app.disconnected)
}

if let exportPath {
    let r = session(0, export: exportPath)
    print("exported one session (\(r.notifications) notifications, \(r.records) trace records) to \(exportPath)")
    exit(r.ok ? 0 : 1)
}

if dump {
    _ = session(0, dump: true)
    exit(0)
}

// Warm-up (first-use costs: metadata, allocator), not timed.
_ = session(0)

var notifications = 0
var records = 0
var failures = 0
/// CPU time of this process: on a shared machine the wall clock also measures the neighbours.
func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

let cpuStart = cpuSeconds()
let start = DispatchTime.now().uptimeNanoseconds
for i in 0..<sessions {
    let r = session(i)
    notifications += r.notifications
    records += r.records
    if !r.ok || r.notifications != notificationsPerSession { failures += 1 }
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
let cpu = cpuSeconds() - cpuStart
let rate = Double(sessions) / seconds
print(
    "BLESimulatorBench: \(sessions) sessions (scan, connect, discover, subscribe, \(notificationsPerSession) notifications, disconnect)"
)
print(
    String(
        format: "  %.3f s wall, %.0f sessions/s, %.0f notifications/s; %.3f s CPU, %.0f sessions per CPU-second",
        seconds, rate, Double(notifications) / seconds, cpu, Double(sessions) / cpu))
print("  \(sessions > 0 ? records / sessions : 0) trace records/session, \(failures) failed")
if failures > 0 { exit(1) }
