import BLEBytes

// Public memberwise factories for the timeline's payload types, so producers outside the
// capture decoder (the simulator, BLESimulator) build events of the same model. Factories, not
// `public init`s: an extension cannot redeclare the synthesized memberwise initializer, and
// these files stay out of TimelineEvent.swift / GATTDatabase.swift where the types live.

extension ScanParameters {
    public static func make(
        extended: Bool, active: Bool, interval: UInt16, window: UInt16, filterPolicy: UInt8,
        ownAddressType: UInt8, phys: UInt8, filterDuplicates: UInt8, parametersKnown: Bool
    ) -> Self {
        Self(
            extended: extended, active: active, interval: interval, window: window, filterPolicy: filterPolicy,
            ownAddressType: ownAddressType, phys: phys, filterDuplicates: filterDuplicates,
            parametersKnown: parametersKnown)
    }
}

extension AdvertisementInfo {
    public static func make(extended: Bool, eventType: UInt16, rssi: Int8, txPower: Int8?, primaryPHY: UInt8?) -> Self {
        Self(extended: extended, eventType: eventType, rssi: rssi, txPower: txPower, primaryPHY: primaryPHY)
    }
}

extension ConnectionCreateInfo {
    public static func make(
        extended: Bool, filterPolicy: UInt8, scanInterval: UInt16, scanWindow: UInt16, intervalMin: UInt16,
        intervalMax: UInt16, latency: UInt16, supervisionTimeout: UInt16, phys: UInt8 = 0x01
    ) -> Self {
        Self(
            extended: extended, filterPolicy: filterPolicy, scanInterval: scanInterval, scanWindow: scanWindow,
            intervalMin: intervalMin, intervalMax: intervalMax, latency: latency,
            supervisionTimeout: supervisionTimeout, phys: phys)
    }
}

extension ConnectionCompleteInfo {
    public static func make(status: UInt8, handle: UInt16, role: UInt8?, timing: ConnectionTiming?, isLE: Bool) -> Self
    {
        Self(status: status, handle: handle, role: role, timing: timing, isLE: isLE)
    }
}

extension DiscoveryInfo {
    public static func make(
        target: DiscoveryTarget, startHandle: UInt16, endHandle: UInt16, filter: BluetoothUUID?, found: Int
    ) -> Self {
        Self(target: target, startHandle: startHandle, endHandle: endHandle, filter: filter, found: found)
    }
}

extension AttributeOperation {
    public static func make(
        opcode: UInt8, handle: UInt16, attribute: AttributeRef?, mtu: UInt16, offset: UInt16?, sent: Bool,
        mtuKnown: Bool = true, serverIsPeer: Bool? = nil
    ) -> Self {
        // Unstated: the server a PDU of this direction addresses (requests go to it, updates
        // come from it).
        let updates = opcode == 0x1B || opcode == 0x1D || opcode == 0x23
        return Self(
            opcode: opcode, handle: handle, attribute: attribute, mtu: mtu, offset: offset, sent: sent,
            mtuKnown: mtuKnown, serverIsPeer: serverIsPeer ?? (updates ? !sent : sent))
    }
}

extension AttributeRef {
    public static func make(
        role: Role, handle: UInt16, uuid: BluetoothUUID, characteristic: BluetoothUUID?, properties: UInt8?,
        carriedOver: Bool, characteristicValueHandle: UInt16? = nil, characteristicProperties: UInt8? = nil
    ) -> Self {
        Self(
            role: role, handle: handle, uuid: uuid, characteristic: characteristic, properties: properties,
            carriedOver: carriedOver,
            characteristicValueHandle: characteristicValueHandle, characteristicProperties: characteristicProperties)
    }
}
