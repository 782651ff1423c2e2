import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline

/// Scanning as the host configured it (Vol 4 Part E 7.8.10–11, 7.8.64–65).
struct ScanState {
    var active = false
    var extended = false
    var enabled = false
    var filterDuplicates = false
    /// Advertisers already reported since scanning was enabled (duplicate filtering).
    var reported: Set<BDAddr> = []
    /// When each advertiser was last reported (its captured interval paces the next).
    var lastReport: [BDAddr: Int64] = [:]
    var scheduled = false
}

/// An LE (Extended) Create Connection waiting for its peer.
struct PendingConnection {
    var extended: Bool
    var useAcceptList: Bool
    var peerType: UInt8
    var peer: BDAddr
    var model: Int?
    /// Role central: the advertising set the connection ends (extended advertising).
    var advertisingHandle: UInt8? = nil
    /// The host's Own_Address_Type (role peripheral): 0/2 its public address, 1/3 its random one.
    var ownAddressType: UInt8 = 0
}

extension VirtualController {
    /// Local Version Information (7.4.1): HCI and LMP version 5.4 (0x0D); company 0xFFFF, the
    /// identifier the SIG reserves for tests.
    static let localVersion = HCIReadLocalVersionInformation(
        status: HCIError.success, hciVersion: coreVersion, hciSubversion: 0, lmpVersion: coreVersion,
        companyIdentifier: companyIdentifier, lmpSubversion: 0)
    static let coreVersion: UInt8 = 0x0D
    static let companyIdentifier: UInt16 = 0xFFFF
    /// LMP features (7.4.3, Vol 2 Part C 3.3): bit 37 BR/EDR Not Supported, bit 38 LE
    /// Supported (Controller): an LE-only controller.
    static let lmpFeatures: [UInt8] = [0, 0, 0, 0, 0x60, 0, 0, 0]
    /// LE features (Vol 6 Part B 4.6): bit 0 LE Encryption, bit 5 Data Packet Length
    /// Extension, bit 8 LE 2M PHY, bit 12 LE Extended Advertising (so hosts may use extended
    /// scanning and connecting).
    static let leFeatureBits: UInt64 = 0x1121
    static let acceptListSize: UInt8 = 16
    static let resolvingListSize: UInt8 = 16
    static let maximumDataOctets: UInt16 = 251
    static let maximumDataTime: UInt16 = 2120

    func command(_ c: HCICommandPacket) {
        guard let entry = ControllerCommand.byOpcode[c.opcode] else {
            log(
                "host command \(HCICommands.name(for: c.opcode)) (0x\(String(c.opcode, radix: 16))): Unknown HCI Command"
            )
            return send(HCISynthesis.commandComplete(c.opcode, [HCIError.unknownHCICommand]))
        }
        let p = c.parameters
        switch entry.reply {
        case .complete:
            let returned = complete(c.opcode, p)
            send(HCISynthesis.commandComplete(c.opcode, returned))
            afterComplete(c.opcode, p, status: returned.first ?? 0)
        case .status:
            status(c.opcode, p)
        }
    }

    private func invalid(_ opcode: UInt16, _ p: ByteView) -> [UInt8] {
        reject("\(HCICommands.name(for: opcode)) with \(p.count) parameter octets: Invalid HCI Command Parameters")
        return [HCIError.invalidHCICommandParameters]
    }

