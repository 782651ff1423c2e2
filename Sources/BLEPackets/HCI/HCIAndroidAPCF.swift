import BLEBytes

// Android's "Advertising Packet Content Filter" vendor command, HCI_BLE_ADV_FILTER (opcode
// 0xFD57, OGF 0x3F OCF 0x157): the host offloads its scan filters to the controller, which then
// reports only matching advertisements. Layouts from AOSP: the Android HCI requirements
// (source.android.com/devices/bluetooth/hci_requirements, "Advertising packet content
// filter"), system/bt/stack/btm/btm_ble_adv_filter.cc (what the legacy stack sends) and
// system/pdl/hci/hci_packets.pdl (`LeAdvFilter*`, what the newer stack sends). The first
// parameter is a sub-command (`APCF_opcode`); every sub-command but Enable and Read Extended
// Features then carries an action (add/delete/clear) and a filter index. Command Complete
// returns status, the sub-command, and for filter sub-commands the action and the number of
// filter entries still free in the controller.

/// HCI_BLE_ADV_FILTER (AOSP `LeAdvFilter`), opcode 0xFD57: one APCF sub-command.
public struct HCILEAdvFilter: Sendable {
    public static let opcode: UInt16 = 0xFD57

    /// `APCF_opcode` (AOSP `ApcfOpcode`).
    public enum SubCommand: UInt8, Sendable {
        case enable = 0x00
        case setFilteringParameters = 0x01
        case broadcasterAddress = 0x02
        case serviceUUID = 0x03
        case serviceSolicitationUUID = 0x04
        case localName = 0x05
        case manufacturerData = 0x06
        case serviceData = 0x07
        case transportDiscoveryData = 0x08
        case adType = 0x09
        case readExtendedFeatures = 0xFF

        /// Whether the sub-command edits a filter index (action and index follow).
        public var editsFilter: Bool { rawValue >= 0x01 && rawValue <= 0x09 }
    }

    /// `APCF_action` (AOSP `ApcfAction`).
    public enum Action: UInt8, Sendable {
        case add = 0x00
        case delete = 0x01
        case clear = 0x02

        /// The lower-case verb one-line summaries use.
        public var verb: StaticString {
            switch self {
            case .add: "add"
            case .delete: "delete"
            case .clear: "clear"
            }
        }
    }

    public let subcommandCode: UInt8
    /// The parameters after the sub-command byte.
    public let body: ByteView

    public init?(parameters p: ByteView) {
        guard let code = p.u8(0) else { return nil }
        subcommandCode = code
        body = p.suffix(from: 1) ?? .empty
    }

    public var subcommand: SubCommand? { SubCommand(rawValue: subcommandCode) }

    /// Enable: the new state of filtering (`APCF_enable`).
    public var enable: Bool? {
        guard subcommand == .enable, let v = body.u8(0) else { return nil }
        return v != 0
    }

    /// Filter sub-commands: the action, raw (0 add, 1 delete, 2 clear).
    public var actionCode: UInt8? { subcommand?.editsFilter == true ? body.u8(0) : nil }
    public var action: Action? { actionCode.flatMap(Action.init(rawValue:)) }

    /// Filter sub-commands: the filter index. Absent on Set Filtering Parameters' clear-all
    /// form (AOSP sends sub-command and action only) and on a truncated command.
    public var filterIndex: UInt8? { subcommand?.editsFilter == true ? body.u8(1) : nil }

    /// What follows action and index (the condition, or the filtering parameters).
    public var conditionBytes: ByteView { body.suffix(from: 2) ?? .empty }

    /// Set Filtering Parameters with action add.
    public var filteringParameters: APCFFilteringParameters? {
        guard subcommand == .setFilteringParameters, action == .add else { return nil }
        return APCFFilteringParameters(conditionBytes)
    }

    /// The condition an add/delete of a condition sub-command (0x02–0x07) carries; nil for a
    /// clear, for other sub-commands, and when the bytes do not fit the sub-command's layout.
    public var condition: APCFCondition? {
        guard let s = subcommand, action != .clear else { return nil }
        return APCFCondition(s, conditionBytes)
    }
}

