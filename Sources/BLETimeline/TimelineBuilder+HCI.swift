import BLEBytes
import BLEPackets
import CaptureIO

/// HCI commands and events (Core 5.4 Vol 4 Part E 7).
extension TimelineBuilder {
    static let resetOpcode: UInt16 = HCIOpcode.reset
    static let createConnectionCancelOpcode: UInt16 = HCIOpcode.leCreateConnectionCancel

    func hciCommand(_ c: HCICommandPacket, _ r: CaptureRecord) {
        let p = c.parameters
        if c.opcode != Self.resetOpcode { initCommand(c, r) }
        noteAPCFBurst(c.opcode, r)
        switch c.opcode {
        case Self.resetOpcode:
            // Reset drops every connection without Disconnection Complete (7.3.2).
            for conn in hot.open.values.filter({ $0.controllerIndex == r.controllerIndex }) {
                conn.resetFrame = r.frame
                close(conn, r, outcome: .disconnected(frame: r.frame), endFrame: r.frame)
            }
            hot.resetControllers.insert(r.controllerIndex)
            scanParameters = nil
            resetScanFilters()
            resetAcceptList(r)
            advertising[r.controllerIndex] = AdvertisingState(afterReset: true)
            if let pending = hot.initState, pending.controller == r.controllerIndex { endInit(r) }
            hot.initState = InitState(controller: r.controllerIndex, info: ControllerInfo(resetFrame: r.frame))
            hot.initState?.info.commands = 1
            track(
                c.opcode, r, add(event(r, nil, .controllerReset), pendingUntil: r.timestamp &+ Self.hciCommandTimeout))

        case HCILESetScanParameters.opcode:
            guard let s = HCILESetScanParameters(parameters: p) else { return }
            scanParameters = ScanParameters(
                extended: false, active: s.isActive, interval: s.interval, window: s.window,
                filterPolicy: s.filterPolicy, ownAddressType: s.ownAddressType, phys: 0x01, filterDuplicates: 0,
                parametersKnown: true)
        case HCILESetExtendedScanParameters.opcode:
            guard let s = HCILESetExtendedScanParameters(parameters: p) else { return }
            let first = s.entries.first
            scanParameters = ScanParameters(
                extended: true, active: first?.isActive ?? false, interval: first?.interval ?? 0,
                window: first?.window ?? 0, filterPolicy: s.filterPolicy, ownAddressType: s.ownAddressType,
                phys: s.scanningPHYs, filterDuplicates: 0, parametersKnown: true)
        case HCILESetScanEnable.opcode:
            guard let s = HCILESetScanEnable(parameters: p) else { return }
            scanEnable(s.enable, filterDuplicates: s.filterDuplicates, extended: false, c.opcode, r)
        case HCILESetExtendedScanEnable.opcode:
            guard let s = HCILESetExtendedScanEnable(parameters: p) else { return }
            scanEnable(s.enable, filterDuplicates: s.filterDuplicates, extended: true, c.opcode, r)

        case HCILECreateConnection.opcode:
            guard let cc = HCILECreateConnection(parameters: p) else { return }
            let info = ConnectionCreateInfo(
                extended: false, filterPolicy: cc.initiatorFilterPolicy, scanInterval: cc.scanInterval,
                scanWindow: cc.scanWindow, intervalMin: cc.connection.intervalMin,
                intervalMax: cc.connection.intervalMax,
                latency: cc.connection.maxLatency, supervisionTimeout: cc.connection.supervisionTimeout, phys: 0x01)
            createConnection(info, peer: cc.peerAddress, peerType: cc.peerAddressType, c.opcode, r)
        case HCILEExtendedCreateConnection.opcode, HCILEExtendedCreateConnectionV2.opcode:
            guard let cc = HCILEExtendedCreateConnection(opcode: c.opcode, parameters: p) else { return }
            let first = cc.entries.first
            let info = ConnectionCreateInfo(
                extended: true, filterPolicy: cc.initiatorFilterPolicy, scanInterval: first?.scanInterval ?? 0,
                scanWindow: first?.scanWindow ?? 0, intervalMin: first?.connection.intervalMin ?? 0,
                intervalMax: first?.connection.intervalMax ?? 0, latency: first?.connection.maxLatency ?? 0,
                supervisionTimeout: first?.connection.supervisionTimeout ?? 0, phys: cc.initiatingPHYs)
            createConnection(info, peer: cc.peerAddress, peerType: cc.peerAddressType, c.opcode, r)
        case HCIOpcode.leSetRandomAddress, HCILESetAdvertisingParameters.opcode, HCIOpcode.leSetAdvertisingData,
            HCIOpcode.leSetScanResponseData, HCILESetAdvertisingEnable.opcode,
            HCILESetExtendedAdvertisingParameters.opcode, HCILESetAdvertisingSetRandomAddress.opcode,
            HCIOpcode.leSetExtendedAdvertisingData, HCIOpcode.leSetExtendedScanResponseData,
            HCILESetExtendedAdvertisingEnable.opcode, HCIOpcode.leRemoveAdvertisingSet,
            HCIOpcode.leClearAdvertisingSets:
            advertisingCommand(c, r)
        case HCILEAdvFilter.opcode:
            apcfCommand(c, r)
        case HCILEFilterAcceptListDevice.addOpcode, HCILEFilterAcceptListDevice.removeOpcode,
            HCILEFilterAcceptListDevice.clearOpcode:
            acceptListCommand(c, r)
        case HCIOpcode.inquiry:
            inquiry(r)
        case Self.createConnectionCancelOpcode:
            track(
                c.opcode, r, add(event(r, nil, .connectionCancel), pendingUntil: r.timestamp &+ Self.hciCommandTimeout))

        case HCIDisconnect.opcode:
            guard let d = HCIDisconnect(parameters: p),
                let conn = connection(d.handle, r, create: false)
            else { return }
            conn.localDisconnectFrame = r.frame
            conn.localDisconnectReason = d.reason
        case HCIOpcode.leConnectionUpdate, HCIOpcode.leReadRemoteFeatures, HCIOpcode.leEnableEncryption,
            HCIOpcode.leSetPHY:
            // Each starts with Connection_Handle (7.8.18, 7.8.21, 7.8.24, 7.8.49).
            guard let h = HCIConnectionHandleCommand(opcode: c.opcode, parameters: p),
                let conn = connection(h.handle, r, create: false)
            else { return }
            conn.linkCommand = OutstandingLinkCommand(opcode: c.opcode, frame: r.frame, time: r.timestamp)
        default:
            break
        }
    }

