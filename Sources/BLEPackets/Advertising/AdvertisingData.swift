import BLEBytes

/// Advertising, scan-response, EIR and OOB data: a sequence of AD structures (Core 5.4 Vol 3
/// Part C 11; Core Specification Supplement Part A).
///
/// Iterating never traps and never allocates. It stops at the end of the data, at a length
/// octet of 0 ("early termination": the rest is padding, Vol 3 Part C 11), or at a structure
/// whose length runs past the end; `termination` says which, with the bytes left over.
public struct AdvertisingData: Sequence, @unchecked Sendable {
    public let bytes: ByteView

    public init(_ bytes: ByteView) { self.bytes = bytes }

    /// Why iteration stopped.
    public enum Termination: @unchecked Sendable {
        /// Every octet belonged to a well-formed AD structure.
        case complete
        /// A zero length octet at `offset` ended the significant part; `padding` is everything
        /// from it on (normally all zeros).
        case earlyTermination(offset: Int, padding: ByteView)
        /// The structure at `offset` claims more octets than remain; `raw` is it and the rest.
        case truncated(offset: Int, raw: ByteView)
    }

    public struct Iterator: IteratorProtocol {
        public let bytes: ByteView
        /// Offset of the next structure's length octet.
        public private(set) var offset = 0
        /// Set once `next()` has returned nil.
        public private(set) var termination: Termination?

        public init(_ bytes: ByteView) { self.bytes = bytes }

        public mutating func next() -> ADStructure? {
            if termination != nil { return nil }
            guard let length = bytes.u8(offset) else {
                termination = .complete
                return nil
            }
            if length == 0 {
                termination = .earlyTermination(offset: offset, padding: bytes.suffix(from: offset) ?? .empty)
                return nil
            }
            // offset < count and length <= 255, so the sums cannot overflow.
            guard let body = bytes.slice(offset + 1, Int(length)) else {
                termination = .truncated(offset: offset, raw: bytes.suffix(from: offset) ?? .empty)
                return nil
            }
            let structure = ADStructure(
                offset: offset, type: ADType(body.u8(0)!), data: body.suffix(from: 1) ?? .empty)
            offset += 1 + Int(length)
            return structure
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes) }

    /// How the data ends (walks it).
    public var termination: Termination {
        var it = makeIterator()
        while it.next() != nil {}
        return it.termination ?? .complete
    }

    /// Whether a structure ran past the end.
    public var isTruncated: Bool {
        if case .truncated = termination { return true }
        return false
    }

    /// The first structure of `type`.
    public func first(_ type: ADType) -> ADStructure? {
        for s in self where s.type == type { return s }
        return nil
    }

    /// Every structure of `type`, in order.
    public func structures(_ type: ADType) -> Structures { Structures(data: self, type: type) }

    // MARK: Typed accessors (first structure of the type, nil if absent or malformed)

    public var flags: ADFlags? { first(.flags)?.flags }

    /// Complete Local Name if present, otherwise Shortened Local Name (UTF-8).
    public var localName: ByteView? { completeLocalName ?? shortenedLocalName }
    public var completeLocalName: ByteView? { first(.completeLocalName)?.localName }
    public var shortenedLocalName: ByteView? { first(.shortenedLocalName)?.localName }

    public var txPowerLevel: Int8? { first(.txPowerLevel)?.txPowerLevel }
    public var appearance: UInt16? { first(.appearance)?.appearance }
    /// The first Manufacturer Specific Data structure; `structures(.manufacturerSpecificData)`
    /// gives every one.
    public var manufacturerData: ManufacturerSpecificData? { first(.manufacturerSpecificData)?.manufacturerData }
    public var peripheralConnectionIntervalRange: ConnectionIntervalRange? {
        first(.peripheralConnectionIntervalRange)?.peripheralConnectionIntervalRange
    }
    public var publicTargetAddresses: AddressList? { first(.publicTargetAddress)?.targetAddresses }
    public var randomTargetAddresses: AddressList? { first(.randomTargetAddress)?.targetAddresses }
    /// Advertising interval in units of 0.625 ms, from either interval type.
    public var advertisingInterval: UInt32? {
        for s in self {
            if let v = s.advertisingInterval { return v }
        }
        return nil
    }
    public var leRole: LERole? { first(.leRole)?.leRole }
    public var uri: ByteView? { first(.uri)?.uri }
    public var leSupportedFeatures: ByteView? { first(.leSupportedFeatures)?.leSupportedFeatures }
    public var classOfDevice: UInt32? { first(.classOfDevice)?.classOfDevice }
    public var broadcastName: ByteView? { first(.broadcastName)?.broadcastName }

    /// Every service UUID of every service list (16-, 32- and 128-bit, complete or not).
    public var serviceUUIDs: UUIDs { UUIDs(data: self, solicitation: false) }
    /// Every UUID of the service solicitation lists.
    public var solicitationUUIDs: UUIDs { UUIDs(data: self, solicitation: true) }
    /// Every Service Data structure (16-, 32- and 128-bit UUIDs).
    public var serviceData: ServiceDataItems { ServiceDataItems(data: self) }

    /// Whether a service list advertises `uuid` (a 16-bit UUID matches its 128-bit form).
    public func advertises(service uuid: BluetoothUUID) -> Bool {
        for u in serviceUUIDs where u == uuid { return true }
        return false
    }

    // MARK: Sequences across structures

    /// The structures of one type.
    public struct Structures: Sequence {
        let data: AdvertisingData
        let type: ADType
        public init(data: AdvertisingData, type: ADType) {
            self.data = data
            self.type = type
        }
        public struct Iterator: IteratorProtocol {
            var inner: AdvertisingData.Iterator
            let type: ADType
            public mutating func next() -> ADStructure? {
                while let s = inner.next() {
                    if s.type == type { return s }
                }
                return nil
            }
        }
        public func makeIterator() -> Iterator { Iterator(inner: data.makeIterator(), type: type) }
    }

    /// UUIDs gathered from every service (or solicitation) list, flattening the widths.
    public struct UUIDs: Sequence {
        let data: AdvertisingData
        let solicitation: Bool
        public init(data: AdvertisingData, solicitation: Bool) {
            self.data = data
            self.solicitation = solicitation
        }
        public struct Iterator: IteratorProtocol {
            var structures: AdvertisingData.Iterator
            var current: UUIDList.Iterator?
            let solicitation: Bool
            public mutating func next() -> BluetoothUUID? {
                while true {
                    if let u = current?.next() { return u }
                    guard let s = structures.next() else { return nil }
                    let wanted = solicitation ? s.type.isSolicitationUUIDList : s.type.isServiceUUIDList
                    current = wanted ? s.uuidList?.makeIterator() : nil
                }
            }
        }
        public func makeIterator() -> Iterator {
            Iterator(structures: data.makeIterator(), current: nil, solicitation: solicitation)
        }
    }

    /// Service Data of every width.
    public struct ServiceDataItems: Sequence {
        let data: AdvertisingData
        public init(data: AdvertisingData) { self.data = data }
        public struct Iterator: IteratorProtocol {
            var structures: AdvertisingData.Iterator
            public mutating func next() -> ServiceData? {
                while let s = structures.next() {
                    if let d = s.serviceData { return d }
                }
                return nil
            }
        }
        public func makeIterator() -> Iterator { Iterator(structures: data.makeIterator()) }
    }
}