    /// Return parameters of a command answered with Command Complete (status first): the
    /// command decoded by its BLEPackets type and handed to its own handler below; a command
    /// too short for its type gets Invalid HCI Command Parameters.
    private func complete(_ op: UInt16, _ p: ByteView) -> [UInt8] {
        func typed<T>(_ decode: (ByteView) -> T?, _ handler: (T) -> [UInt8]) -> [UInt8] {
            guard let command = decode(p) else { return invalid(op, p) }
            return handler(command)
        }
        switch op {
        case HCIOpcode.reset: return reset()
        case HCIOpcode.setEventMask, HCIOpcode.leSetEventMask:
            return typed({ HCISetEventMask(opcode: op, parameters: $0) }, setEventMask)
        case HCIOpcode.setEventMaskPage2, HCIOpcode.leSetDefaultPHY, HCIOpcode.leSetPrivacyMode,
            HCIOpcode.leSetAddressResolutionEnable, HCIOpcode.leSetResolvablePrivateAddressTimeout,
            HCIOpcode.leSetAdvertisingData, HCIOpcode.leSetScanResponseData, HCIOpcode.leSetExtendedAdvertisingData,
            HCIOpcode.leSetExtendedScanResponseData, HCIOpcode.leRemoveAdvertisingSet, HCIOpcode.leClearAdvertisingSets,
            HCIOpcode.writeLEHostSupport:
            // Accepted; the advertising data itself reaches nobody (the captured central
            // connects by address).
            return [HCIError.success]
        case HCIOpcode.leSetAdvertisingEnable:
            return typed(HCILESetAdvertisingEnable.init(parameters:), leSetAdvertisingEnable)
        case HCIOpcode.leSetExtendedAdvertisingEnable:
            return typed(HCILESetExtendedAdvertisingEnable.init(parameters:), leSetExtendedAdvertisingEnable)
        case HCIOpcode.leSetAdvertisingParameters:
            return leSetAdvertisingParameters(HCILESetAdvertisingParameters(parameters: p))
        case HCIOpcode.leSetAdvertisingSetRandomAddress:
            return leSetAdvertisingSetRandomAddress(HCILESetAdvertisingSetRandomAddress(parameters: p))
        case HCIOpcode.leSetExtendedAdvertisingParameters:
            return leSetExtendedAdvertisingParameters(HCILESetExtendedAdvertisingParameters(parameters: p))
        case HCIOpcode.readLEHostSupport: return [HCIError.success, 1, 0]
        case HCIOpcode.readLocalVersionInformation: return returned(Self.localVersion.appendReturnParameters)
        case HCIOpcode.readLocalSupportedCommands: return [HCIError.success] + ControllerCommand.supportedCommands
        case HCIOpcode.readLocalSupportedFeatures: return [HCIError.success] + Self.lmpFeatures
        case HCIOpcode.readBufferSize: return readBufferSize()
        case HCIOpcode.readBDADDR: return succeeded { $0.appendAddress(configuration.address) }
        case HCIOpcode.readRSSI: return typed({ HCIConnectionHandleCommand(opcode: op, parameters: $0) }, readRSSI)
        case HCIOpcode.leReadBufferSize, HCIOpcode.leReadBufferSizeV2: return leReadBufferSize(op)
        case HCIOpcode.leReadLocalSupportedFeatures:
            return returned(
                HCILEReadLocalSupportedFeatures(status: HCIError.success, leFeatures: Self.leFeatureBits)
                    .appendReturnParameters)
        case HCIOpcode.leSetRandomAddress: return typed(HCILESetRandomAddress.init(parameters:), leSetRandomAddress)
        case HCIOpcode.leReadAdvertisingPhysicalChannelTxPower: return succeeded { $0.appendInt8(0) }
        case HCIOpcode.leReadTransmitPower:
            return succeeded {
                $0.appendInt8(0)
                $0.appendInt8(0)
            }
        case HCIOpcode.leSetScanParameters: return typed(HCILESetScanParameters.init(parameters:), leSetScanParameters)
        case HCIOpcode.leSetExtendedScanParameters:
            return typed(HCILESetExtendedScanParameters.init(parameters:), leSetExtendedScanParameters)
        case HCIOpcode.leSetScanEnable: return typed(HCILESetScanEnable.init(parameters:), leSetScanEnable)
        case HCIOpcode.leSetExtendedScanEnable:
            return typed(HCILESetExtendedScanEnable.init(parameters:), leSetExtendedScanEnable)
        case HCIOpcode.leCreateConnectionCancel:
            return pendingConnection == nil ? [HCIError.commandDisallowed] : [HCIError.success]
        case HCIOpcode.leReadFilterAcceptListSize: return [HCIError.success, Self.acceptListSize]
        case HCIOpcode.leClearFilterAcceptList:
            acceptList = []
            return [HCIError.success]
        case HCIOpcode.leAddDeviceToFilterAcceptList, HCIOpcode.leRemoveDeviceFromFilterAcceptList:
            let add = op == HCIOpcode.leAddDeviceToFilterAcceptList
            return typed({ HCILEFilterAcceptListDevice(add: add, parameters: $0) }, filterAcceptListDevice)
        case HCIOpcode.leAddDeviceToResolvingList:
            return typed(HCILEAddDeviceToResolvingList.init(parameters:), leAddDeviceToResolvingList)
        case HCIOpcode.leRemoveDeviceFromResolvingList:
            resolvingListCount = max(0, resolvingListCount - 1)
            return [HCIError.success]
        case HCIOpcode.leClearResolvingList:
            resolvingListCount = 0
            return [HCIError.success]
        case HCIOpcode.leReadResolvingListSize: return [HCIError.success, Self.resolvingListSize]
        case HCIOpcode.leRand: return succeeded { $0.appendUInt64LE(rng.next()) }
        case HCIOpcode.leReadSupportedStates:
            return succeeded { $0.appendUInt64LE(0x0000_03FF_FFFF_FFFF) }  // every state and combination up to bit 41
        case HCIOpcode.leSetDataLength: return typed(HCILESetDataLength.init(parameters:), leSetDataLength)
        case HCIOpcode.leReadSuggestedDefaultDataLength:
            return succeeded {
                $0.appendUInt16LE(suggestedTxOctets)
                $0.appendUInt16LE(suggestedTxTime)
            }
        case HCIOpcode.leWriteSuggestedDefaultDataLength:
            return typed(HCILEWriteSuggestedDefaultDataLength.init(parameters:), leWriteSuggestedDefaultDataLength)
        case HCIOpcode.leReadMaximumDataLength:
            return succeeded { w in
                for v in [Self.maximumDataOctets, Self.maximumDataTime, Self.maximumDataOctets, Self.maximumDataTime] {
                    w.appendUInt16LE(v)
                }
            }
        case HCIOpcode.leReadPHY: return typed({ HCIConnectionHandleCommand(opcode: op, parameters: $0) }, leReadPHY)
        case HCIOpcode.leLongTermKeyRequestReply:
            return typed(HCILELongTermKeyRequestReply.init(parameters:)) { succeeded(handle: $0.handle) }
        case HCIOpcode.leLongTermKeyRequestNegativeReply:
            return typed({ HCIConnectionHandleCommand(opcode: op, parameters: $0) }) { succeeded(handle: $0.handle) }
        case HCIOpcode.leReadMaximumAdvertisingDataLength: return succeeded { $0.appendUInt16LE(1650) }
        case HCIOpcode.leReadNumberOfSupportedAdvertisingSets: return [HCIError.success, 4]
        default: return [HCIError.success]
        }
    }