    /// A Command Status for a tracked link command: accepted (the procedure runs) or refused
    /// (no procedure, nothing outstanding).
    private func linkCommandStatus(_ opcode: UInt16, status: UInt8, _ r: CaptureRecord) {
        guard OutstandingLinkCommand.isTracked(opcode) else { return }
        // Commands are answered in order: the oldest one waiting for its status is answered.
        var waiting: ConnectionState?
        for c in hot.open.values
        where c.controllerIndex == r.controllerIndex && c.linkCommand?.opcode == opcode
            && c.linkCommand?.statusFrame == nil
        {
            if let w = waiting, let wf = w.linkCommand?.frame, let cf = c.linkCommand?.frame, wf <= cf { continue }
            waiting = c
        }
        guard let c = waiting else { return }
        if status == 0 { c.linkCommand?.statusFrame = r.frame } else { c.linkCommand = nil }
    }

    /// An ACL packet handed to the controller: one LE buffer more in use.
    func aclSent(_ handle: UInt16, _ buffers: Int, _ r: CaptureRecord) {
        guard let c = connection(handle & HCIConnectionHandle.mask, r, create: false) else { return }
        c.aclInFlight += 1
        if c.aclInFlight >= buffers, c.stallStart == nil { c.stallStart = (r.frame, r.timestamp) }
    }

