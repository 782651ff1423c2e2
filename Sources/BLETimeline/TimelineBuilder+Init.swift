import BLEBytes
import BLEPackets
import CaptureIO

/// The host's power-on sequence (Core 5.4 Vol 4 Part E 7.3.2 Reset, then the informational
/// and LE controller commands a host sends before using the controller). Reported as one
/// `controller.init_complete` event when the host first does something operational, so that a
/// reader sees what the controller said about itself without reading 28 frames.
extension TimelineBuilder {
    struct InitState {
        var controller: UInt16
        var info: ControllerInfo
        /// Last Command Complete of the sequence: the event is placed there.
        var lastFrame = 0
        var lastTime: Int64 = 0
    }

    /// Commands that mean the host is done initialising: scanning, advertising, connecting.
    static let operationalOpcodes: Set<UInt16> = [
        HCIOpcode.leSetScanParameters, HCIOpcode.leSetScanEnable,
        HCIOpcode.leSetExtendedScanParameters, HCIOpcode.leSetExtendedScanEnable,
        HCIOpcode.leSetAdvertisingParameters, HCIOpcode.leSetAdvertisingEnable,
        HCIOpcode.leSetExtendedAdvertisingParameters, HCIOpcode.leSetExtendedAdvertisingEnable,
        HCIOpcode.leCreateConnection, HCIOpcode.leExtendedCreateConnection, HCIOpcode.leExtendedCreateConnectionV2,
        HCIOpcode.createConnection,  // BR/EDR
    ]

    func initCommand(_ c: HCICommandPacket, _ r: CaptureRecord) {
        guard let s = initState, s.controller == r.controllerIndex else { return }
        if Self.operationalOpcodes.contains(c.opcode) {
            endInit(r)
            return
        }
        initState?.info.commands += 1
        let p = c.parameters
        switch c.opcode {
        case HCIOpcode.leSetRandomAddress:  // 7.8.4
            initState?.info.randomAddress = BDAddr(littleEndian: p, at: 0)
        case HCIOpcode.leWriteSuggestedDefaultDataLength:  // 7.8.35
            initState?.info.suggestedMaxTxOctets = p.u16le(0)
            initState?.info.suggestedMaxTxTime = p.u16le(2)
        default:
            break
        }
    }

    func initCommandComplete(_ cc: HCICommandComplete, _ r: CaptureRecord) {
        guard initState?.controller == r.controllerIndex, cc.opcode != 0 else { return }
        let rp = cc.returnParameters
        initState?.lastFrame = r.frame
        initState?.lastTime = r.timestamp
        guard cc.status == 0 else {
            initState?.info.failedCommands += 1
            return
        }
        switch cc.opcode {
        case HCIOpcode.readLocalVersionInformation:  // 7.4.1
            initState?.info.hciVersion = rp.u8(1)
            initState?.info.manufacturer = rp.u16le(5)
            initState?.info.lmpSubversion = rp.u16le(7)
        case HCIOpcode.readBufferSize:  // 7.4.5
            initState?.info.aclMaxLength = rp.u16le(1)
            initState?.info.aclPackets = rp.u16le(4)
        case HCIOpcode.readBDADDR:  // 7.4.6
            initState?.info.publicAddress = BDAddr(littleEndian: rp, at: 1)
        case HCIOpcode.leReadBufferSize, HCIOpcode.leReadBufferSizeV2:  // 7.8.2
            initState?.info.leACLMaxLength = rp.u16le(1)
            initState?.info.leACLPackets = rp.u8(3)
            if let n = rp.u8(3), n > 0 { leACLBuffers = Int(n) }
            if cc.opcode == HCIOpcode.leReadBufferSizeV2 {
                initState?.info.isoMaxLength = rp.u16le(4)
                initState?.info.isoPackets = rp.u8(6)
            }
        case HCIOpcode.leReadLocalSupportedFeatures:  // 7.8.3
            initState?.info.leFeatures = rp.u64le(1)
        default:
            break
        }
    }

    /// Emits the sequence's summary (at its last Command Complete) and stops tracking.
    func endInit(_ r: CaptureRecord) {
        guard let s = initState else { return }
        initState = nil
        // Placed at the last answered command, but never before an event already queued.
        var frame = s.lastFrame
        var time = s.lastTime
        if frame == 0 { (frame, time) = (s.info.resetFrame, r.timestamp) }
        if lastAdded.frame > frame { (frame, time) = lastAdded }
        add(TimelineEvent(frame: frame, time: time, kind: .initComplete(s.info)))
    }
}
