import BLEBytes
import BLEPackets
import CaptureIO

/// The controller's Filter Accept List, followed from LE Add Device To / Remove Device From /
/// Clear Filter Accept List (Core 5.4 Vol 4 Part E 7.8.15–7.8.17), so that a connection made
/// through the list (initiator filter policy 1) names the peers it could have reached.
struct AcceptListState {
    enum Edit {
        case add(FilterAcceptList.Entry)
        case remove(BDAddr)
        case clear
    }
    struct Pending {
        var opcode: UInt16
        var frame: Int
        var edit: Edit
    }
    static let maximumEntries = 256
    static let maximumPending = 8

    var entries: [FilterAcceptList.Entry] = []
    var complete = false
    var clearedFrame: Int?
    var anomalies = 0
    var firstAnomalyFrame: Int?
    var pending: [Pending] = []
    /// The list as it stands, named by every `connection.create` until the next change.
    var snapshot: FilterAcceptListSnapshot?

    mutating func noteAnomaly(_ frame: Int) {
        anomalies += 1
        if firstAnomalyFrame == nil { firstAnomalyFrame = frame }
        snapshot = nil
    }

    mutating func apply(_ p: Pending) {
        snapshot = nil
        switch p.edit {
        case .add(let e):
            // Adding a device already on the list changes nothing (7.8.16); the first add stays.
            guard !entries.contains(where: { $0.address == e.address && $0.addressType == e.addressType })
            else { return }
            if entries.count >= Self.maximumEntries {
                // More than any controller holds: the oldest is dropped and the list is no
                // longer known whole.
                entries.removeFirst()
                complete = false
                noteAnomaly(p.frame)
            }
            entries.append(e)
        case .remove(let a):
            guard let i = entries.firstIndex(where: { $0.address == a }) else {
                // Not on the list as the capture built it: set up before the capture began
                // (list not complete) or never added; either way nothing to remove.
                noteAnomaly(p.frame)
                return
            }
            entries.remove(at: i)
        case .clear:
            entries.removeAll()
            complete = true
            clearedFrame = p.frame
        }
    }

    mutating func current(_ tables: ScanFilterTables) -> FilterAcceptListSnapshot {
        if let s = snapshot { return s }
        let s = tables.keep(
            FilterAcceptList(
                entries: entries, complete: complete, clearedFrame: clearedFrame, anomalies: anomalies,
                firstAnomalyFrame: firstAnomalyFrame))
        snapshot = s
        return s
    }
}

extension TimelineBuilder {
    /// An accept-list command: kept until its Command Complete tells whether it was applied.
    func acceptListCommand(_ c: HCICommandPacket, _ r: CaptureRecord) {
        var state = acceptLists[r.controllerIndex] ?? AcceptListState()
        let edit: AcceptListState.Edit
        switch c.opcode {
        case HCILEFilterAcceptListDevice.clearOpcode:
            edit = .clear
        default:
            let add = c.opcode == HCILEFilterAcceptListDevice.addOpcode
            guard let d = HCILEFilterAcceptListDevice(add: add, parameters: c.parameters) else {
                // Too short to name a device: noted, nothing applied.
                state.noteAnomaly(r.frame)
                acceptLists[r.controllerIndex] = state
                return
            }
            edit =
                add
                ? .add(FilterAcceptList.Entry(addressType: d.addressType, address: d.address, frame: r.frame))
                : .remove(d.address)
        }
        // A second command before the first's answer: the first is never answered (noted).
        if state.pending.count >= AcceptListState.maximumPending {
            let lost = state.pending.removeFirst()
            state.noteAnomaly(lost.frame)
        }
        state.pending.append(.init(opcode: c.opcode, frame: r.frame, edit: edit))
        acceptLists[r.controllerIndex] = state
    }

    /// The Command Complete (or a failing Command Status) of an accept-list command: applied on
    /// success; a rejected command, or an answer without a Status, changes nothing and is noted.
    func acceptListAnswer(_ opcode: UInt16, status: UInt8?, _ r: CaptureRecord) {
        guard var state = acceptLists[r.controllerIndex],
            let i = state.pending.firstIndex(where: { $0.opcode == opcode })
        else { return }
        let p = state.pending.remove(at: i)
        if status == HCIError.success { state.apply(p) } else { state.noteAnomaly(p.frame) }
        acceptLists[r.controllerIndex] = state
    }

    /// HCI Reset empties the list (7.3.2 returns the controller to its default state).
    func resetAcceptList(_ r: CaptureRecord) {
        var state = AcceptListState()
        state.complete = true
        state.clearedFrame = r.frame
        acceptLists[r.controllerIndex] = state
    }

    /// The list a create-connection through it chooses from.
    func acceptListForCreate(_ r: CaptureRecord) -> FilterAcceptListSnapshot {
        var state = acceptLists[r.controllerIndex] ?? AcceptListState()
        let list = state.current(scanFilterTables)
        acceptLists[r.controllerIndex] = state
        return list
    }

    static func isAcceptListCommand(_ opcode: UInt16) -> Bool {
        opcode == HCILEFilterAcceptListDevice.addOpcode || opcode == HCILEFilterAcceptListDevice.removeOpcode
            || opcode == HCILEFilterAcceptListDevice.clearOpcode
    }
}
