import BLEBytes
import CaptureIO

/// An LL Control PDU (Core 5.4 Vol 6 Part B 2.4.2): Opcode, then CtrData whose size the opcode
/// fixes (Table 2.18). The typed views below read the fields of the opcodes the timeline uses;
/// every opcode has its name and size in `LLControlPDU.table`.
public struct LLControlPDU: ByteEncodable, @unchecked Sendable {
    public let opcode: UInt8
    public let ctrData: ByteView

    /// `payload` is the data PDU's payload (opcode first). Nil when empty.
    public init?(_ payload: ByteView) {
        guard let op = payload.u8(0) else { return nil }
        opcode = op
        ctrData = payload.suffix(from: 1) ?? .empty
    }

    public init(opcode: UInt8, ctrData: ByteView) {
        self.opcode = opcode
        self.ctrData = ctrData
    }

    public func append(to w: inout ByteWriter) {
        w.appendUInt8(opcode)
        w.appendBytes(ctrData)
    }

    public struct Entry: Sendable {
        public let name: StaticString
        /// CtrData octets (Table 2.18).
        public let size: Int
    }

    /// Opcode → name and CtrData size (Table 2.18, Core 5.4), indexed by opcode.
    public static let table: [Entry] = [
        Entry(name: "LL_CONNECTION_UPDATE_IND", size: 11),  // 0x00
        Entry(name: "LL_CHANNEL_MAP_IND", size: 7),
        Entry(name: "LL_TERMINATE_IND", size: 1),
        Entry(name: "LL_ENC_REQ", size: 22),
        Entry(name: "LL_ENC_RSP", size: 12),
        Entry(name: "LL_START_ENC_REQ", size: 0),
        Entry(name: "LL_START_ENC_RSP", size: 0),
        Entry(name: "LL_UNKNOWN_RSP", size: 1),
        Entry(name: "LL_FEATURE_REQ", size: 8),  // 0x08
        Entry(name: "LL_FEATURE_RSP", size: 8),
        Entry(name: "LL_PAUSE_ENC_REQ", size: 0),
        Entry(name: "LL_PAUSE_ENC_RSP", size: 0),
        Entry(name: "LL_VERSION_IND", size: 5),
        Entry(name: "LL_REJECT_IND", size: 1),
        Entry(name: "LL_PERIPHERAL_FEATURE_REQ", size: 8),
        Entry(name: "LL_CONNECTION_PARAM_REQ", size: 23),
        Entry(name: "LL_CONNECTION_PARAM_RSP", size: 23),  // 0x10
        Entry(name: "LL_REJECT_EXT_IND", size: 2),
        Entry(name: "LL_PING_REQ", size: 0),
        Entry(name: "LL_PING_RSP", size: 0),
        Entry(name: "LL_LENGTH_REQ", size: 8),
        Entry(name: "LL_LENGTH_RSP", size: 8),
        Entry(name: "LL_PHY_REQ", size: 2),
        Entry(name: "LL_PHY_RSP", size: 2),
        Entry(name: "LL_PHY_UPDATE_IND", size: 4),  // 0x18
        Entry(name: "LL_MIN_USED_CHANNELS_IND", size: 2),
        Entry(name: "LL_CTE_REQ", size: 1),
        Entry(name: "LL_CTE_RSP", size: 0),
        Entry(name: "LL_PERIODIC_SYNC_IND", size: 34),
        Entry(name: "LL_CLOCK_ACCURACY_REQ", size: 1),
        Entry(name: "LL_CLOCK_ACCURACY_RSP", size: 1),
        Entry(name: "LL_CIS_REQ", size: 35),
        Entry(name: "LL_CIS_RSP", size: 8),  // 0x20
        Entry(name: "LL_CIS_IND", size: 15),
        Entry(name: "LL_CIS_TERMINATE_IND", size: 3),
        Entry(name: "LL_POWER_CONTROL_REQ", size: 3),
        Entry(name: "LL_POWER_CONTROL_RSP", size: 4),
        Entry(name: "LL_POWER_CHANGE_IND", size: 4),
        Entry(name: "LL_SUBRATE_REQ", size: 10),
        Entry(name: "LL_SUBRATE_IND", size: 10),
        Entry(name: "LL_CHANNEL_REPORTING_IND", size: 3),  // 0x28
        Entry(name: "LL_CHANNEL_STATUS_IND", size: 10),
        Entry(name: "LL_PERIODIC_SYNC_WR_IND", size: 35),
        Entry(name: "LL_FEATURE_EXT_REQ", size: 26),
        Entry(name: "LL_FEATURE_EXT_RSP", size: 26),
    ]

