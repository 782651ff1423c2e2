import BLEBytes

// LE Meta subevents (Core 5.4 Vol 4 Part E 7.7.65). Every `init?(parameters:)` here takes the
// subevent's parameters, i.e. `HCIEventPacket.subeventParameters` (after the subevent code).

/// HCI_LE_Connection_Complete (7.7.65.1), subevent 0x01.
public struct HCILEConnectionComplete: HCILESubeventEncodable, Sendable {
    public static let subevent: UInt8 = HCILESubeventCode.connectionComplete
    public let status: UInt8
    public let handle: UInt16
    /// 0 central, 1 peripheral.
    public let role: UInt8
    public let peerAddressType: UInt8
    public let peerAddress: BDAddr
    /// Units of 1.25 ms.
    public let interval: UInt16
    public let latency: UInt16
    /// Units of 10 ms.
    public let supervisionTimeout: UInt16
    public let centralClockAccuracy: UInt8

    public init?(parameters p: ByteView) {
        guard let s = p.u8(0), let h = p.u16le(1), let r = p.u8(3), let t = p.u8(4),
            let a = BDAddr(littleEndian: p, at: 5), let i = p.u16le(11), let l = p.u16le(13),
            let to = p.u16le(15), let ca = p.u8(17)
        else { return nil }
        (
            status, handle, role, peerAddressType, peerAddress, interval, latency, supervisionTimeout,
            centralClockAccuracy
        ) = (s, h & 0x0FFF, r, t, a, i, l, to, ca)
    }

    public init(
        status: UInt8, handle: UInt16, role: UInt8, peerAddressType: UInt8, peerAddress: BDAddr,
        interval: UInt16, latency: UInt16, supervisionTimeout: UInt16, centralClockAccuracy: UInt8
    ) {
        (self.status, self.handle, self.role, self.peerAddressType, self.peerAddress) =
            (status, handle, role, peerAddressType, peerAddress)
        (self.interval, self.latency, self.supervisionTimeout, self.centralClockAccuracy) =
            (interval, latency, supervisionTimeout, centralClockAccuracy)
    }

    public var subeventCode: UInt8 { Self.subevent }
    public func appendSubeventParameters(to w: inout ByteWriter) {
        w.appendUInt8(status)
        w.appendUInt16LE(handle)
        w.appendUInt8(role)
        w.appendUInt8(peerAddressType)
        w.appendAddress(peerAddress)
        w.appendUInt16LE(interval)
        w.appendUInt16LE(latency)
        w.appendUInt16LE(supervisionTimeout)
        w.appendUInt8(centralClockAccuracy)
    }

    public var isCentral: Bool { role == 0 }
    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.unit1250 }
    public var supervisionTimeoutMicroseconds: Int64 { Int64(supervisionTimeout) * HCIFields.unit10ms }
}

/// HCI_LE_Enhanced_Connection_Complete [v1] (7.7.65.10, subevent 0x0A) and [v2] (subevent
/// 0x29, which appends the advertising and sync handles). Adds the RPAs to LE Connection
/// Complete; with address resolution on, `peerAddress` is the identity address.
public struct HCILEEnhancedConnectionComplete: HCILESubeventEncodable, Sendable {
    public static let subeventV1: UInt8 = HCILESubeventCode.enhancedConnectionComplete
    public static let subeventV2: UInt8 = HCILESubeventCode.enhancedConnectionCompleteV2
    public let version: Int
    public let status: UInt8
    public let handle: UInt16
    public let role: UInt8
    public let peerAddressType: UInt8
    public let peerAddress: BDAddr
    public let localResolvablePrivateAddress: BDAddr
    public let peerResolvablePrivateAddress: BDAddr
    public let interval: UInt16
    public let latency: UInt16
    public let supervisionTimeout: UInt16
    public let centralClockAccuracy: UInt8
    /// v2 only.
    public let advertisingHandle: UInt8?
    public let syncHandle: UInt16?