    /// Number of Completed Packets (7.7.19): Num_Handles, then each handle and its count.
    private func completedPackets(_ p: ByteView, _ r: CaptureRecord) {
        guard let n = HCINumberOfCompletedPackets(parameters: p) else { return }
        for entry in n.entries {
            guard let c = connection(entry.handle, r, create: false) else { continue }
            c.aclInFlight = max(0, c.aclInFlight - Int(entry.count))
            if let s = c.stallStart, let buffers = leACLBuffers, c.aclInFlight < buffers {
                let d = r.timestamp - s.time
                if d >= ACLBufferStall.threshold {
                    c.stall = ACLBufferStall(
                        startFrame: s.frame, startTime: s.time, endFrame: r.frame, duration: d, packets: c.aclInFlight)
                }
                c.stallStart = nil
            }
        }
    }

    /// HCI Read RSSI (Vol 4 Part E 7.5.4).
    static let readRSSIOpcode: UInt16 = HCIReadRSSI.opcode

    /// Read RSSI's return parameters: Status, Handle, RSSI (i8, dBm). 127 is "not available".
    private func readRSSI(_ p: ByteView, _ r: CaptureRecord) {
        let rssi = HCIReadRSSI(returnParameters: p)
        guard rssi.status == 0, let h = rssi.handle, let v = rssi.rssi, v != HCIReadRSSI.notAvailable,
            let c = connection(h, r, create: false)
        else { return }
        c.rssi.add(RSSISample(frame: r.frame, time: r.timestamp, dBm: v, source: .readRSSI))
    }

    /// An Android BQR report: a link-quality one is kept as the last one of its connection; a
    /// Root Inflammation (no handle: the controller's own failure) and an RF Stats report (no
    /// handle: counts over all the controller's traffic) as the last one of every link of that
    /// controller then up. Energy Monitoring says nothing of a link: not kept.
    private func qualityReport(_ p: ByteView, _ r: CaptureRecord) {
        guard let e = HCIBluetoothQualityReport(parameters: p) else { return }
        switch e.report {
        case .rootInflammation(let ri):
            for c in hot.open.values where c.controllerIndex == r.controllerIndex {
                c.rootInflammation = RootInflammationFact(frame: r.frame, time: r.timestamp, report: ri)
            }
            return
        case .rfStats(let rf):
            for c in hot.open.values where c.controllerIndex == r.controllerIndex {
                c.rfStats = RFStatsFact(frame: r.frame, time: r.timestamp, report: rf)
            }
            return
        default: break
        }
        guard case .linkQuality(let q, _) = e.report,
            let c = connection(q.handle & HCIConnectionHandle.mask, r, create: false)
        else { return }
        c.qualityReport = QualityReportFact(
            frame: r.frame, time: r.timestamp, report: q, count: (c.qualityReport?.count ?? 0) + 1)
    }

    /// The event that ends a link command's procedure came (whoever started the procedure).
    private func linkCommandCompleted(_ c: ConnectionState, _ opcode: UInt16) {
        if c.linkCommand?.opcode == opcode { c.linkCommand = nil }
    }

    private func scanEnable(
        _ enable: Bool, filterDuplicates: UInt8, extended: Bool, _ opcode: UInt16, _ r: CaptureRecord
    ) {
        let kind: TimelineEvent.Kind
        if enable {
            var s =
                scanParameters
                ?? ScanParameters(
                    extended: extended, active: false, interval: 0, window: 0, filterPolicy: 0, ownAddressType: 0,
                    phys: 0, filterDuplicates: 0, parametersKnown: false)
            s.filterDuplicates = filterDuplicates
            s.extended = extended
            kind = .scanStart(s)
        } else {
            kind = .scanStop
        }
        track(opcode, r, add(event(r, nil, kind), pendingUntil: r.timestamp &+ Self.hciCommandTimeout))
        scanning = enable
        if enable { emitScanFilters(r) }
    }

