import BLEBytes

// Return parameters of the informational and LE controller commands a host sends while it
// initialises a controller, read through the command's return layout in `HCICommandLayouts`
// (the layout `blecap packets` describes them with), so their offsets are declared once. Each
// field is nil when the return parameters end before it: a cut Command Complete says what it
// holds and no more. Status is the first octet of every one (Core 5.4 Vol 4 Part E 7.7.14).

/// The Status octet and the fields after it, read through `layout`.
private func returnFields(_ layout: [HCIParameter], _ p: ByteView) -> (status: UInt8?, fields: HCILayoutFields) {
    (p.u8(0), HCILayoutFields(layout: layout, parameters: p.suffix(from: 1) ?? .empty))
}

/// Return parameters of HCI_Read_Local_Version_Information (7.4.1), opcode 0x1001.
public struct HCIReadLocalVersionInformation: Sendable, Equatable {
    public static let opcode: UInt16 = HCIOpcode.readLocalVersionInformation
    public let status: UInt8?
    /// HCI_Version and LMP_Version: Core specification versions (Assigned Numbers 2.1).
    public let hciVersion: UInt8?
    public let hciSubversion: UInt16?
    public let lmpVersion: UInt8?
    /// Company_Identifier of the controller's manufacturer.
    public let companyIdentifier: UInt16?
    public let lmpSubversion: UInt16?

    public init(returnParameters p: ByteView) {
        let (s, f) = returnFields(HCICommandLayouts.readLocalVersionReturn, p)
        status = s
        (hciVersion, hciSubversion) = (f.uint8("hci_version"), f.uint16("hci_subversion"))
        (lmpVersion, companyIdentifier) = (f.uint8("lmp_version"), f.uint16("company_identifier"))
        lmpSubversion = f.uint16("lmp_subversion")
    }

    public init(
        status: UInt8, hciVersion: UInt8, hciSubversion: UInt16, lmpVersion: UInt8, companyIdentifier: UInt16,
        lmpSubversion: UInt16
    ) {
        (self.status, self.hciVersion, self.hciSubversion) = (status, hciVersion, hciSubversion)
        (self.lmpVersion, self.companyIdentifier, self.lmpSubversion) = (lmpVersion, companyIdentifier, lmpSubversion)
    }

    /// The return parameters as Command Complete carries them, up to the first missing field.
    public func appendReturnParameters(to w: inout ByteWriter) {
        guard let status else { return }
        w.appendUInt8(status)
        guard let hciVersion else { return }
        w.appendUInt8(hciVersion)
        guard let hciSubversion else { return }
        w.appendUInt16LE(hciSubversion)
        guard let lmpVersion else { return }
        w.appendUInt8(lmpVersion)
        guard let companyIdentifier else { return }
        w.appendUInt16LE(companyIdentifier)
        guard let lmpSubversion else { return }
        w.appendUInt16LE(lmpSubversion)
    }
}

extension HCIReadBufferSize {
    /// Read Buffer Size's return parameters each as far as they reach (`HCIReadBufferSize`
    /// itself needs all of them).
    public struct Fields: Sendable, Equatable {
        public let status: UInt8?
        public let aclDataPacketLength: UInt16?
        public let synchronousDataPacketLength: UInt8?
        public let totalNumACLDataPackets: UInt16?
        public let totalNumSynchronousDataPackets: UInt16?

        public init(returnParameters p: ByteView) {
            let (s, f) = returnFields(HCICommandLayouts.readBufferSizeReturn, p)
            status = s
            aclDataPacketLength = f.uint16("acl_data_packet_length")
            synchronousDataPacketLength = f.uint8("synchronous_data_packet_length")
            totalNumACLDataPackets = f.uint16("total_num_acl_data_packets")
            totalNumSynchronousDataPackets = f.uint16("total_num_synchronous_data_packets")
        }
    }
}

extension HCILEReadBufferSize {
    /// LE Read Buffer Size's return parameters each as far as they reach, [v1] or [v2] by
    /// `version` (`HCILEReadBufferSize` itself needs all of its version's).
    public struct Fields: Sendable, Equatable {
        public let status: UInt8?
        public let leACLDataPacketLength: UInt16?
        public let totalNumLEACLDataPackets: UInt8?
        /// v2 only.
        public let isoDataPacketLength: UInt16?
        public let totalNumISODataPackets: UInt8?

        public init(returnParameters p: ByteView, version: Int = 1) {
            let layout =
                version == 2 ? HCICommandLayouts.leReadBufferSizeV2Return : HCICommandLayouts.leReadBufferSizeV1Return
            let (s, f) = returnFields(layout, p)
            status = s
            leACLDataPacketLength = f.uint16("le_acl_data_packet_length")
            totalNumLEACLDataPackets = f.uint8("total_num_le_acl_data_packets")
            isoDataPacketLength = f.uint16("iso_data_packet_length")
            totalNumISODataPackets = f.uint8("total_num_iso_data_packets")
        }
    }
}

/// Return parameters of HCI_LE_Read_Local_Supported_Features (7.8.3), opcode 0x2003.
public struct HCILEReadLocalSupportedFeatures: Sendable, Equatable {
    public static let opcode: UInt16 = HCIOpcode.leReadLocalSupportedFeatures
    public let status: UInt8?
    /// LE_Features: the LE feature bits (Vol 6 Part B 4.6), little-endian.
    public let leFeatures: UInt64?

    public init(returnParameters p: ByteView) {
        let (s, f) = returnFields(HCICommandLayouts.leFeaturesReturn, p)
        (status, leFeatures) = (s, f.uint64("le_features"))
    }

    public init(status: UInt8, leFeatures: UInt64) { (self.status, self.leFeatures) = (status, leFeatures) }

    /// The return parameters as Command Complete carries them, up to the first missing field.
    public func appendReturnParameters(to w: inout ByteWriter) {
        guard let status else { return }
        w.appendUInt8(status)
        guard let leFeatures else { return }
        w.appendUInt64LE(leFeatures)
    }
}

/// Return parameters of HCI_Read_RSSI (7.5.4), opcode 0x1405.
public struct HCIReadRSSI: Sendable, Equatable {
    public static let opcode: UInt16 = HCIOpcode.readRSSI
    /// RSSI 127: the controller has no value to give.
    public static let notAvailable: Int8 = 127
    public let status: UInt8?
    /// The 12-bit Connection_Handle (flag bits cleared).
    public let handle: UInt16?
    /// dBm, signed.
    public let rssi: Int8?

    public init(returnParameters p: ByteView) {
        let (s, f) = returnFields(HCICommandLayouts.readRSSIReturn, p)
        status = s
        handle = f.uint16("connection_handle").map { $0 & HCIConnectionHandle.mask }
        rssi = f.int8("rssi")
    }

    public init(status: UInt8, handle: UInt16, rssi: Int8) {
        (self.status, self.handle, self.rssi) = (status, handle, rssi)
    }

    /// The return parameters as Command Complete carries them, up to the first missing field.
    public func appendReturnParameters(to w: inout ByteWriter) {
        guard let status else { return }
        w.appendUInt8(status)
        guard let handle else { return }
        w.appendUInt16LE(handle)
        guard let rssi else { return }
        w.appendUInt8(UInt8(bitPattern: rssi))
    }
}