    public init?(parameters p: ByteView, version: Int = 1) {
        guard let s = p.u8(0), let h = p.u16le(1), let r = p.u8(3), let t = p.u8(4),
            let a = BDAddr(littleEndian: p, at: 5), let local = BDAddr(littleEndian: p, at: 11),
            let peer = BDAddr(littleEndian: p, at: 17), let i = p.u16le(23), let l = p.u16le(25),
            let to = p.u16le(27), let ca = p.u8(29)
        else { return nil }
        if version == 2 {
            guard let ah = p.u8(30), let sh = p.u16le(31) else { return nil }
            (advertisingHandle, syncHandle) = (ah, sh)
        } else {
            (advertisingHandle, syncHandle) = (nil, nil)
        }
        self.version = version == 2 ? 2 : 1
        (
            status, handle, role, peerAddressType, peerAddress, localResolvablePrivateAddress,
            peerResolvablePrivateAddress, interval, latency, supervisionTimeout, centralClockAccuracy
        ) = (s, h & 0x0FFF, r, t, a, local, peer, i, l, to, ca)
    }

    /// [v1]; [v2] when `advertisingHandle` and `syncHandle` are given.
    public init(
        status: UInt8, handle: UInt16, role: UInt8, peerAddressType: UInt8, peerAddress: BDAddr,
        localResolvablePrivateAddress: BDAddr, peerResolvablePrivateAddress: BDAddr,
        interval: UInt16, latency: UInt16, supervisionTimeout: UInt16, centralClockAccuracy: UInt8,
        advertisingHandle: UInt8? = nil, syncHandle: UInt16? = nil
    ) {
        (self.status, self.handle, self.role, self.peerAddressType, self.peerAddress) =
            (status, handle, role, peerAddressType, peerAddress)
        (self.localResolvablePrivateAddress, self.peerResolvablePrivateAddress) =
            (localResolvablePrivateAddress, peerResolvablePrivateAddress)
        (self.interval, self.latency, self.supervisionTimeout, self.centralClockAccuracy) =
            (interval, latency, supervisionTimeout, centralClockAccuracy)
        let v2 = advertisingHandle != nil && syncHandle != nil
        version = v2 ? 2 : 1
        (self.advertisingHandle, self.syncHandle) = v2 ? (advertisingHandle, syncHandle) : (nil, nil)
    }

    public var subeventCode: UInt8 { version == 2 ? Self.subeventV2 : Self.subeventV1 }
    public func appendSubeventParameters(to w: inout ByteWriter) {
        w.appendUInt8(status)
        w.appendUInt16LE(handle)
        w.appendUInt8(role)
        w.appendUInt8(peerAddressType)
        w.appendAddress(peerAddress)
        w.appendAddress(localResolvablePrivateAddress)
        w.appendAddress(peerResolvablePrivateAddress)
        w.appendUInt16LE(interval)
        w.appendUInt16LE(latency)
        w.appendUInt16LE(supervisionTimeout)
        w.appendUInt8(centralClockAccuracy)
        if let advertisingHandle, let syncHandle {
            w.appendUInt8(advertisingHandle)
            w.appendUInt16LE(syncHandle)
        }
    }

    public var isCentral: Bool { role == 0 }
    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.unit1250 }
    public var supervisionTimeoutMicroseconds: Int64 { Int64(supervisionTimeout) * HCIFields.unit10ms }
}

/// HCI_LE_Connection_Update_Complete (7.7.65.3), subevent 0x03.
public struct HCILEConnectionUpdateComplete: Sendable {
    public static let subevent: UInt8 = 0x03
    public let status: UInt8
    public let handle: UInt16
    public let interval: UInt16
    public let latency: UInt16
    public let supervisionTimeout: UInt16