    public static func entry(_ opcode: UInt8) -> Entry? {
        Int(opcode) < table.count ? table[Int(opcode)] : nil
    }

    public static func name(_ opcode: UInt8) -> StaticString { entry(opcode)?.name ?? "LL_UNKNOWN_OPCODE" }

    public var name: StaticString { Self.name(opcode) }

    /// Whether CtrData has the size the opcode fixes (unknown opcodes: false).
    public var hasExpectedSize: Bool { Self.entry(opcode).map { $0.size == ctrData.count } ?? false }

    // MARK: typed fields (2.4.2.x)

    /// LL_TERMINATE_IND (2.4.2.3), LL_REJECT_IND: the error code (Vol 1 Part F).
    public var errorCode: UInt8? {
        switch opcode {
        case LLControlOpcode.terminateInd, LLControlOpcode.rejectInd: ctrData.u8(0)
        case LLControlOpcode.rejectExtInd: ctrData.u8(1)
        default: nil
        }
    }

    /// LL_UNKNOWN_RSP's UnknownType, LL_REJECT_EXT_IND's RejectOpcode.
    public var referencedOpcode: UInt8? {
        opcode == LLControlOpcode.unknownRsp || opcode == LLControlOpcode.rejectExtInd ? ctrData.u8(0) : nil
    }

    /// LL_CONNECTION_UPDATE_IND (2.4.2.1).
    public struct ConnectionUpdate: Sendable, Equatable {
        public var windowSize: UInt8, windowOffset: UInt16, interval: UInt16, latency: UInt16, timeout: UInt16
        public var instant: UInt16
    }

    public var connectionUpdate: ConnectionUpdate? {
        guard opcode == LLControlOpcode.connectionUpdateInd, let ws = ctrData.u8(0), let wo = ctrData.u16le(1),
            let iv = ctrData.u16le(3), let lat = ctrData.u16le(5), let to = ctrData.u16le(7),
            let inst = ctrData.u16le(9)
        else { return nil }
        return ConnectionUpdate(
            windowSize: ws, windowOffset: wo, interval: iv, latency: lat, timeout: to, instant: inst)
    }

    /// LL_CONNECTION_PARAM_REQ / RSP (2.4.2.16, 2.4.2.17): the range of parameters one side
    /// asks for (Interval_Min/Max in 1.25 ms, Latency, Timeout in 10 ms), PreferredPeriodicity,
    /// ReferenceConnEventCount and Offset0–5 (1.25 ms, 0xFFFF unused). It changes nothing: the
    /// central's LL_CONNECTION_UPDATE_IND that follows does.
    public struct ConnectionParameterRequest: Sendable, Equatable {
        public var intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16
        public var preferredPeriodicity: UInt8
        public var referenceEventCount: UInt16
        public var offsets: [UInt16]
    }

    public var connectionParameterRequest: ConnectionParameterRequest? {
        guard opcode == LLControlOpcode.connectionParamReq || opcode == LLControlOpcode.connectionParamRsp,
            let minI = ctrData.u16le(0), let maxI = ctrData.u16le(2), let lat = ctrData.u16le(4),
            let to = ctrData.u16le(6), let period = ctrData.u8(8), let ref = ctrData.u16le(9)
        else { return nil }
        let offsets = (0..<6).compactMap { ctrData.u16le(11 + 2 * $0) }
        return ConnectionParameterRequest(
            intervalMin: minI, intervalMax: maxI, latency: lat, timeout: to, preferredPeriodicity: period,
            referenceEventCount: ref, offsets: offsets)
    }