    /// Return parameters written by a typed return layout's encoder (status first).
    private func returned(_ append: (inout ByteWriter) -> Void) -> [UInt8] {
        var w = ByteWriter()
        append(&w)
        return w.bytes
    }

    /// Success and the return parameters `body` writes.
    private func succeeded(_ body: (inout ByteWriter) -> Void) -> [UInt8] {
        var w = ByteWriter()
        w.appendUInt8(HCIError.success)
        body(&w)
        return w.bytes
    }

    /// Success and a connection handle (the LE Long Term Key Request (Negative) Replies).
    private func succeeded(handle: UInt16) -> [UInt8] { succeeded { $0.appendUInt16LE(handle) } }

    // MARK: commands answered with Command Complete, one handler each

    /// HCI_Reset (7.3.2).
    private func reset() -> [UInt8] {
        resetState()
        return [HCIError.success]
    }

    /// HCI_Set_Event_Mask (7.3.1), HCI_LE_Set_Event_Mask (7.8.1).
    private func setEventMask(_ c: HCISetEventMask) -> [UInt8] {
        if c.commandOpcode == HCIOpcode.leSetEventMask { leEventMask = c.mask } else { eventMask = c.mask }
        return [HCIError.success]
    }

    /// HCI_LE_Set_Advertising_Enable (7.8.9).
    private func leSetAdvertisingEnable(_ c: HCILESetAdvertisingEnable) -> [UInt8] {
        setAdvertising(c.enable != 0 ? (false, 0) : nil)
        return [HCIError.success]
    }

    /// HCI_LE_Set_Extended_Advertising_Enable (7.8.56): the first set's handle is the one
    /// advertising.
    private func leSetExtendedAdvertisingEnable(_ c: HCILESetExtendedAdvertisingEnable) -> [UInt8] {
        let first = c.sets.first
        setAdvertising(
            c.enable != 0 && first != nil ? (true, first!.advertisingHandle) : (c.enable == 0 ? nil : advertising))
        return [HCIError.success]
    }

