import BLEAir
import BLEBytes
import Foundation

/// A peripheral defined in code: what it advertises, how it connects, what its GATT server
/// holds and how it answers.
///
/// Definitions are plain mutable properties; change them before the world runs, or through
/// the world's events (`SimulatedWorld.setInRange`, `loseLink`, `changeServices`) while it runs.
public final class SimulatedPeripheral {
    /// A value source on the server: while a client has notifications (or indications)
    /// enabled for the characteristic, the server sends value `n` at its time, counting from 0
    /// for each subscription (every CCCD write that enables them restarts the source; one that
    /// disables them ends it).
    ///
    /// Two kinds: periodic (`init`: `value(n)` every `interval`, `count` times, nil: forever)
    /// and recorded (`recorded(…)`: captured values at their offsets from the subscription).
    /// A source targets every characteristic with its UUID, or with `valueHandle` only the one
    /// with that value handle (and UUID), which tells apart two characteristics of the same UUID.
    public struct NotificationSource {
        public var characteristic: CBUUID
        /// The value handle of the one characteristic meant; nil: any with `characteristic`'s UUID.
        public var valueHandle: UInt16?
        public var interval: Duration
        public var count: Int?
        public var value: (Int) -> [UInt8]
        /// Send Handle Value Indications when the client enabled them. The server sends only
        /// what the client configured (Vol 3 Part G 3.3.3.3): with `indicate` it indicates if the
        /// CCCD has the indication bit, else notifies if it has the notification bit; without,
        /// the other way round. Core Bluetooth enables notifications whenever the
        /// characteristic has the notify property, so a captured indication stream replays as
        /// indications only for an indicate-only characteristic, as on the real phone.
        public var indicate: Bool
        /// For a recorded stream: each value's time after the subscription, µs, non-decreasing.
        var offsets: [Int64]?

        public init(
            characteristic: CBUUID, interval: Duration, count: Int? = nil, valueHandle: UInt16? = nil,
            indicate: Bool = false, value: @escaping (Int) -> [UInt8]
        ) {
            self.characteristic = characteristic
            self.valueHandle = valueHandle
            self.interval = interval
            self.count = count
            self.indicate = indicate
            self.value = value
        }

        /// A recorded stream: value i goes out `offset_i` after the client enables the CCCD
        /// (offsets from the subscription, not from the previous value); each subscription
        /// plays it again from the start. Values are sent in offset order (equal offsets in
        /// the given order); a negative offset counts as 0.
        public static func recorded(
            characteristic: CBUUID, valueHandle: UInt16? = nil,
            values: [(offset: Duration, value: [UInt8])], indicate: Bool = false
        )
            -> NotificationSource
        {
            let sorted = values.enumerated()
                .map { (index: $0.offset, time: max(0, micros($0.element.offset)), value: $0.element.value) }
                .sorted { ($0.time, $0.index) < ($1.time, $1.index) }
            let stream = sorted.map(\.value)
            var s = NotificationSource(
                characteristic: characteristic, interval: .zero, count: stream.count,
                valueHandle: valueHandle, indicate: indicate
            ) { n in
                stream.indices.contains(n) ? stream[n] : []
            }
            s.offsets = sorted.map(\.time)
            return s
        }

        /// Whether the source feeds this characteristic of the database.
        func targets(_ c: GATTServerDatabase.Characteristic) -> Bool {
            c.uuid == characteristic && (valueHandle == nil || valueHandle == c.valueHandle) && c.definition != nil
        }