    /// LL_CHANNEL_MAP_IND (2.4.2.2): ChM (37 bits) and Instant.
    public var channelMap: (map: UInt64, instant: UInt16)? {
        guard opcode == LLControlOpcode.channelMapInd, let lo = ctrData.u32le(0), let hi = ctrData.u8(4),
            let inst = ctrData.u16le(5)
        else { return nil }
        return (UInt64(lo) | UInt64(hi) << 32, inst)
    }

    /// LL_ENC_REQ (2.4.2.4): Rand, EDIV, SKDc, IVc.
    public struct EncryptionRequest: Sendable, Equatable {
        public var rand: UInt64, ediv: UInt16, skdC: UInt64, ivC: UInt32
    }

    public var encryptionRequest: EncryptionRequest? {
        guard opcode == LLControlOpcode.encReq, let r = ctrData.u64le(0), let e = ctrData.u16le(8),
            let s = ctrData.u64le(10), let i = ctrData.u32le(18)
        else { return nil }
        return EncryptionRequest(rand: r, ediv: e, skdC: s, ivC: i)
    }

    /// LL_ENC_RSP (2.4.2.5): SKDp, IVp.
    public var encryptionResponse: (skdP: UInt64, ivP: UInt32)? {
        guard opcode == LLControlOpcode.encRsp, let s = ctrData.u64le(0), let i = ctrData.u32le(8) else { return nil }
        return (s, i)
    }

    /// LL_FEATURE_REQ / RSP, LL_PERIPHERAL_FEATURE_REQ (2.4.2.9–10): FeatureSet (64 bits).
    public var featureSet: UInt64? {
        switch opcode {
        case LLControlOpcode.featureReq, LLControlOpcode.featureRsp, LLControlOpcode.peripheralFeatureReq:
            ctrData.u64le(0)
        default: nil
        }
    }

    /// LL_VERSION_IND (2.4.2.13): VersNr, CompId, SubVersNr.
    public var version: (versNr: UInt8, companyID: UInt16, subVersNr: UInt16)? {
        guard opcode == LLControlOpcode.versionInd, let v = ctrData.u8(0), let c = ctrData.u16le(1),
            let s = ctrData.u16le(3)
        else { return nil }
        return (v, c, s)
    }

    /// LL_LENGTH_REQ / RSP (2.4.2.21): MaxRxOctets, MaxRxTime, MaxTxOctets, MaxTxTime.
    public var dataLength: (maxRxOctets: UInt16, maxRxTime: UInt16, maxTxOctets: UInt16, maxTxTime: UInt16)? {
        guard opcode == LLControlOpcode.lengthReq || opcode == LLControlOpcode.lengthRsp,
            let ro = ctrData.u16le(0), let rt = ctrData.u16le(2), let to = ctrData.u16le(4), let tt = ctrData.u16le(6)
        else { return nil }
        return (ro, rt, to, tt)
    }

    /// LL_PHY_REQ / RSP (2.4.2.22): TX_PHYS, RX_PHYS (bit 0 1M, bit 1 2M, bit 2 Coded).
    public var phyPreferences: (tx: UInt8, rx: UInt8)? {
        guard opcode == LLControlOpcode.phyReq || opcode == LLControlOpcode.phyRsp, let t = ctrData.u8(0),
            let r = ctrData.u8(1)
        else { return nil }
        return (t, r)
    }

    /// LL_PHY_UPDATE_IND (2.4.2.23): PHY_C_TO_P, PHY_P_TO_C (one bit each, 0 = unchanged), Instant.
    public var phyUpdate: (centralToPeripheral: UInt8, peripheralToCentral: UInt8, instant: UInt16)? {
        guard opcode == LLControlOpcode.phyUpdateInd, let c = ctrData.u8(0), let p = ctrData.u8(1),
            let i = ctrData.u16le(2)
        else { return nil }
        return (c, p, i)
    }

    /// Whether the PDU carries an Instant (a procedure that takes effect at a future event).
    public var instant: UInt16? {
        switch opcode {
        case LLControlOpcode.connectionUpdateInd: ctrData.u16le(9)
        case LLControlOpcode.channelMapInd: ctrData.u16le(5)
        case LLControlOpcode.phyUpdateInd: ctrData.u16le(2)
        default: nil
        }
    }
}