    /// HCI_LE_Set_Advertising_Parameters (7.8.5): only Own_Address_Type matters here, taken
    /// when the parameters reach it, whatever follows (never refused).
    private func leSetAdvertisingParameters(_ c: HCILESetAdvertisingParameters) -> [UInt8] {
        if let t = c.ownAddressType { advertisingOwnAddressType = t }
        return [HCIError.success]
    }

    /// HCI_LE_Set_Advertising_Set_Random_Address (7.8.52): the address, when there.
    private func leSetAdvertisingSetRandomAddress(_ c: HCILESetAdvertisingSetRandomAddress) -> [UInt8] {
        if let a = c.randomAddress { advertisingSetAddress = a }
        return [HCIError.success]
    }

    /// HCI_LE_Set_Extended_Advertising_Parameters (7.8.53): Own_Address_Type, when there;
    /// Selected_TX_Power 0.
    private func leSetExtendedAdvertisingParameters(_ c: HCILESetExtendedAdvertisingParameters) -> [UInt8] {
        if let t = c.ownAddressType { advertisingOwnAddressType = t }
        return [HCIError.success, 0]
    }

    /// HCI_Read_Buffer_Size (7.4.5): the LE buffers are the controller's only ACL buffers
    /// (7.8.2: shared when LE Read Buffer Size would return zero; here both say the same).
    private func readBufferSize() -> [UInt8] {
        returned(
            HCIReadBufferSize.Fields(
                status: HCIError.success, aclDataPacketLength: UInt16(configuration.aclPacketLength),
                synchronousDataPacketLength: 0, totalNumACLDataPackets: UInt16(configuration.aclPackets),
                totalNumSynchronousDataPackets: 0
            ).appendReturnParameters)
    }

    /// HCI_Read_RSSI (7.5.4): the captured advertisement's RSSI.
    private func readRSSI(_ r: HCIConnectionHandleCommand) -> [UInt8] {
        guard let c = connections[r.handle] else {
            return returned(
                HCIReadRSSI(status: HCIError.unknownConnectionIdentifier, handle: r.handle, rssi: 0)
                    .appendReturnParameters)
        }
        let rssi = replay.models[c.model].connection.advertisement?.rssi ?? -60
        return returned(HCIReadRSSI(status: HCIError.success, handle: c.handle, rssi: rssi).appendReturnParameters)
    }

    /// HCI_LE_Read_Buffer_Size [v1] (7.8.2) and [v2] (no ISO buffers).
    private func leReadBufferSize(_ op: UInt16) -> [UInt8] {
        succeeded {
            $0.appendUInt16LE(UInt16(configuration.aclPacketLength))
            $0.appendUInt8(UInt8(configuration.aclPackets))
            if op == HCIOpcode.leReadBufferSizeV2 {
                $0.appendUInt16LE(0)
                $0.appendUInt8(0)
            }
        }
    }

    /// HCI_LE_Set_Random_Address (7.8.4).
    private func leSetRandomAddress(_ c: HCILESetRandomAddress) -> [UInt8] {
        randomAddress = c.address
        return [HCIError.success]
    }

    /// HCI_LE_Set_Scan_Parameters (7.8.10): disallowed while scanning.
    private func leSetScanParameters(_ s: HCILESetScanParameters) -> [UInt8] {
        guard !scan.enabled else { return [HCIError.commandDisallowed] }
        scan.active = s.scanType == 1
        scan.extended = false
        return [HCIError.success]
    }

    /// HCI_LE_Set_Extended_Scan_Parameters (7.8.64).
    private func leSetExtendedScanParameters(_ s: HCILESetExtendedScanParameters) -> [UInt8] {
        guard !scan.enabled else { return [HCIError.commandDisallowed] }
        scan.active = s.entries.contains { $0.scanType == 1 }
        scan.extended = true
        return [HCIError.success]
    }

    /// HCI_LE_Set_Scan_Enable (7.8.11).
    private func leSetScanEnable(_ s: HCILESetScanEnable) -> [UInt8] {
        setScan(enabled: s.enable, filterDuplicates: s.filterDuplicates != 0, extended: false)
        return [HCIError.success]
    }

    /// HCI_LE_Set_Extended_Scan_Enable (7.8.65).
    private func leSetExtendedScanEnable(_ s: HCILESetExtendedScanEnable) -> [UInt8] {
        setScan(enabled: s.enable, filterDuplicates: s.filterDuplicates != 0, extended: true)
        return [HCIError.success]
    }