        /// µs from value `n − 1` (or from the subscription, for `n` = 0) to value `n`.
        func delay(before n: Int) -> Int64 {
            guard let offsets else { return micros(interval) }
            guard offsets.indices.contains(n) else { return 0 }
            return n == 0 ? offsets[0] : offsets[n] &- offsets[n - 1]
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
    /// Raw AD structures (Core Supplement Part A) to put on the air instead of the ones
    /// synthesized from the fields above: a captured advertisement replayed. Radio events and
    /// the btsnoop export carry these bytes (beyond 31 bytes the export moves whole structures
    /// into a scan response; the trace keeps the first `InlineBytes.capacity`); the fields
    /// still make the `advertisementData` the central's delegate sees, so set both.
    public var advertisingDataOverride: [UInt8]?

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
    /// Told when a central's connection to this peripheral completes or ends, inside the
    /// world's run (see `ConnectionChange`): what times events "so long after the connection"
    /// (capture replay's link end and faults).
    public var connectionObservers: [(ConnectionChange) -> Void] = []

    // GATT
    public var services: [SimulatedService] { didSet { rebuildDatabase() } }
    /// Whether the server has the hidden Generic Attribute service at handles 1–4 (Service
    /// Changed and its CCCD; see `GATTServerDatabase`). False for a captured database, which
    /// brings its own services: a 0x1801 among them is then served like any other, and its
    /// Service Changed characteristic (0x2A05), if any, carries `changeServices`' indication.
    public var providesGenericAttributeService = true { didSet { rebuildDatabase() } }
    public var notificationSources: [NotificationSource] = []
    private(set) var database: GATTServerDatabase
    /// Explicit handles of the definitions that the layout could not use (taken, out of order
    /// or reserved; the earlier declaration wins, see `GATTServerDatabase`), in layout order.
    public var ignoredHandles: [UInt16] { database.ignoredHandles }
    /// Attributes left out of the table because no handle was left after 0xFFFF.
    public var omittedAttributeCount: Int { database.omittedAttributes }

    private func rebuildDatabase() {
        database = GATTServerDatabase(services: services, genericAttributeService: providesGenericAttributeService)
    }

    /// Whether the central's radio can hear it.
    public internal(set) var isInRange = true

    /// What answers reads and writes of characteristic values instead of the definitions (their
    /// stored values and `onRead`/`onWrite`): a captured server's recorded answers (BLEReplay's
    /// `RecordedGATTValues`, set by a replayed peer). The definitions still lay out the table and
    /// the link still checks handles, properties and permissions before it asks; nil: the
    /// definitions answer (`GATTServerDatabase`, the declared backing).
    package var valueBacking: (any GATTValueBacking)?

    /// The app's GATT server when a `CBPeripheralManager` publishes this device: requests go to
    /// it instead of the definitions' handlers.
    weak var localServer: (any LocalGATTServer)?
    /// Created by a `CBPeripheralManager` (numbers the managers of a world).
    var hostsPeripheralManager = false

    public init(
        address: BDAddr, addressType: UInt8 = 1, name: String? = nil, services: [SimulatedService] = [],
        identifier: UUID? = nil
    ) {
        self.address = address
        self.addressType = addressType
        self.name = name
        self.localName = name
        self.services = services
        self.database = GATTServerDatabase(services: services, genericAttributeService: true)
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

    /// The advertisement's AD structures (Core Supplement Part A): `advertisingDataOverride` if
    /// set, else Flags, service UUID lists, local name, Tx Power, Service Data, Manufacturer
    /// Specific Data.
    var advertisingData: [UInt8] {
        if let advertisingDataOverride { return advertisingDataOverride }
        // Built in one buffer, structure by structure (once per advertising event heard).
        var out: [UInt8] = []
        out.reserveCapacity(64)
        /// Starts a structure of `type` whose body the caller appends; `end` fills in its
        /// length, or drops it when the body does not fit a length octet.
        func begin(_ type: UInt8) -> Int {
            out.append(0)
            out.append(type)
            return out.count - 2
        }
        func end(_ start: Int) {
            let length = out.count - start - 1
            if length <= 255 { out[start] = UInt8(length) } else { out.removeSubrange(start...) }
        }
        // LE General Discoverable, BR/EDR Not Supported.
        out += [0x02, 0x01, isConnectable ? 0x06 : 0x04]
        if advertisedServiceUUIDs.contains(where: { $0.uuid16 != nil }) {
            let s = begin(0x03)
            for u in advertisedServiceUUIDs {
                if let v = u.uuid16 {
                    out.append(UInt8(v & 0xFF))
                    out.append(UInt8(v >> 8))
                }
            }
            end(s)
        }
        if advertisedServiceUUIDs.contains(where: { $0.uuid16 == nil }) {
            let s = begin(0x07)
            for u in advertisedServiceUUIDs where u.uuid16 == nil { out += u.wireBytes }
            end(s)
        }
        if let n = localName {
            let s = begin(0x09)
            out += n.utf8.prefix(248)
            end(s)
        }
        if let t = txPowerLevel { out += [0x02, 0x0A, UInt8(bitPattern: t)] }
        for sd in serviceData where sd.uuid.uuid16 != nil {
            let s = begin(0x16)
            out += sd.uuid.wireBytes
            out += sd.data
            end(s)
        }
        if let m = manufacturerData {
            let s = begin(0xFF)
            out += m
            end(s)
        }
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