/// `APCF_feature_selection` bits (AOSP `ApcfFilterType`): which conditions of a filter index
/// an advertisement must meet. No bit set means the index lets every advertisement through
/// (AOSP ScanManager's `ALL_PASS_FILTER_SELECTION = 0`).
public enum APCFFeature {
    public static let broadcasterAddress: UInt16 = 1 << 0
    public static let serviceDataChange: UInt16 = 1 << 1
    public static let serviceUUID: UInt16 = 1 << 2
    public static let serviceSolicitationUUID: UInt16 = 1 << 3
    public static let localName: UInt16 = 1 << 4
    public static let manufacturerData: UInt16 = 1 << 5
    public static let serviceData: UInt16 = 1 << 6
    public static let transportDiscoveryData: UInt16 = 1 << 7
    public static let adType: UInt16 = 1 << 8

    public static let names = FlagNames([
        "Broadcaster Address", "Service Data Change", "Service UUID", "Service Solicitation UUID",
        "Local Name", "Manufacturer Data", "Service Data", "Transport Discovery Data", "AD Type",
    ])
}

/// Set Filtering Parameters, action add (AOSP `LeAdvFilterAddFilteringParameters`): the
/// filter index's feature selection and delivery. The legacy stack sends the on-found/on-lost
/// fields always (zero unless `deliveryMode` is on-found) and `num_of_tracking_entries` only
/// to controllers newer than the L release (feature version 0.95+), so 13 or 15 bytes follow
/// the index; a shorter block is read as far as it goes.
public struct APCFFilteringParameters: Sendable, Equatable {
    public let featureSelection: UInt16
    public let listLogicType: UInt16
    public let filterLogicType: UInt8
    public let rssiHighThreshold: Int8
    /// 0 immediate, 1 on found, 2 batched.
    public let deliveryMode: UInt8
    public let onFoundTimeout: UInt16?
    public let onFoundTimeoutCount: UInt8?
    public let rssiLowThreshold: Int8?
    public let onLostTimeout: UInt16?
    public let numberOfTrackingEntries: UInt16?

    public init?(_ v: ByteView) {
        guard let f = v.u16le(0), let l = v.u16le(2), let fl = v.u8(4), let r = v.i8(5), let d = v.u8(6)
        else { return nil }
        (featureSelection, listLogicType, filterLogicType, rssiHighThreshold, deliveryMode) = (f, l, fl, r, d)
        if let t = v.u16le(7), let c = v.u8(9), let lo = v.i8(10), let lt = v.u16le(11) {
            (onFoundTimeout, onFoundTimeoutCount, rssiLowThreshold, onLostTimeout) = (t, c, lo, lt)
        } else {
            (onFoundTimeout, onFoundTimeoutCount, rssiLowThreshold, onLostTimeout) = (nil, nil, nil, nil)
        }
        numberOfTrackingEntries = v.u16le(13)
    }

    /// True when no feature is selected: the index matches every advertisement.
    public var isAllPass: Bool { featureSelection == 0 }
}

/// One filter condition (sub-commands 0x02–0x07), as the host sent it.
public enum APCFCondition: Sendable {
    /// Broadcaster address and `APCF_application_address_type` (0 public, 1 random, 2 n/a).
    case broadcasterAddress(BDAddr, addressType: UInt8)
    /// Service UUID or service solicitation UUID (`solicitation`) and its mask, both 2, 4 or
    /// 16 bytes little-endian (AOSP fills an absent mask with 0xFF).
    case uuid(BluetoothUUID, mask: ByteView, solicitation: Bool)
    case localName(ByteView)
    /// Company identifier and data, then company mask and data mask (AOSP: `company`, `data`,
    /// `company_mask`, `data_mask`; the pattern and the mask are the same length).
    case manufacturerData(company: UInt16, data: ByteView, companyMask: UInt16, dataMask: ByteView)
    /// Service data pattern (UUID then data, as in the AD structure) and its mask.
    case serviceData(pattern: ByteView, mask: ByteView)