    /// HCI_LE_Add_Device_To_Filter_Accept_List (7.8.16) and Remove (7.8.17).
    private func filterAcceptListDevice(_ d: HCILEFilterAcceptListDevice) -> [UInt8] {
        if d.add {
            guard acceptList.count < Int(Self.acceptListSize) else { return [HCIError.memoryCapacityExceeded] }
            if !acceptList.contains(where: { $0.type == d.addressType && $0.address == d.address }) {
                acceptList.append((d.addressType, d.address))
            }
        } else {
            acceptList.removeAll { $0.type == d.addressType && $0.address == d.address }
        }
        return [HCIError.success]
    }

    /// HCI_LE_Add_Device_To_Resolving_List (7.8.38): counted, never used to resolve.
    private func leAddDeviceToResolvingList(_: HCILEAddDeviceToResolvingList) -> [UInt8] {
        guard resolvingListCount < Int(Self.resolvingListSize) else { return [HCIError.memoryCapacityExceeded] }
        resolvingListCount += 1
        return [HCIError.success]
    }

    /// HCI_LE_Set_Data_Length (7.8.33): the peer takes what the capture's peer could, up to
    /// the maximum both sides allow; a change is reported one connection event later.
    private func leSetDataLength(_ d: HCILESetDataLength) -> [UInt8] {
        let handle = d.handle
        guard let c = connections[handle] else { return [HCIError.unknownConnectionIdentifier] + handle.leBytes }
        let octets = min(max(d.txOctets, 27), Self.maximumDataOctets)
        if octets != c.txOctets {
            c.txOctets = octets
            let time = octets * 8 + 112
            let e = HCILEDataLengthChange(
                handle: handle, maxTxOctets: octets, maxTxTime: time, maxRxOctets: octets, maxRxTime: time)
            meta(e, after: delay(replay.models[c.model].connection.intervalMicros), connection: c.id)
        }
        return succeeded(handle: handle)
    }

    /// HCI_LE_Write_Suggested_Default_Data_Length (7.8.35): within 27–251 octets and
    /// 328–17040 µs.
    private func leWriteSuggestedDefaultDataLength(_ d: HCILEWriteSuggestedDefaultDataLength) -> [UInt8] {
        guard (27...251).contains(d.maxTxOctets), (328...17040).contains(d.maxTxTime) else {
            return [HCIError.invalidHCICommandParameters]
        }
        (suggestedTxOctets, suggestedTxTime) = (d.maxTxOctets, d.maxTxTime)
        return [HCIError.success]
    }

    /// HCI_LE_Read_PHY (7.8.47).
    private func leReadPHY(_ r: HCIConnectionHandleCommand) -> [UInt8] {
        guard let c = connections[r.handle] else {
            return [HCIError.unknownConnectionIdentifier] + r.handle.leBytes + [0, 0]
        }
        return succeeded {
            $0.appendUInt16LE(r.handle)
            $0.appendUInt8(c.phy)
            $0.appendUInt8(c.phy)
        }
    }

    /// Events that follow a Command Complete.
    private func afterComplete(_ op: UInt16, _ p: ByteView, status: UInt8) {
        guard status == HCIError.success else { return }
        if op == HCIOpcode.leLongTermKeyRequestReply, let r = HCILELongTermKeyRequestReply(parameters: p) {
            ltkReply(handle: r.handle, key: r.longTermKey)
        }
        if op == HCIOpcode.leLongTermKeyRequestNegativeReply,
            let r = HCIConnectionHandleCommand(opcode: op, parameters: p)
        {
            ltkReply(handle: r.handle, key: nil)
        }
        if op == HCIOpcode.leCreateConnectionCancel, let pending = pendingConnection {
            // 7.8.13: the cancelled attempt ends with a connection complete event, status
            // Unknown Connection Identifier.
            pendingConnection = nil
            timers.removeAll { if case .establish = $0 { true } else { false } }
            connectionComplete(
                status: HCIError.unknownConnectionIdentifier, handle: 0, peerType: pending.peerType,
                peer: pending.peer, timing: nil, extended: pending.extended)
        }
    }

    // MARK: commands answered with Command Status, one handler each

