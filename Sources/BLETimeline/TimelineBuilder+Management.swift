import BLEBytes
import BLEPackets
import CaptureIO

/// BlueZ management traffic recorded by the Linux monitor (control command/event records,
/// BlueZ doc/mgmt-api.txt): power and discovery as bluetoothd asked for them. On Linux this is
/// where "scan without a service filter" and "scan before powered on" are visible, since the
/// kernel, not the application, sends the HCI commands.
extension TimelineBuilder {
    func management(_ r: CaptureRecord) {
        if r.kind == .controlCommand {
            guard let c = BlueZManagementCommand(r.payload) else { return }
            let kind: TimelineEvent.Kind
            switch c.opcode {
            case BlueZManagementOpcode.setPowered:
                guard let v = BlueZSetPowered(c.parameters) else { return }
                kind = .managementSetPowered(powered: v.powered)
            case BlueZManagementOpcode.startDiscovery, BlueZManagementOpcode.startLimitedDiscovery:
                guard let t = BlueZDiscoveryAddressTypes(c.parameters) else { return }
                kind = .managementDiscoveryStart(
                    ManagementDiscovery(
                        addressTypes: t.addressTypes, serviceFilterUUIDs: nil, rssiThreshold: nil,
                        limited: c.opcode == BlueZManagementOpcode.startLimitedDiscovery))
            case BlueZManagementOpcode.startServiceDiscovery:
                guard let d = BlueZStartServiceDiscovery(c.parameters) else { return }
                kind = .managementDiscoveryStart(
                    ManagementDiscovery(
                        addressTypes: d.addressTypes, serviceFilterUUIDs: d.uuidCount, rssiThreshold: d.rssiThreshold,
                        limited: false))
            case BlueZManagementOpcode.stopDiscovery:
                // An unknown Address_Type reads as none, as before.
                kind = .managementDiscoveryStop(
                    addressTypes: BlueZDiscoveryAddressTypes(c.parameters)?.addressTypes ?? 0)
            default:
                return
            }
            let seq = add(event(r, nil, kind), pendingUntil: r.timestamp &+ Self.hciCommandTimeout)
            // One outstanding command per socket and opcode; an older one was never answered.
            if let i = pendingManagement.firstIndex(where: { $0.cookie == c.cookie && $0.opcode == c.opcode }) {
                let old = pendingManagement.remove(at: i)
                if hot.queue.isPending(old.sequence) {
                    hot.queue.update(old.sequence) { $0.outcome = .unanswered(frame: r.frame) }
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
            hot.queue.update(cmd.sequence) { ev in
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
        case BlueZNewSettings.code:
            guard let s = BlueZNewSettings(e.parameters) else { return }
            add(event(r, nil, .managementSettings(settings: s.currentSettings)))
        case BlueZDiscovering.code:
            guard let d = BlueZDiscovering(e.parameters) else { return }
            add(event(r, nil, .managementDiscovering(addressTypes: d.addressTypes, discovering: d.discovering)))
        default:
            break
        }
    }
}