    public init?(_ s: HCILEAdvFilter.SubCommand, _ v: ByteView) {
        switch s {
        case .broadcasterAddress:
            guard v.count == 7, let a = BDAddr(littleEndian: v, at: 0), let t = v.u8(6) else { return nil }
            self = .broadcasterAddress(a, addressType: t)
        case .serviceUUID, .serviceSolicitationUUID:
            let n = v.count / 2
            guard v.count % 2 == 0, let u = v.slice(0, n).flatMap(BluetoothUUID.init(littleEndian:)),
                let m = v.slice(n, n)
            else { return nil }
            self = .uuid(u, mask: m, solicitation: s == .serviceSolicitationUUID)
        case .localName:
            self = .localName(v)
        case .manufacturerData:
            let half = v.count / 2
            guard v.count % 2 == 0, half >= 2, let c = v.u16le(0), let cm = v.u16le(half),
                let d = v.slice(2, half - 2), let dm = v.slice(half + 2, half - 2)
            else { return nil }
            self = .manufacturerData(company: c, data: d, companyMask: cm, dataMask: dm)
        case .serviceData:
            let half = v.count / 2
            guard v.count % 2 == 0, let d = v.slice(0, half), let m = v.slice(half, half) else { return nil }
            self = .serviceData(pattern: d, mask: m)
        default:
            return nil
        }
    }
}

/// Command Complete of HCI_BLE_ADV_FILTER (AOSP `LeAdvFilterComplete`): status, sub-command,
/// then Enable: the state; filter sub-commands: action and `APCF_available_spaces`; Read
/// Extended Features: a 16-bit feature mask. A failed command may return the status alone.
public struct HCILEAdvFilterComplete: Sendable {
    public let status: UInt8
    public let subcommandCode: UInt8?
    public let body: ByteView

    public init?(returnParameters p: ByteView) {
        guard let s = p.u8(0) else { return nil }
        status = s
        subcommandCode = p.u8(1)
        body = p.suffix(from: 2) ?? .empty
    }

    public var subcommand: HCILEAdvFilter.SubCommand? {
        subcommandCode.flatMap(HCILEAdvFilter.SubCommand.init(rawValue:))
    }
    public var availableSpaces: UInt8? { subcommand?.editsFilter == true ? body.u8(1) : nil }
}

/// Sub-command → name and describers, sorted by code (AOSP `ApcfOpcode`).
struct APCFSubCommandDescriptor: Sendable {
    let code: UInt8
    let name: StaticString
    let describe: HCIDescribeFunction
}

private typealias P = HCIParameter

enum HCIAndroidAPCFDecoders {
    static let apcfEnable = [P("apcf_enable", .code8(HCIValueNames.enable))]
    static let actionAndIndex = [P("apcf_action", .code8(actionName)), P("apcf_filter_index", .uint8)]
    static let filteringParameters = [
        P("apcf_feature_selection", .flags16(APCFFeature.names)),
        P("apcf_list_logic_type", .hex16),
        P("apcf_filter_logic_type", .hex8),
        P("rssi_high_thresh", .dBm),
        P("delivery_mode", .code8(deliveryModeName)),
    ]
    static let onFoundOnLost = [
        P("onfound_timeout", .duration16(unit: 1000)),
        P("onfound_timeout_cnt", .uint8),
        P("rssi_low_thresh", .dBm),
        P("onlost_timeout", .duration16(unit: 1000)),
    ]
    static let trackingEntries = [P("num_of_tracking_entries", .uint16)]
    static let address = [
        P("apcf_broadcaster_address", .address), P("apcf_application_address_type", .code8(applicationAddressTypeName)),
    ]
    static let completeAction = [P("apcf_action", .code8(actionName)), P("apcf_available_spaces", .uint8)]
    static let extendedFeatures = [
        P("apcf_extended_features", .flags16(FlagNames(["Transport Discovery Data Filter", "AD Type Filter"])))
    ]