    /// Commands answered with Command Status, then their own events: decoded by their
    /// BLEPackets type, each handled by its own function, which answers the status.
    private func status(_ op: UInt16, _ p: ByteView) {
        func answer(_ s: UInt8) { send(HCISynthesis.commandStatus(op, status: s)) }
        switch op {
        case HCIOpcode.disconnect:
            guard let d = HCIDisconnect(parameters: p) else { return answer(invalid(op, p)[0]) }
            disconnect(d, answer)
        case HCIOpcode.leCreateConnection:
            guard let cc = HCILECreateConnection(parameters: p) else { return answer(invalid(op, p)[0]) }
            leCreateConnection(cc, answer)
        case HCIOpcode.leExtendedCreateConnection:
            guard let cc = HCILEExtendedCreateConnection(parameters: p) else { return answer(invalid(op, p)[0]) }
            leExtendedCreateConnection(cc, answer)
        case HCIOpcode.leConnectionUpdate:
            guard let u = HCILEConnectionUpdate(parameters: p) else { return answer(invalid(op, p)[0]) }
            leConnectionUpdate(u, answer)
        case HCIOpcode.leReadRemoteFeatures:
            guard let r = HCIConnectionHandleCommand(opcode: op, parameters: p) else {
                return answer(HCIError.invalidHCICommandParameters)
            }
            leReadRemoteFeatures(r, answer)
        case HCIOpcode.readRemoteVersionInformation:
            guard let r = HCIConnectionHandleCommand(opcode: op, parameters: p) else {
                return answer(HCIError.invalidHCICommandParameters)
            }
            readRemoteVersionInformation(r, answer)
        case HCIOpcode.leEnableEncryption:
            guard let e = HCILEEnableEncryption(parameters: p) else {
                return answer(HCIError.invalidHCICommandParameters)
            }
            leEnableEncryption(e, answer)
        case HCIOpcode.leSetPHY:
            guard let s = HCILESetPHY(parameters: p) else { return answer(HCIError.invalidHCICommandParameters) }
            leSetPHY(s, answer)
        default:
            answer(HCIError.unknownHCICommand)
        }
    }

    /// HCI_Disconnect (7.1.6): the local side ends the link, reason 0x16 to its own host.
    private func disconnect(_ d: HCIDisconnect, _ answer: (UInt8) -> Void) {
        guard let c = connections[d.handle & HCIConnectionHandle.mask] else {
            return answer(HCIError.unknownConnectionIdentifier)
        }
        answer(HCIError.success)
        end(c, reason: HCIError.connectionTerminatedByLocalHost, side: .local)
    }

    /// HCI_LE_Create_Connection (7.8.12).
    private func leCreateConnection(_ cc: HCILECreateConnection, _ answer: (UInt8) -> Void) {
        guard pendingConnection == nil else { return answer(HCIError.commandDisallowed) }
        answer(HCIError.success)
        initiate(
            PendingConnection(
                extended: false, useAcceptList: cc.initiatorFilterPolicy != 0, peerType: cc.peerAddressType,
                peer: cc.peerAddress, model: nil, ownAddressType: cc.ownAddressType))
    }

    /// HCI_LE_Extended_Create_Connection (7.8.66).
    private func leExtendedCreateConnection(_ cc: HCILEExtendedCreateConnection, _ answer: (UInt8) -> Void) {
        guard pendingConnection == nil else { return answer(HCIError.commandDisallowed) }
        answer(HCIError.success)
        initiate(
            PendingConnection(
                extended: true, useAcceptList: cc.initiatorFilterPolicy != 0, peerType: cc.peerAddressType,
                peer: cc.peerAddress, model: nil, ownAddressType: cc.ownAddressType))
    }

    /// HCI_LE_Connection_Update (7.8.18): completes six connection events later with the
    /// maximum interval asked for.
    private func leConnectionUpdate(_ u: HCILEConnectionUpdate, _ answer: (UInt8) -> Void) {
        guard let c = connections[u.handle & HCIConnectionHandle.mask] else {
            return answer(HCIError.unknownConnectionIdentifier)
        }
        answer(HCIError.success)
        c.interval = u.connection.intervalMax
        let e = HCILEConnectionUpdateComplete(
            status: HCIError.success, handle: c.handle, interval: u.connection.intervalMax,
            latency: u.connection.maxLatency, supervisionTimeout: u.connection.supervisionTimeout)
        meta(e, after: delay(6 * replay.models[c.model].connection.intervalMicros), connection: c.id)
    }

