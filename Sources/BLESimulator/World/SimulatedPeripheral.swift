import BLEBytes
import Foundation

/// A peripheral defined in code: what it advertises, how it connects, what its GATT server
/// holds and how it answers.
///
/// Definitions are plain mutable properties; change them before the world runs, or through
/// the world's events (`SimulatedWorld.setInRange`, `loseLink`, `changeServices`) while it runs.
public final class SimulatedPeripheral {
    /// A periodic value source: while a client has notifications (or indications) enabled for
    /// the characteristic, the server sends `value(n)` every `interval`, `count` times (nil:
    /// forever), counting from 0 for each subscription.
    public struct NotificationSource {
        public var characteristic: CBUUID
        public var interval: Duration
        public var count: Int?
        public var value: (Int) -> [UInt8]

        public init(characteristic: CBUUID, interval: Duration, count: Int? = nil, value: @escaping (Int) -> [UInt8]) {
            self.characteristic = characteristic
            self.interval = interval
            self.count = count
            self.value = value
        }
    }

    public let address: BDAddr
    /// 0 public, 1 random (Core Vol 6 Part B 1.3).
    public var addressType: UInt8
    /// The `CBPeripheral.identifier` a central sees: derived from the address, so it is the same
    /// on every run (Core Bluetooth's identifiers are stable per device and per phone too).
    public let identifier: UUID
    /// GAP Device Name (`CBPeripheral.name` once connected).
    public var name: String?

    // Advertising
    public var isAdvertising = true
    public var isConnectable = true
    public var advertisingInterval: Duration = .milliseconds(100)
    public var localName: String?
    public var advertisedServiceUUIDs: [CBUUID] = []
    /// Company identifier (little-endian) followed by data, as in the AD structure.
    public var manufacturerData: [UInt8]?
    public var serviceData: [(uuid: CBUUID, data: [UInt8])] = []
    public var txPowerLevel: Int8?
    public var rssi: Int = -55

    // Connection
    /// The server's Rx MTU; the connection's ATT_MTU is the smaller of this and the central's
    /// (Vol 3 Part F 3.4.2.2).
    public var mtu: UInt16 = 247
    public var connectionInterval: Duration = .milliseconds(30)
    public var supervisionTimeout: Duration = .seconds(2)
    /// Time from request to response for every ATT operation; nil means two connection
    /// intervals (request in one connection event, response in the next).
    public var operationLatency: Duration?
    /// When set, connection attempts fail with this error (and HCI status 0x3E, Connection
    /// Failed to be Established).
    public var connectionFailure: CBError.Code?

    // GATT
    public var services: [SimulatedService] { didSet { database = GATTServerDatabase(services: services) } }
    public var notificationSources: [NotificationSource] = []
    private(set) var database: GATTServerDatabase

    /// Whether the central's radio can hear it.
    public internal(set) var isInRange = true

    /// The app's GATT server when a `CBPeripheralManager` publishes this device: requests go to
    /// it instead of the definitions' handlers.
    weak var localServer: (any LocalGATTServer)?
    /// Created by a `CBPeripheralManager` (numbers the managers of a world).
    var hostsPeripheralManager = false

    public init(address: BDAddr, addressType: UInt8 = 1, name: String? = nil, services: [SimulatedService] = [],
                identifier: UUID? = nil) {
        self.address = address
        self.addressType = addressType
        self.name = name
        self.localName = name
        self.services = services
        self.database = GATTServerDatabase(services: services)
        self.identifier = identifier ?? Self.identifier(for: address)
    }

    static func identifier(for address: BDAddr) -> UUID {
        let a = (0..<6).map { address.byte($0) }
        return UUID(uuid: (0x5B, 0x1E, 0x51, 0x30, 0, 0, 0x40, 0, 0x80, 0, a[0], a[1], a[2], a[3], a[4], a[5]))
    }

    /// The first characteristic definition with this UUID.
    public func characteristic(_ uuid: CBUUID) -> SimulatedCharacteristic? {
        for s in services { if let c = s.characteristics.first(where: { $0.uuid == uuid }) { return c } }
        return nil
    }

    var effectiveOperationLatency: Int64 { operationLatency.map(micros) ?? 2 * micros(connectionInterval) }

    /// The advertisement's AD structures (Core Supplement Part A): Flags, service UUID lists,
    /// local name, Tx Power, Service Data, Manufacturer Specific Data.
    var advertisingData: [UInt8] {
        var out: [UInt8] = []
        func ad(_ type: UInt8, _ body: [UInt8]) {
            guard body.count < 255 else { return }
            out.append(UInt8(body.count + 1))
            out.append(type)
            out += body
        }
        // LE General Discoverable, BR/EDR Not Supported.
        ad(0x01, [isConnectable ? 0x06 : 0x04])
        let uuid16 = advertisedServiceUUIDs.filter { $0.uuid16 != nil }
        let uuid128 = advertisedServiceUUIDs.filter { $0.uuid16 == nil }
        if !uuid16.isEmpty { ad(0x03, uuid16.flatMap(\.wireBytes)) }
        if !uuid128.isEmpty { ad(0x07, uuid128.flatMap(\.wireBytes)) }
        if let n = localName { ad(0x09, Array(n.utf8.prefix(248))) }
        if let t = txPowerLevel { ad(0x0A, [UInt8(bitPattern: t)]) }
        for sd in serviceData where sd.uuid.uuid16 != nil { ad(0x16, sd.uuid.wireBytes + sd.data) }
        if let m = manufacturerData { ad(0xFF, m) }
        return out
    }

    /// `advertisementData` as Core Bluetooth hands it to `didDiscover`.
    var advertisementDictionary: [String: Any] {
        var d: [String: Any] = [CBAdvertisementDataIsConnectable: NSNumber(value: isConnectable)]
        if let n = localName { d[CBAdvertisementDataLocalNameKey] = n }
        if !advertisedServiceUUIDs.isEmpty { d[CBAdvertisementDataServiceUUIDsKey] = advertisedServiceUUIDs }
        if let m = manufacturerData { d[CBAdvertisementDataManufacturerDataKey] = Data(m) }
        if let t = txPowerLevel { d[CBAdvertisementDataTxPowerLevelKey] = NSNumber(value: t) }
        if !serviceData.isEmpty {
            var sd: [CBUUID: Data] = [:]
            for e in serviceData { sd[e.uuid] = Data(e.data) }
            d[CBAdvertisementDataServiceDataKey] = sd
        }
        return d
    }
}

/// Microseconds in a `Duration` (the simulator's clock unit).
func micros(_ d: Duration) -> Int64 {
    let c = d.components
    return c.seconds &* 1_000_000 &+ c.attoseconds / 1_000_000_000_000
}