    public init?(parameters p: ByteView) {
        guard let s = p.u8(0), let h = p.u16le(1), let i = p.u16le(3), let l = p.u16le(5), let t = p.u16le(7)
        else { return nil }
        (status, handle, interval, latency, supervisionTimeout) = (s, h & 0x0FFF, i, l, t)
    }

    public var intervalMicroseconds: Int64 { Int64(interval) * HCIFields.unit1250 }
    public var supervisionTimeoutMicroseconds: Int64 { Int64(supervisionTimeout) * HCIFields.unit10ms }
}

/// HCI_LE_Read_Remote_Features_Complete (7.7.65.4), subevent 0x04.
public struct HCILEReadRemoteFeaturesComplete: Sendable {
    public static let subevent: UInt8 = 0x04
    public let status: UInt8
    public let handle: UInt16
    /// LE feature bits (Vol 6 Part B 4.6), little-endian.
    public let features: UInt64

    public init?(parameters p: ByteView) {
        guard let s = p.u8(0), let h = p.u16le(1), let f = p.u64le(3) else { return nil }
        (status, handle, features) = (s, h & 0x0FFF, f)
    }
}

/// HCI_LE_Long_Term_Key_Request (7.7.65.5), subevent 0x05. Random 0 and EDIV 0 mean an LE
/// Secure Connections (or stored) key is wanted.
public struct HCILELongTermKeyRequest: Sendable {
    public static let subevent: UInt8 = 0x05
    public let handle: UInt16
    public let randomNumber: UInt64
    public let encryptedDiversifier: UInt16

    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let r = p.u64le(2), let e = p.u16le(10) else { return nil }
        (handle, randomNumber, encryptedDiversifier) = (h & 0x0FFF, r, e)
    }
}

/// HCI_LE_Data_Length_Change (7.7.65.7), subevent 0x07. Times are in microseconds.
public struct HCILEDataLengthChange: Sendable {
    public static let subevent: UInt8 = 0x07
    public let handle: UInt16
    public let maxTxOctets: UInt16
    public let maxTxTime: UInt16
    public let maxRxOctets: UInt16
    public let maxRxTime: UInt16

    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let a = p.u16le(2), let b = p.u16le(4), let c = p.u16le(6), let d = p.u16le(8)
        else { return nil }
        (handle, maxTxOctets, maxTxTime, maxRxOctets, maxRxTime) = (h & 0x0FFF, a, b, c, d)
    }
}

/// HCI_LE_PHY_Update_Complete (7.7.65.12), subevent 0x0C.
public struct HCILEPHYUpdateComplete: Sendable {
    public static let subevent: UInt8 = 0x0C
    public let status: UInt8
    public let handle: UInt16
    /// 1 LE 1M, 2 LE 2M, 3 LE Coded.
    public let txPHY: UInt8
    public let rxPHY: UInt8

    public init?(parameters p: ByteView) {
        guard let s = p.u8(0), let h = p.u16le(1), let t = p.u8(3), let r = p.u8(4) else { return nil }
        (status, handle, txPHY, rxPHY) = (s, h & 0x0FFF, t, r)
    }
}

/// HCI_LE_Advertising_Set_Terminated (7.7.65.18), subevent 0x12. On success the set ended
/// because a connection was made on `connectionHandle`.
public struct HCILEAdvertisingSetTerminated: Sendable {
    public static let subevent: UInt8 = 0x12
    public let status: UInt8
    public let advertisingHandle: UInt8
    public let connectionHandle: UInt16
    public let numCompletedExtendedAdvertisingEvents: UInt8

    public init?(parameters p: ByteView) {
        guard let s = p.u8(0), let a = p.u8(1), let h = p.u16le(2), let n = p.u8(4) else { return nil }
        (status, advertisingHandle, connectionHandle, numCompletedExtendedAdvertisingEvents) = (s, a, h & 0x0FFF, n)
    }
}

