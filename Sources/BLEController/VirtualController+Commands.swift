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
    static let localVersion: [UInt8] = [0x0D, 0x00, 0x00, 0x0D, 0xFF, 0xFF, 0x00, 0x00]
    /// LMP features (7.4.3, Vol 2 Part C 3.3): bit 37 BR/EDR Not Supported, bit 38 LE
    /// Supported (Controller): an LE-only controller.
    static let lmpFeatures: [UInt8] = [0, 0, 0, 0, 0x60, 0, 0, 0]
    /// LE features (Vol 6 Part B 4.6): bit 0 LE Encryption, bit 5 Data Packet Length
    /// Extension, bit 8 LE 2M PHY, bit 12 LE Extended Advertising (so hosts may use extended
    /// scanning and connecting).
    static let leFeatures: [UInt8] = [0x21, 0x11, 0, 0, 0, 0, 0, 0]
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

    /// Return parameters of a command answered with Command Complete (status first).
    private func complete(_ op: UInt16, _ p: ByteView) -> [UInt8] {
        var w = ByteWriter()
        w.appendUInt8(HCIError.success)
        switch op {
        case HCIOpcode.reset:
            resetState()
        case HCIOpcode.setEventMask:
            guard let m = p.u64le(0) else { return invalid(op, p) }
            eventMask = m
        case HCIOpcode.leSetEventMask:
            guard let m = p.u64le(0) else { return invalid(op, p) }
            leEventMask = m
        case HCIOpcode.setEventMaskPage2, HCIOpcode.leSetDefaultPHY, HCIOpcode.leSetPrivacyMode,
            HCIOpcode.leSetAddressResolutionEnable, HCIOpcode.leSetResolvablePrivateAddressTimeout,
            HCIOpcode.leSetAdvertisingData, HCIOpcode.leSetScanResponseData, HCIOpcode.leSetExtendedAdvertisingData,
            HCIOpcode.leSetExtendedScanResponseData, HCIOpcode.leRemoveAdvertisingSet, HCIOpcode.leClearAdvertisingSets:
            // Accepted; the advertising data itself reaches nobody (the captured central
            // connects by address).
            break
        case HCIOpcode.leSetAdvertisingEnable:
            guard let e = p.u8(0) else { return invalid(op, p) }
            setAdvertising(e != 0 ? (false, 0) : nil)
        case HCIOpcode.leSetExtendedAdvertisingEnable:
            guard let e = p.u8(0), let n = p.u8(1), p.count >= 2 + 4 * Int(n) else { return invalid(op, p) }
            setAdvertising(e != 0 && n > 0 ? (true, p.u8(2) ?? 0) : (e == 0 ? nil : advertising))
        case HCIOpcode.leSetAdvertisingParameters:
            // 7.8.5: Own_Address_Type after the intervals (2 × 2) and the type (1).
            if let t = p.u8(5) { advertisingOwnAddressType = t }
        case HCIOpcode.leSetAdvertisingSetRandomAddress:
            if let a = BDAddr(littleEndian: p, at: 1) { advertisingSetAddress = a }
        case HCIOpcode.leSetExtendedAdvertisingParameters:
            // 7.8.53: handle (1), properties (2), intervals (3 + 3), channel map (1), then
            // Own_Address_Type.
            if let t = p.u8(10) { advertisingOwnAddressType = t }
            w.appendInt8(0)  // Selected_TX_Power
        case HCIOpcode.writeLEHostSupport:
            break
        case HCIOpcode.readLEHostSupport:
            w.appendUInt8(1)
            w.appendUInt8(0)
        case HCIOpcode.readLocalVersionInformation:
            w.appendBytes(Self.localVersion)
        case HCIOpcode.readLocalSupportedCommands:
            w.appendBytes(ControllerCommand.supportedCommands)
        case HCIOpcode.readLocalSupportedFeatures:
            w.appendBytes(Self.lmpFeatures)
        case HCIOpcode.readBufferSize:
            // The LE buffers are the controller's only ACL buffers (7.8.2: shared when LE
            // Read Buffer Size would return zero; here both say the same).
            w.appendUInt16LE(UInt16(configuration.aclPacketLength))
            w.appendUInt8(0)
            w.appendUInt16LE(UInt16(configuration.aclPackets))
            w.appendUInt16LE(0)
        case HCIOpcode.readBDADDR:
            w.appendAddress(configuration.address)
        case HCIOpcode.readRSSI:
            guard let h = p.u16le(0) else { return invalid(op, p) }
            guard let c = connections[h & HCIConnectionHandle.mask] else {
                return [HCIError.unknownConnectionIdentifier] + (h & HCIConnectionHandle.mask).leBytes + [0]
            }
            w.appendUInt16LE(c.handle)
            w.appendInt8(replay.models[c.model].connection.advertisement?.rssi ?? -60)
        case HCIOpcode.leReadBufferSize:
            w.appendUInt16LE(UInt16(configuration.aclPacketLength))
            w.appendUInt8(UInt8(configuration.aclPackets))
        case HCIOpcode.leReadBufferSizeV2:
            w.appendUInt16LE(UInt16(configuration.aclPacketLength))
            w.appendUInt8(UInt8(configuration.aclPackets))
            w.appendUInt16LE(0)  // no ISO buffers
            w.appendUInt8(0)
        case HCIOpcode.leReadLocalSupportedFeatures:
            w.appendBytes(Self.leFeatures)
        case HCIOpcode.leSetRandomAddress:
            guard let a = BDAddr(littleEndian: p) else { return invalid(op, p) }
            randomAddress = a
        case HCIOpcode.leReadAdvertisingPhysicalChannelTxPower, HCIOpcode.leReadTransmitPower:
            w.appendInt8(0)
            if op == HCIOpcode.leReadTransmitPower { w.appendInt8(0) }
        case HCIOpcode.leSetScanParameters:
            guard let s = HCILESetScanParameters(parameters: p) else { return invalid(op, p) }
            guard !scan.enabled else { return [HCIError.commandDisallowed] }
            scan.active = s.scanType == 1
            scan.extended = false
        case HCIOpcode.leSetExtendedScanParameters:
            guard let s = HCILESetExtendedScanParameters(parameters: p) else { return invalid(op, p) }
            guard !scan.enabled else { return [HCIError.commandDisallowed] }
            scan.active = s.entries.contains { $0.scanType == 1 }
            scan.extended = true
        case HCIOpcode.leSetScanEnable:
            guard let s = HCILESetScanEnable(parameters: p) else { return invalid(op, p) }
            setScan(enabled: s.enable, filterDuplicates: s.filterDuplicates != 0, extended: false)
        case HCIOpcode.leSetExtendedScanEnable:
            guard let s = HCILESetExtendedScanEnable(parameters: p) else { return invalid(op, p) }
            setScan(enabled: s.enable, filterDuplicates: s.filterDuplicates != 0, extended: true)
        case HCIOpcode.leCreateConnectionCancel:
            guard pendingConnection != nil else { return [HCIError.commandDisallowed] }
        case HCIOpcode.leReadFilterAcceptListSize:
            w.appendUInt8(Self.acceptListSize)
        case HCIOpcode.leClearFilterAcceptList:
            acceptList = []
        case HCIOpcode.leAddDeviceToFilterAcceptList:
            guard let t = p.u8(0), let a = BDAddr(littleEndian: p, at: 1) else { return invalid(op, p) }
            guard acceptList.count < Int(Self.acceptListSize) else { return [HCIError.memoryCapacityExceeded] }
            if !acceptList.contains(where: { $0.type == t && $0.address == a }) { acceptList.append((t, a)) }
        case HCIOpcode.leRemoveDeviceFromFilterAcceptList:
            guard let t = p.u8(0), let a = BDAddr(littleEndian: p, at: 1) else { return invalid(op, p) }
            acceptList.removeAll { $0.type == t && $0.address == a }
        case HCIOpcode.leAddDeviceToResolvingList:
            guard p.count >= 39 else { return invalid(op, p) }
            guard resolvingListCount < Int(Self.resolvingListSize) else { return [HCIError.memoryCapacityExceeded] }
            resolvingListCount += 1
        case HCIOpcode.leRemoveDeviceFromResolvingList:
            resolvingListCount = max(0, resolvingListCount - 1)
        case HCIOpcode.leClearResolvingList:
            resolvingListCount = 0
        case HCIOpcode.leReadResolvingListSize:
            w.appendUInt8(Self.resolvingListSize)
        case HCIOpcode.leRand:
            w.appendUInt64LE(rng.next())
        case HCIOpcode.leReadSupportedStates:
            w.appendUInt64LE(0x0000_03FF_FFFF_FFFF)  // every state and combination up to bit 41
        case HCIOpcode.leSetDataLength:
            guard let h = p.u16le(0), let tx = p.u16le(2), p.u16le(4) != nil else { return invalid(op, p) }
            let handle = h & HCIConnectionHandle.mask
            guard let c = connections[handle] else { return [HCIError.unknownConnectionIdentifier] + handle.leBytes }
            w.appendUInt16LE(handle)
            // The peer takes what the capture's peer could: up to the maximum both sides allow.
            let octets = min(max(tx, 27), Self.maximumDataOctets)
            if octets != c.txOctets {
                c.txOctets = octets
                var e = ByteWriter()
                e.appendUInt8(HCILESubeventCode.dataLengthChange)
                e.appendUInt16LE(handle)
                for v in [octets, UInt16(octets) * 8 + 112, octets, UInt16(octets) * 8 + 112] { e.appendUInt16LE(v) }
                meta(e.bytes, after: delay(replay.models[c.model].connection.intervalMicros), connection: c.id)
            }
        case HCIOpcode.leReadSuggestedDefaultDataLength:
            w.appendUInt16LE(suggestedTxOctets)
            w.appendUInt16LE(suggestedTxTime)
        case HCIOpcode.leWriteSuggestedDefaultDataLength:
            guard let o = p.u16le(0), let t = p.u16le(2) else { return invalid(op, p) }
            guard (27...251).contains(o), (328...17040).contains(t) else {
                return [HCIError.invalidHCICommandParameters]
            }
            (suggestedTxOctets, suggestedTxTime) = (o, t)
        case HCIOpcode.leReadMaximumDataLength:
            for v in [Self.maximumDataOctets, Self.maximumDataTime, Self.maximumDataOctets, Self.maximumDataTime] {
                w.appendUInt16LE(v)
            }
        case HCIOpcode.leReadPHY:
            guard let h = p.u16le(0) else { return invalid(op, p) }
            let handle = h & HCIConnectionHandle.mask
            guard let c = connections[handle] else {
                return [HCIError.unknownConnectionIdentifier] + handle.leBytes + [0, 0]
            }
            w.appendUInt16LE(handle)
            w.appendUInt8(c.phy)
            w.appendUInt8(c.phy)
        case HCIOpcode.leLongTermKeyRequestReply, HCIOpcode.leLongTermKeyRequestNegativeReply:
            guard let h = p.u16le(0) else { return invalid(op, p) }
            w.appendUInt16LE(h & HCIConnectionHandle.mask)
        case HCIOpcode.leReadMaximumAdvertisingDataLength:
            w.appendUInt16LE(1650)
        case HCIOpcode.leReadNumberOfSupportedAdvertisingSets:
            w.appendUInt8(4)
        default:
            break
        }
        return w.bytes
    }

    /// Events that follow a Command Complete.
    private func afterComplete(_ op: UInt16, _ p: ByteView, status: UInt8) {
        guard status == HCIError.success else { return }
        if op == HCIOpcode.leLongTermKeyRequestReply || op == HCIOpcode.leLongTermKeyRequestNegativeReply {
            ltkReply(op, p)
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

    /// Commands answered with Command Status, then their own events.
    private func status(_ op: UInt16, _ p: ByteView) {
        func answer(_ s: UInt8) { send(HCISynthesis.commandStatus(op, status: s)) }
        switch op {
        case HCIOpcode.disconnect:
            guard let d = HCIDisconnect(parameters: p) else { return answer(invalid(op, p)[0]) }
            guard let c = connections[d.handle & HCIConnectionHandle.mask] else {
                return answer(HCIError.unknownConnectionIdentifier)
            }
            answer(HCIError.success)
            // The local side ends the link: reason 0x16 to its own host (Vol 4 Part E 7.1.6).
            end(c, reason: HCIError.connectionTerminatedByLocalHost, side: .local)
        case HCIOpcode.leCreateConnection:
            guard let cc = HCILECreateConnection(parameters: p) else { return answer(invalid(op, p)[0]) }
            guard pendingConnection == nil else { return answer(HCIError.commandDisallowed) }
            answer(HCIError.success)
            initiate(
                PendingConnection(
                    extended: false, useAcceptList: cc.initiatorFilterPolicy != 0, peerType: cc.peerAddressType,
                    peer: cc.peerAddress, model: nil, ownAddressType: cc.ownAddressType))
        case HCIOpcode.leExtendedCreateConnection:
            guard let cc = HCILEExtendedCreateConnection(parameters: p) else { return answer(invalid(op, p)[0]) }
            guard pendingConnection == nil else { return answer(HCIError.commandDisallowed) }
            answer(HCIError.success)
            initiate(
                PendingConnection(
                    extended: true, useAcceptList: cc.initiatorFilterPolicy != 0, peerType: cc.peerAddressType,
                    peer: cc.peerAddress, model: nil, ownAddressType: cc.ownAddressType))
        case HCIOpcode.leConnectionUpdate:
            guard let u = HCILEConnectionUpdate(parameters: p) else { return answer(invalid(op, p)[0]) }
            guard let c = connections[u.handle & HCIConnectionHandle.mask] else {
                return answer(HCIError.unknownConnectionIdentifier)
            }
            answer(HCIError.success)
            c.interval = u.connection.intervalMax
            var e = ByteWriter()
            e.appendUInt8(HCILESubeventCode.connectionUpdateComplete)
            e.appendUInt8(HCIError.success)
            e.appendUInt16LE(c.handle)
            e.appendUInt16LE(u.connection.intervalMax)
            e.appendUInt16LE(u.connection.maxLatency)
            e.appendUInt16LE(u.connection.supervisionTimeout)
            meta(e.bytes, after: delay(6 * replay.models[c.model].connection.intervalMicros), connection: c.id)
        case HCIOpcode.leReadRemoteFeatures:
            guard let h = p.u16le(0), let c = connections[h & HCIConnectionHandle.mask] else {
                return answer(p.count < 2 ? HCIError.invalidHCICommandParameters : HCIError.unknownConnectionIdentifier)
            }
            answer(HCIError.success)
            var e = ByteWriter()
            e.appendUInt8(HCILESubeventCode.readRemoteFeaturesComplete)
            e.appendUInt8(HCIError.success)
            e.appendUInt16LE(c.handle)
            e.appendBytes(Self.leFeatures)
            meta(e.bytes, after: delay(replay.models[c.model].connection.intervalMicros), connection: c.id)
        case HCIOpcode.readRemoteVersionInformation:
            guard let h = p.u16le(0), let c = connections[h & HCIConnectionHandle.mask] else {
                return answer(p.count < 2 ? HCIError.invalidHCICommandParameters : HCIError.unknownConnectionIdentifier)
            }
            answer(HCIError.success)
            var e = ByteWriter()
            e.appendUInt8(HCIError.success)
            e.appendUInt16LE(c.handle)
            e.appendBytes(Self.localVersion[3...])  // the peer's: unknown, reported as 5.4, 0xFFFF
            let packet = e.bytes.withByteView {
                HCIEventPacket(code: HCIEventCode.readRemoteVersionInformationComplete, parameters: $0).h4Encoded()
            }
            schedule(after: delay(replay.models[c.model].connection.intervalMicros), .packet(packet, connection: c.id))
        case HCIOpcode.leEnableEncryption:
            // 7.8.24: Random_Number (8), Encrypted_Diversifier (2), Long_Term_Key (16). The
            // virtual link carries no ciphertext; the peer checks the key as its host would
            // answer its LTK request, and the outcome comes one connection event later.
            guard let h = p.u16le(0), let rand = p.u64le(2), let ediv = p.u16le(10),
                let key = p.littleEndianUInt128(at: 12)
            else { return answer(HCIError.invalidHCICommandParameters) }
            guard let c = connections[h & HCIConnectionHandle.mask] else {
                return answer(HCIError.unknownConnectionIdentifier)
            }
            // Only the central starts encryption (Vol 6 Part B 5.1.3).
            guard configuration.role == .peripheral else { return answer(HCIError.commandDisallowed) }
            answer(HCIError.success)
            schedule(
                after: delay(replay.models[c.model].connection.intervalMicros),
                .encryption(connection: c.id, outcome: encryptionOutcome(c, rand: rand, ediv: ediv, key: key)))
        case HCIOpcode.leSetPHY:
            guard let h = p.u16le(0), p.count >= 7 else { return answer(HCIError.invalidHCICommandParameters) }
            guard let c = connections[h & HCIConnectionHandle.mask] else {
                return answer(HCIError.unknownConnectionIdentifier)
            }
            answer(HCIError.success)
            // 2M when both directions allow it (the peer is taken to support it), else 1M.
            let tx = p.u8(3) ?? 0
            let rx = p.u8(4) ?? 0
            let all = p.u8(2) ?? 0
            let want2M = (all & 1 != 0 || tx & 0b10 != 0) && (all & 2 != 0 || rx & 0b10 != 0)
            c.phy = want2M ? 2 : 1
            var e = ByteWriter()
            e.appendUInt8(HCILESubeventCode.phyUpdateComplete)
            e.appendUInt8(HCIError.success)
            e.appendUInt16LE(c.handle)
            e.appendUInt8(c.phy)
            e.appendUInt8(c.phy)
            meta(e.bytes, after: delay(6 * replay.models[c.model].connection.intervalMicros), connection: c.id)
        default:
            answer(HCIError.unknownHCICommand)
        }
    }

    /// An LE Meta event, if the host's masks let it through.
    func meta(_ parameters: [UInt8], after d: Int64, connection: Int?) {
        guard let sub = parameters.first, leEventEnabled(sub) else { return }
        let packet = parameters.withByteView { HCIEventPacket(code: HCIEventCode.leMeta, parameters: $0).h4Encoded() }
        schedule(after: d, .packet(packet, connection: connection))
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