    /// HCI_LE_Read_Remote_Features (7.8.21): the peer's features are this controller's.
    private func leReadRemoteFeatures(_ r: HCIConnectionHandleCommand, _ answer: (UInt8) -> Void) {
        guard let c = connections[r.handle] else { return answer(HCIError.unknownConnectionIdentifier) }
        answer(HCIError.success)
        let e = HCILEReadRemoteFeaturesComplete(
            status: HCIError.success, handle: c.handle, features: Self.leFeatureBits)
        meta(e, after: delay(replay.models[c.model].connection.intervalMicros), connection: c.id)
    }

    /// HCI_Read_Remote_Version_Information (7.1.23): the peer's is unknown, reported as 5.4,
    /// 0xFFFF.
    private func readRemoteVersionInformation(_ r: HCIConnectionHandleCommand, _ answer: (UInt8) -> Void) {
        guard let c = connections[r.handle] else { return answer(HCIError.unknownConnectionIdentifier) }
        answer(HCIError.success)
        let e = HCIReadRemoteVersionInformationComplete(
            status: HCIError.success, handle: c.handle, version: Self.coreVersion,
            companyIdentifier: Self.companyIdentifier, subversion: 0)
        schedule(
            after: delay(replay.models[c.model].connection.intervalMicros), .packet(e.h4Encoded(), connection: c.id))
    }

    /// HCI_LE_Enable_Encryption (7.8.24). The virtual link carries no ciphertext; the peer
    /// checks the key as its host would answer its LTK request, and the outcome comes one
    /// connection event later. Only the central starts encryption (Vol 6 Part B 5.1.3).
    private func leEnableEncryption(_ e: HCILEEnableEncryption, _ answer: (UInt8) -> Void) {
        guard let c = connections[e.handle] else { return answer(HCIError.unknownConnectionIdentifier) }
        guard configuration.role == .peripheral else { return answer(HCIError.commandDisallowed) }
        answer(HCIError.success)
        schedule(
            after: delay(replay.models[c.model].connection.intervalMicros),
            .encryption(
                connection: c.id,
                outcome: encryptionOutcome(
                    c, rand: e.randomNumber, ediv: e.encryptedDiversifier, key: e.longTermKey)))
    }

    /// HCI_LE_Set_PHY (7.8.49): 2M when both directions allow it (the peer is taken to
    /// support it), else 1M, six connection events later.
    private func leSetPHY(_ s: HCILESetPHY, _ answer: (UInt8) -> Void) {
        guard let c = connections[s.handle] else { return answer(HCIError.unknownConnectionIdentifier) }
        answer(HCIError.success)
        let want2M = (s.allPHYs & 1 != 0 || s.txPHYs & 0b10 != 0) && (s.allPHYs & 2 != 0 || s.rxPHYs & 0b10 != 0)
        c.phy = want2M ? 2 : 1
        let e = HCILEPHYUpdateComplete(status: HCIError.success, handle: c.handle, txPHY: c.phy, rxPHY: c.phy)
        meta(e, after: delay(6 * replay.models[c.model].connection.intervalMicros), connection: c.id)
    }

    /// An LE Meta event, if the host's masks let it through.
    func meta(_ e: some HCILESubeventEncodable, after d: Int64, connection: Int?) {
        guard leEventEnabled(e.subeventCode) else { return }
        schedule(after: d, .packet(e.h4Encoded(), connection: connection))
    }

    /// HCI Reset (7.3.2): masks, lists, scanning, initiating and every connection go, without
    /// events for them (the host knows).
    func resetState() {
        eventMask = 0x0000_1FFF_FFFF_FFFF
        leEventMask = 0x1F
        randomAddress = nil
        suggestedTxOctets = 27
        suggestedTxTime = 328
        scan = ScanState()
        acceptList = []
        resolvingListCount = 0
        pendingConnection = nil
        for c in connections.values { finish(c, reason: nil, side: nil) }
        connections = [:]
        uncompleted = [:]
        inFlight = 0
        completionScheduled = false
        timers = TimerQueue()
    }
}

extension UInt16 {
    var leBytes: [UInt8] { [UInt8(truncatingIfNeeded: self), UInt8(truncatingIfNeeded: self >> 8)] }
}