    static func actionName(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Add"
        case 0x01: "Delete"
        case 0x02: "Clear"
        default: nil
        }
    }

    static func deliveryModeName(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Immediate"
        case 0x01: "On Found"
        case 0x02: "Batched"
        default: nil
        }
    }

    static func applicationAddressTypeName(_ v: UInt8) -> StaticString? {
        switch v {
        case 0x00: "Public"
        case 0x01: "Random"
        case 0x02: "Not Applicable"
        default: nil
        }
    }

    static let subcommands: [APCFSubCommandDescriptor] = [
        .init(code: 0x00, name: "Enable", describe: { p, s in HCIFields.describe(apcfEnable, p, into: s) }),
        .init(code: 0x01, name: "Set Filtering Parameters", describe: filteringParametersCommand),
        .init(
            code: 0x02, name: "Broadcaster Address",
            describe: { p, s in condition(p, s) { v, s in HCIFields.describe(address, v, into: s) } }),
        .init(code: 0x03, name: "Service UUID", describe: { p, s in condition(p, s) { v, s in uuid(v, s) } }),
        .init(
            code: 0x04, name: "Service Solicitation UUID", describe: { p, s in condition(p, s) { v, s in uuid(v, s) } }),
        .init(
            code: 0x05, name: "Local Name",
            describe: { p, s in condition(p, s) { v, s in s.field("apcf_local_name", .text(v)) } }),
        .init(
            code: 0x06, name: "Manufacturer Data",
            describe: { p, s in condition(p, s) { v, s in manufacturerData(v, s) } }),
        .init(
            code: 0x07, name: "Service Data",
            describe: { p, s in condition(p, s) { v, s in patternAndMask("apcf_service_data", v, s) } }),
        // Transport Discovery Data and AD Type filters differ between stack versions (AOSP
        // pdl keeps an "Old" and a new TDS layout): shown as named bytes.
        .init(
            code: 0x08, name: "Transport Discovery Data",
            describe: { p, s in condition(p, s) { v, s in s.field("apcf_transport_discovery_data", .bytes(v)) } }),
        .init(
            code: 0x09, name: "AD Type",
            describe: { p, s in condition(p, s) { v, s in s.field("apcf_ad_type_data", .bytes(v)) } }),
        .init(code: 0xFF, name: "Read Extended Features", describe: { p, s in HCIFields.describe([], p, into: s) }),
    ]

    static func subcommand(_ code: UInt8) -> APCFSubCommandDescriptor? {
        subcommands.first { $0.code == code }
    }

    static func subcommandName(_ code: UInt8) -> StaticString? { subcommand(code)?.name }

    /// The command: `apcf_opcode`, then the sub-command's parameters; an unknown sub-command's
    /// parameters are kept as bytes.
    static func command(_ p: ByteView, _ sink: FieldSink) {
        guard let code = p.u8(0) else { return sink.note("missing APCF sub-command") }
        let d = subcommand(code)
        sink.field("apcf_opcode", .code(UInt64(code), digits: 2, name: d?.name))
        let body = p.suffix(from: 1) ?? .empty
        if let d {
            d.describe(body, sink)
        } else if !body.isEmpty {
            sink.field("parameters", .bytes(body))
        }
    }

    /// Action, index, then (unless the action is clear) the condition.
    static func condition(_ p: ByteView, _ sink: FieldSink, _ describe: (ByteView, FieldSink) -> Void) {
        var r = ByteReader(p)
        guard HCIFields.describe(actionAndIndex, reader: &r, into: sink) else { return }
        let rest = r.rest()
        if p.u8(0) == HCILEAdvFilter.Action.clear.rawValue {
            if !rest.isEmpty { sink.field("unused", .bytes(rest)) }
            return
        }
        describe(rest, sink)
    }

    /// Set Filtering Parameters: add carries the index and its parameters, delete the index,
    /// clear nothing (or, from AOSP's BTM_LE_PF_clear, an index and zeros).
    static func filteringParametersCommand(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard let action = r.u8() else { return sink.note("missing APCF action") }
        sink.field("apcf_action", .code(UInt64(action), digits: 2, name: actionName(action)))
        if action == HCILEAdvFilter.Action.clear.rawValue, r.isAtEnd { return }
        guard let index = r.u8() else { return HCIFields.truncated(&r, sink) }
        sink.field("apcf_filter_index", .uint(UInt64(index)))
        guard action == HCILEAdvFilter.Action.add.rawValue else {
            let rest = r.rest()
            if !rest.isEmpty { sink.field("unused", .bytes(rest)) }
            return
        }
        guard HCIFields.describe(filteringParameters, reader: &r, into: sink) else { return }
        if r.isAtEnd { return }
        guard HCIFields.describe(onFoundOnLost, reader: &r, into: sink) else { return }
        if r.isAtEnd { return }
        guard HCIFields.describe(trackingEntries, reader: &r, into: sink) else { return }
        HCIFields.trailing(&r, sink)
    }

    /// UUID then mask, of equal length (2, 4 or 16 bytes).
    static func uuid(_ v: ByteView, _ sink: FieldSink) {
        let n = v.count / 2
        guard v.count % 2 == 0, let u = v.slice(0, n).flatMap(BluetoothUUID.init(littleEndian:)),
            let m = v.slice(n, n)
        else {
            sink.note("UUID condition is not a 2-, 4- or 16-byte UUID and its mask")
            if !v.isEmpty { sink.field("remaining", .bytes(v)) }
            return
        }
        sink.field("apcf_uuid", .uuid(u))
        sink.field("apcf_uuid_mask", .bytes(m))
    }

    static func manufacturerData(_ v: ByteView, _ sink: FieldSink) {
        guard case .manufacturerData(let c, let d, let cm, let dm)? = APCFCondition(.manufacturerData, v) else {
            sink.note("manufacturer data condition is not company and data, then their masks")
            if !v.isEmpty { sink.field("remaining", .bytes(v)) }
            return
        }
        sink.field("apcf_company_id", .hex(UInt64(c), digits: 4))
        if !d.isEmpty { sink.field("apcf_data", .bytes(d)) }
        sink.field("apcf_company_id_mask", .hex(UInt64(cm), digits: 4))
        if !dm.isEmpty { sink.field("apcf_data_mask", .bytes(dm)) }
    }

    static func patternAndMask(_ name: StaticString, _ v: ByteView, _ sink: FieldSink) {
        let half = v.count / 2
        guard v.count % 2 == 0, let d = v.slice(0, half), let m = v.slice(half, half) else {
            sink.note("pattern and mask differ in length")
            if !v.isEmpty { sink.field("remaining", .bytes(v)) }
            return
        }
        sink.field(name, .bytes(d))
        sink.field("apcf_mask", .bytes(m))
    }

    /// Command Complete: status, sub-command, then its return parameters.
    static func complete(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard let status = r.u8() else { return sink.note("missing status") }
        sink.field("status", HCIFields.status(status))
        guard let code = r.u8() else {
            if status == HCIError.success { sink.note("missing APCF sub-command") }
            return
        }
        let s = HCILEAdvFilter.SubCommand(rawValue: code)
        sink.field("apcf_opcode", .code(UInt64(code), digits: 2, name: subcommandName(code)))
        if status != HCIError.success && r.isAtEnd { return }
        switch s {
        case .enable?: HCIFields.describe(apcfEnable, r.rest(), into: sink)
        case .readExtendedFeatures?: HCIFields.describe(extendedFeatures, r.rest(), into: sink)
        case let s? where s.editsFilter: HCIFields.describe(completeAction, r.rest(), into: sink)
        default:
            let rest = r.rest()
            if !rest.isEmpty { sink.field("return_parameters", .bytes(rest)) }
        }
    }
}