    private func createConnection(
        _ info: ConnectionCreateInfo, peer: BDAddr, peerType: UInt8, _ opcode: UInt16,
        _ r: CaptureRecord
    ) {
        var info = info
        // With the filter accept list the address parameter is ignored (7.8.12): the list the
        // controller chooses from is the fact.
        if info.filterPolicy == 1 {
            let snapshot = acceptListForCreate(r)
            info.acceptList = snapshot
            if let list = scanFilterTables.acceptList(snapshot) { info.acceptListDevices = AcceptListDevices(list) }
        }
        var e = event(r, nil, .connectionCreate(info))
        if info.filterPolicy == 0 {
            e.peer = peer
            e.peerAddressType = peerType
        }
        track(opcode, r, add(e, pendingUntil: r.timestamp &+ Self.hciCommandTimeout))
    }

    /// Remembers a command's event until its Command Complete/Status. A second command with
    /// the same opcode before the answer leaves the first unanswered.
    func track(_ opcode: UInt16, _ r: CaptureRecord, _ sequence: Int) {
        if let i = pendingCommands.firstIndex(where: {
            $0.controller == r.controllerIndex && $0.opcode == opcode && $0.frame != r.frame
        }) {
            let old = pendingCommands.remove(at: i)
            if hot.queue.isPending(old.sequence) {
                hot.queue.update(old.sequence) { $0.outcome = .unanswered(frame: r.frame) }
            }
        }
        if pendingCommands.count >= 16 { pendingCommands.removeFirst() }
        pendingCommands.append(
            PendingCommand(controller: r.controllerIndex, opcode: opcode, sequence: sequence, frame: r.frame))
    }

    private func answer(_ opcode: UInt16, status: UInt8, _ r: CaptureRecord) {
        guard let i = pendingCommands.firstIndex(where: { $0.controller == r.controllerIndex && $0.opcode == opcode })
        else { return }
        let cmd = pendingCommands.remove(at: i)
        answer(cmd.sequence, status: status, r)
        // The other events of the same command (one per advertising set).
        while let j = pendingCommands.firstIndex(where: {
            $0.controller == r.controllerIndex && $0.opcode == opcode && $0.frame == cmd.frame
        }) {
            answer(pendingCommands.remove(at: j).sequence, status: status, r)
        }
    }

    private func answer(_ sequence: Int, status: UInt8, _ r: CaptureRecord) {
        hot.queue.update(sequence) { e in
            guard e.isPending else { return }
            let latency = r.timestamp &- e.time
            e.outcome =
                status == 0
                ? .success(frame: r.frame, latency: latency)
                : .error(frame: r.frame, latency: latency, code: status, handle: 0)
        }
    }