/// HCI_LE_Channel_Selection_Algorithm (7.7.65.20), subevent 0x14.
public struct HCILEChannelSelectionAlgorithm: Sendable {
    public static let subevent: UInt8 = 0x14
    public let handle: UInt16
    /// 0 = algorithm #1, 1 = algorithm #2.
    public let algorithm: UInt8

    public init?(parameters p: ByteView) {
        guard let h = p.u16le(0), let a = p.u8(2) else { return nil }
        (handle, algorithm) = (h & 0x0FFF, a)
    }
}

private typealias P = HCIParameter

/// Fixed layouts of LE subevents (7.7.65).
enum HCILEEventLayouts {
    static let connectionTiming = [
        P("connection_interval", .duration16(unit: HCIFields.unit1250)),
        P("peripheral_latency", .uint16),
        P("supervision_timeout", .duration16(unit: HCIFields.unit10ms)),
    ]
    static let connectionComplete =
        [
            P("status", .status), P("connection_handle", .handle),
            P("role", .code8(HCIValueNames.role)),
            P("peer_address_type", .code8(HCIValueNames.addressType)),
            P("peer_address", .address),
        ] + connectionTiming + [P("central_clock_accuracy", .code8(HCIValueNames.clockAccuracy))]
    static let enhancedConnectionCompleteV1 =
        [
            P("status", .status), P("connection_handle", .handle),
            P("role", .code8(HCIValueNames.role)),
            P("peer_address_type", .code8(HCIValueNames.addressType)),
            P("peer_address", .address),
            P("local_resolvable_private_address", .address),
            P("peer_resolvable_private_address", .address),
        ] + connectionTiming + [P("central_clock_accuracy", .code8(HCIValueNames.clockAccuracy))]
    static let enhancedConnectionCompleteV2 =
        enhancedConnectionCompleteV1 + [
            P("advertising_handle", .hex8), P("sync_handle", .hex16),
        ]
    static let connectionUpdateComplete = [P("status", .status), P("connection_handle", .handle)] + connectionTiming
    static let readRemoteFeaturesComplete = [
        P("status", .status), P("connection_handle", .handle), P("le_features", .hex64),
    ]
    static let longTermKeyRequest = [
        P("connection_handle", .handle), P("random_number", .hex64), P("encrypted_diversifier", .hex16),
    ]
    static let remoteConnectionParameterRequest = [
        P("connection_handle", .handle),
        P("interval_min", .duration16(unit: HCIFields.unit1250)),
        P("interval_max", .duration16(unit: HCIFields.unit1250)),
        P("max_latency", .uint16),
        P("timeout", .duration16(unit: HCIFields.unit10ms)),
    ]
    static let dataLengthChange = [
        P("connection_handle", .handle),
        P("max_tx_octets", .uint16), P("max_tx_time", .duration16(unit: 1)),
        P("max_rx_octets", .uint16), P("max_rx_time", .duration16(unit: 1)),
    ]
    static let readLocalP256PublicKeyComplete = [P("status", .status), P("key", .bytes(64))]
    static let generateDHKeyComplete = [P("status", .status), P("dh_key", .bytes(32))]
    static let phyUpdateComplete = [
        P("status", .status), P("connection_handle", .handle),
        P("tx_phy", .code8(HCIValueNames.phy)), P("rx_phy", .code8(HCIValueNames.phy)),
    ]
    static let scanTimeout: [HCIParameter] = []
    static let advertisingSetTerminated = [
        P("status", .status), P("advertising_handle", .hex8), P("connection_handle", .handle),
        P("num_completed_extended_advertising_events", .uint8),
    ]
    static let scanRequestReceived = [
        P("advertising_handle", .hex8),
        P("scanner_address_type", .code8(HCIValueNames.addressType)),
        P("scanner_address", .address),
    ]
    static let channelSelectionAlgorithm = [
        P("connection_handle", .handle),
        P("channel_selection_algorithm", .code8(HCIValueNames.channelSelectionAlgorithm)),
    ]
}
