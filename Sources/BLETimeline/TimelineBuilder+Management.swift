import BLEBytes
import BLEPackets
import CaptureIO

/// BlueZ management traffic recorded by the Linux monitor (control command/event records,
/// BlueZ doc/mgmt-api.txt): power and discovery as bluetoothd asked for them. On Linux this is
/// where "scan without a service filter" and "scan before powered on" are visible, since the
/// kernel, not the application, sends the HCI commands.
extension TimelineBuilder {
    static let managementCommandComplete: UInt16 = 0x0001
    static let managementCommandStatus: UInt16 = 0x0002
    static let managementNewSettings: UInt16 = 0x0006
    static let managementDiscovering: UInt16 = 0x0013

    func management(_ r: CaptureRecord) {
        if r.kind == .controlCommand {
            guard let c = BlueZManagementCommand(r.payload) else { return }
            let kind: TimelineEvent.Kind
            switch c.opcode {
            case BlueZManagementOpcode.setPowered:
                guard let v = c.parameters.u8(0) else { return }
                kind = .managementSetPowered(powered: v != 0)
            case BlueZManagementOpcode.startDiscovery, BlueZManagementOpcode.startLimitedDiscovery:
                guard let t = c.parameters.u8(0) else { return }
                kind = .managementDiscoveryStart(
                    ManagementDiscovery(
                        addressTypes: t, serviceFilterUUIDs: nil, rssiThreshold: nil,
                        limited: c.opcode == BlueZManagementOpcode.startLimitedDiscovery))
            case BlueZManagementOpcode.startServiceDiscovery:
                guard let d = BlueZStartServiceDiscovery(c.parameters) else { return }
                kind = .managementDiscoveryStart(
                    ManagementDiscovery(
                        addressTypes: d.addressTypes, serviceFilterUUIDs: d.uuidCount, rssiThreshold: d.rssiThreshold,
                        limited: false))
            case BlueZManagementOpcode.stopDiscovery:
                kind = .managementDiscoveryStop(addressTypes: c.parameters.u8(0) ?? 0)
            default:
                return
            }
            let seq = add(event(r, nil, kind), pendingUntil: r.timestamp &+ Self.hciCommandTimeout)
            // One outstanding command per socket and opcode; an older one was never answered.
            if let i = pendingManagement.firstIndex(where: { $0.cookie == c.cookie && $0.opcode == c.opcode }) {
                let old = pendingManagement.remove(at: i)
                if queue.isPending(old.sequence) {
                    queue.update(old.sequence) { $0.outcome = .unanswered(frame: r.frame) }
                }
            }
            if pendingManagement.count >= 16 { pendingManagement.removeFirst() }
            pendingManagement.append(PendingManagement(cookie: c.cookie, opcode: c.opcode, sequence: seq))
            return
        }
        guard r.kind == .controlEvent, let e = BlueZManagementEvent(r.payload) else { return }
        if let (opcode, status) = e.answered {
            guard let i = pendingManagement.firstIndex(where: { $0.cookie == e.cookie && $0.opcode == opcode })
            else { return }
            let cmd = pendingManagement.remove(at: i)
            queue.update(cmd.sequence) { ev in
                guard ev.isPending else { return }
                let latency = r.timestamp &- ev.time
                ev.outcome =
                    status == 0
                    ? .success(frame: r.frame, latency: latency)
                    : .error(frame: r.frame, latency: latency, code: status, handle: 0)
            }
            return
        }
        switch e.code {
        case Self.managementNewSettings:
            guard let s = e.parameters.u32le(0) else { return }
            add(event(r, nil, .managementSettings(settings: s)))
        case Self.managementDiscovering:
            guard let t = e.parameters.u8(0), let on = e.parameters.u8(1) else { return }
            add(event(r, nil, .managementDiscovering(addressTypes: t, discovering: on != 0)))
        default:
            break
        }
    }
}