    func hciEvent(_ e: HCIEventPacket, _ r: CaptureRecord) {
        let p = e.parameters
        switch e.code {
        case HCICommandComplete.code:
            guard let cc = HCICommandComplete(parameters: p) else { return }
            initCommandComplete(cc, r)
            answer(cc.opcode, status: cc.status ?? 0, r)
            if cc.opcode == HCILEAdvFilter.opcode { apcfComplete(cc, r) }
            if cc.opcode == HCILEGetVendorCapabilities.opcode { vendorCapabilities(cc, r) }
            if Self.isAcceptListCommand(cc.opcode) { acceptListAnswer(cc.opcode, status: cc.status, r) }
            if cc.opcode == Self.readRSSIOpcode { readRSSI(cc.returnParameters, r) }
        case HCICommandStatus.code:
            guard let cs = HCICommandStatus(parameters: p) else { return }
            if cs.status != 0, hot.initState?.controller == r.controllerIndex {
                hot.initState?.info.failedCommands += 1
            }
            answer(cs.opcode, status: cs.status, r)
            linkCommandStatus(cs.opcode, status: cs.status, r)
            // These commands answer with Command Complete; a Command Status can only refuse them.
            if cs.status != 0, Self.isAcceptListCommand(cs.opcode) { acceptListAnswer(cs.opcode, status: cs.status, r) }
        case HCIDisconnectionComplete.code:
            guard let d = HCIDisconnectionComplete(parameters: p) else { return }
            disconnectionComplete(d, r)
        case HCIEncryptionChange.codeV1, HCIEncryptionChange.codeV2:
            guard let ec = HCIEncryptionChange(parameters: p, version: e.code == HCIEncryptionChange.codeV2 ? 2 : 1),
                let c = connection(ec.handle, r)
            else { return }
            if ec.status == 0, ec.encryptionEnabled != 0 { c.security.encrypted = true }
            linkCommandCompleted(c, HCIOpcode.leEnableEncryption)
            add(event(r, c, .encryptionChange(status: ec.status, enabled: ec.encryptionEnabled)))
        case HCIEventCode.connectionComplete:
            // BR/EDR Connection Complete (7.7.3): Status, Handle, BD_ADDR, Link_Type (0x01 ACL), Encryption.
            guard let cc = HCIConnectionComplete(parameters: p), let h = cc.handle, let addr = cc.peerAddress,
                cc.linkType == HCIConnectionComplete.aclLink
            else { return }
            let info = ConnectionCompleteInfo(status: cc.status, handle: h, role: nil, timing: nil, isLE: false)
            connectionComplete(info, peer: addr, peerType: nil, r)
        case HCIEventCode.numberOfCompletedPackets:
            completedPackets(p, r)
        case HCIEventPacket.leMetaCode:
            leMeta(e, r)
        case HCIBluetoothQualityReport.code:
            qualityReport(p, r)  // nil unless the BQR subevent (`HCIBluetoothQualityReport`)
        default:
            break
        }
    }

