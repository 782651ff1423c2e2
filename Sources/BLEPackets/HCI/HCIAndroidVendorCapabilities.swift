import BLEBytes

// Android's LE_Get_Vendor_Capabilities (opcode 0xFD53, OCF 0x153): no parameters; Command
// Complete says which Android vendor features the controller has, among them whether it
// filters advertisements itself (APCF, `filtering_support`) and with how many filter indices
// (`max_filter`). Layout from the Android HCI requirements and AOSP hci_packets.pdl
// (`BaseVendorCapabilities`, `LeGetVendorCapabilitiesComplete095/096/098`) and controller.cc,
// which reads each later block only when `version_supported` and the length allow it.
// Firmwares disagree about the fields after `debug_logging_supported` (a 0.97/0.98 controller
// in our corpus sends four bytes there where the pdl has six), so only lengths that match the
// pdl are decoded by name; other trailing bytes are shown as `later_capabilities`.

/// Return parameters of LE_Get_Vendor_Capabilities (AOSP `LeGetVendorCapabilitiesComplete`).
public struct HCILEGetVendorCapabilities: Sendable {
    public static let opcode: UInt16 = 0xFD53

    public let status: UInt8
    public let maxAdvertisingInstances: UInt8
    public let offloadedResolutionOfPrivateAddress: UInt8
    public let totalScanResultsStorage: UInt16
    public let maxIRKListSize: UInt8
    /// Non-zero: the controller filters advertisements (APCF, opcode 0xFD57).
    public let filteringSupport: UInt8
    /// Number of filter indices APCF offers.
    public let maxFilter: UInt8
    public let activityEnergyInfoSupport: UInt8
    /// v0.95 and later (e.g. 0x0062 = 0.98); nil for an L-release (0.55) answer.
    public let versionSupported: UInt16?

    public init?(returnParameters p: ByteView) {
        guard let s = p.u8(0), let a = p.u8(1), let r = p.u8(2), let t = p.u16le(3), let i = p.u8(5),
            let f = p.u8(6), let m = p.u8(7), let e = p.u8(8)
        else { return nil }
        (
            status, maxAdvertisingInstances, offloadedResolutionOfPrivateAddress, totalScanResultsStorage,
            maxIRKListSize, filteringSupport, maxFilter, activityEnergyInfoSupport
        ) = (s, a, r, t, i, f, m, e)
        versionSupported = p.u16le(9)
    }

    /// AOSP's `is_filtering_supported()`: filtering supported and at least one filter.
    public var filteringSupported: Bool { filteringSupport != 0 && maxFilter != 0 }
}

private typealias P = HCIParameter

enum HCIAndroidVendorCapabilitiesDecoders {
    static let base = [
        P("max_advt_instances", .uint8),
        P("offloaded_resolution_of_private_address", .uint8),
        P("total_scan_results_storage", .uint16),
        P("max_irk_list_sz", .uint8),
        P("filtering_support", .uint8),
        P("max_filter", .uint8),
        P("activity_energy_info_support", .uint8),
    ]
    static let v095 = [
        P("version_supported", .hex16),
        P("total_num_of_advt_tracked", .uint16),
        P("extended_scan_support", .uint8),
        P("debug_logging_supported", .uint8),
    ]
    static let v096 = [P("le_address_generation_offloading_support", .uint8)]
    static let v098 =
        v096 + [P("a2dp_source_offload_capability_mask", .hex32), P("bluetooth_quality_report_support", .uint8)]
    static let v103 = v098 + [P("dynamic_audio_buffer_support", .hex32)]

    static func complete(_ p: ByteView, _ sink: FieldSink) {
        var r = ByteReader(p)
        guard let status = r.u8() else { return sink.note("missing status") }
        sink.field("status", HCIFields.status(status))
        if status != HCIError.success && r.isAtEnd { return }
        guard HCIFields.describe(base, reader: &r, into: sink) else { return }
        if r.isAtEnd { return }
        guard HCIFields.describe(v095, reader: &r, into: sink) else { return }
        let rest = r.rest()
        switch rest.count {
        case 0: return
        case 1: HCIFields.describe(v096, rest, into: sink)
        case 6: HCIFields.describe(v098, rest, into: sink)
        case 10: HCIFields.describe(v103, rest, into: sink)
        default: sink.field("later_capabilities", .bytes(rest))
        }
    }
}
