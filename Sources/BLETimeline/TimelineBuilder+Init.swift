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
        guard let s = hot.initState, s.controller == r.controllerIndex else { return }
        if Self.operationalOpcodes.contains(c.opcode) {
            endInit(r)
            return
        }
        hot.initState?.info.commands += 1
        let p = c.parameters
        switch c.opcode {
        case HCIOpcode.leSetRandomAddress:  // 7.8.4
            hot.initState?.info.randomAddress = BDAddr(littleEndian: p, at: 0)
        case HCIOpcode.leWriteSuggestedDefaultDataLength:  // 7.8.35
            let d = HCILEWriteSuggestedDefaultDataLength.Fields(parameters: p)
            hot.initState?.info.suggestedMaxTxOctets = d.maxTxOctets
            hot.initState?.info.suggestedMaxTxTime = d.maxTxTime
        default:
            break
        }
    }

    func initCommandComplete(_ cc: HCICommandComplete, _ r: CaptureRecord) {
        guard hot.initState?.controller == r.controllerIndex, cc.opcode != 0 else { return }
        let rp = cc.returnParameters
        hot.initState?.lastFrame = r.frame
        hot.initState?.lastTime = r.timestamp
        guard cc.status == 0 else {
            hot.initState?.info.failedCommands += 1
            return
        }
        switch cc.opcode {
        case HCIReadLocalVersionInformation.opcode:  // 7.4.1
            let v = HCIReadLocalVersionInformation(returnParameters: rp)
            hot.initState?.info.hciVersion = v.hciVersion
            hot.initState?.info.manufacturer = v.companyIdentifier
            hot.initState?.info.lmpSubversion = v.lmpSubversion
        case HCIReadBufferSize.opcode:  // 7.4.5
            let b = HCIReadBufferSize.Fields(returnParameters: rp)
            hot.initState?.info.aclMaxLength = b.aclDataPacketLength
            hot.initState?.info.aclPackets = b.totalNumACLDataPackets
        case HCIOpcode.readBDADDR:  // 7.4.6
            hot.initState?.info.publicAddress = BDAddr(littleEndian: rp, at: 1)
        case HCILEReadBufferSize.opcodeV1, HCILEReadBufferSize.opcodeV2:  // 7.8.2
            let v2 = cc.opcode == HCILEReadBufferSize.opcodeV2
            let b = HCILEReadBufferSize.Fields(returnParameters: rp, version: v2 ? 2 : 1)
            hot.initState?.info.leACLMaxLength = b.leACLDataPacketLength
            hot.initState?.info.leACLPackets = b.totalNumLEACLDataPackets
            if let n = b.totalNumLEACLDataPackets, n > 0 { leACLBuffers = Int(n) }
            if v2 {
                hot.initState?.info.isoMaxLength = b.isoDataPacketLength
                hot.initState?.info.isoPackets = b.totalNumISODataPackets
            }
        case HCILEReadLocalSupportedFeatures.opcode:  // 7.8.3
            hot.initState?.info.leFeatures = HCILEReadLocalSupportedFeatures(returnParameters: rp).leFeatures
        default:
            break
        }
    }

    /// Emits the sequence's summary (at its last Command Complete) and stops tracking.
    func endInit(_ r: CaptureRecord) {
        guard let s = hot.initState else { return }
        hot.initState = nil
        // Placed at the last answered command, but never before an event already queued.
        var frame = s.lastFrame
        var time = s.lastTime
        if frame == 0 { (frame, time) = (s.info.resetFrame, r.timestamp) }
        if hot.lastAdded.frame > frame { (frame, time) = hot.lastAdded }
        add(TimelineEvent(frame: frame, time: time, kind: .initComplete(s.info)))
    }
}