    private func leMeta(_ e: HCIEventPacket, _ r: CaptureRecord) {
        let p = e.subeventParameters
        switch e.subeventCode {
        case HCILEConnectionComplete.subevent:
            guard let cc = HCILEConnectionComplete(parameters: p) else { return }
            let info = ConnectionCompleteInfo(
                status: cc.status, handle: cc.handle, role: cc.role,
                timing: ConnectionTiming(
                    interval: cc.interval, latency: cc.latency, supervisionTimeout: cc.supervisionTimeout),
                isLE: true)
            connectionComplete(info, peer: cc.peerAddress, peerType: cc.peerAddressType, r)
        case HCILEEnhancedConnectionComplete.subeventV1, HCILEEnhancedConnectionComplete.subeventV2:
            let version = e.subeventCode == HCILEEnhancedConnectionComplete.subeventV2 ? 2 : 1
            guard let cc = HCILEEnhancedConnectionComplete(parameters: p, version: version) else { return }
            let info = ConnectionCompleteInfo(
                status: cc.status, handle: cc.handle, role: cc.role,
                timing: ConnectionTiming(
                    interval: cc.interval, latency: cc.latency, supervisionTimeout: cc.supervisionTimeout),
                isLE: true)
            connectionComplete(info, peer: cc.peerAddress, peerType: cc.peerAddressType, r)
        case HCILEConnectionUpdateComplete.subevent:
            guard let u = HCILEConnectionUpdateComplete(parameters: p), let c = connection(u.handle, r) else { return }
            let t = ConnectionTiming(interval: u.interval, latency: u.latency, supervisionTimeout: u.supervisionTimeout)
            if u.status == 0 { c.setTiming(t, frame: r.frame) }
            linkCommandCompleted(c, HCIOpcode.leConnectionUpdate)
            add(event(r, c, .connectionUpdate(status: u.status, timing: t)))
        case HCILEDataLengthChange.subevent:
            guard let d = HCILEDataLengthChange(parameters: p), let c = connection(d.handle, r) else { return }
            add(event(r, c, .dataLengthChange(maxTxOctets: d.maxTxOctets, maxRxOctets: d.maxRxOctets)))
        case HCILEPHYUpdateComplete.subevent:
            guard let u = HCILEPHYUpdateComplete(parameters: p), let c = connection(u.handle, r) else { return }
            if u.status == 0 { c.phy = (u.txPHY, u.rxPHY) }
            linkCommandCompleted(c, HCIOpcode.leSetPHY)
            add(event(r, c, .phyUpdate(status: u.status, txPHY: u.txPHY, rxPHY: u.rxPHY)))
        case HCILEReadRemoteFeaturesComplete.subevent:
            // Status, Connection_Handle, LE_Features (7.7.65.4): only the handle is needed here.
            guard let h = HCIStatusAndConnectionHandle(parameters: p)?.handle, let c = connection(h, r, create: false)
            else { return }
            linkCommandCompleted(c, HCIOpcode.leReadRemoteFeatures)
        case HCILEAdvertisingReport.subevent:
            guard let reports = HCILEAdvertisingReport(parameters: p) else { return }
            for a in reports.reports {
                var ev = event(
                    r, nil,
                    .advertisement(
                        AdvertisementInfo(
                            extended: false, eventType: UInt16(a.eventType), rssi: a.rssi, txPower: nil, primaryPHY: nil
                        )))
                ev.peer = a.address
                ev.peerAddressType = a.addressType
                ev.value = InlineBytes(a.data)
                add(ev)
            }
        case HCILEExtendedAdvertisingReport.subevent:
            guard let reports = HCILEExtendedAdvertisingReport(parameters: p) else { return }
            for a in reports.reports {
                var ev = event(
                    r, nil,
                    .advertisement(
                        AdvertisementInfo(
                            extended: true, eventType: a.eventType, rssi: a.rssi,
                            txPower: a.txPower == 127 ? nil : a.txPower, primaryPHY: a.primaryPHY,
                            secondaryPHY: a.secondaryPHY == 0 ? nil : a.secondaryPHY)))
                ev.peer = a.address
                ev.peerAddressType = a.addressType
                ev.value = InlineBytes(a.data)
                add(ev)
            }
        default:
            break
        }
    }

    private func connectionComplete(_ info: ConnectionCompleteInfo, peer: BDAddr, peerType: UInt8?, _ r: CaptureRecord)
    {
        if hot.initState?.controller == r.controllerIndex { endInit(r) }
        guard info.status == 0 else {
            var ev = event(r, nil, .connectionFailed(info))
            ev.peer = peer
            ev.peerAddressType = peerType
            add(ev)
            return
        }
        let c = startConnection(
            handle: info.handle, peer: peer, peerType: peerType, role: info.role,
            isLE: info.isLE, r)
        if let t = info.timing { c.setTiming(t, frame: r.frame) }
        add(event(r, c, .connectionComplete(info)))
    }

    private func disconnectionComplete(_ d: HCIDisconnectionComplete, _ r: CaptureRecord) {
        // A failed Disconnect leaves the connection up (7.7.5). A Disconnection Complete for a
        // handle the capture never saw in use ends a link that started before the capture and
        // showed nothing in it: the event is kept, but it makes no connection of its own.
        let c = connection(d.handle, r, create: false)
        let side: DisconnectionSide
        switch d.reason {
        case HCIError.connectionTimeout, HCIError.llResponseTimeout, HCIError.connectionTerminatedMICFailure,
            HCIError.connectionFailedToBeEstablished:
            side = .linkLoss
        case HCIError.connectionTerminatedByLocalHost: side = .local
        default: side = c?.localDisconnectFrame != nil ? .local : .remote
        }
        add(event(r, c, .disconnection(status: d.status, reason: d.reason, side: side)))
        if d.status == 0, let c {
            c.endReason = d.reason
            c.endSide = side
            close(c, r, outcome: .disconnected(frame: r.frame), endFrame: r.frame)
        }
    }
}
