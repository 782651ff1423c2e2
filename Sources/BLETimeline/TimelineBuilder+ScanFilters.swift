import BLEBytes
import BLEPackets
import CaptureIO

/// Android's offloaded scan filters (vendor commands 0xFD57 APCF and 0xFD53 LE Get Vendor
/// Capabilities; BLEPackets HCIAndroidAPCF.swift): the controller's filter table, kept as the
/// capture goes and attached to every scan start as a `scan.filters` event.
extension TimelineBuilder {
    /// An APCF command waiting for its Command Complete, with what it would change (copied out
    /// of the frame, whose bytes do not outlive the call).
    struct PendingAPCF {
        enum Edit {
            case enable(Bool)
            case addFilter(index: UInt8, APCFFilteringParameters)
            case deleteFilter(index: UInt8)
            case clearFilters(index: UInt8?)
            case addCondition(index: UInt8, Condition)
            case deleteCondition(index: UInt8, Condition)
            case clearConditions(index: UInt8, subcommand: UInt8)
            case none
        }
        enum Condition: Equatable {
            case serviceUUID(BluetoothUUID)
            case solicitationUUID(BluetoothUUID)
            case localName(String)
            case address(BDAddr)
            case company(UInt16)
            case serviceData(String)
            case other
        }
        var controller: UInt16
        var subcommand: UInt8
        var frame: Int
        var edit: Edit
        /// The set-up burst the command belongs to (`ScanFilterEntry.group`).
        var group = 0
    }

    /// AOSP's ScanManager sets up one client's filters in one burst of APCF commands (its
    /// conditions, then the filtering parameters of each index), with no other HCI command in
    /// between: commands of one burst belong to one client. A burst ends at any other HCI
    /// command or after 100 ms without APCF.
    func noteAPCFBurst(_ opcode: UInt16, _ r: CaptureRecord) {
        let apcf = opcode == HCILEAdvFilter.opcode
        if apcf {
            if !lastCommandWasAPCF || r.timestamp &- lastAPCFTime > 100_000 { apcfGroup += 1 }
            lastAPCFTime = r.timestamp
        }
        lastCommandWasAPCF = apcf
    }

    static let maximumPendingAPCF = 8

    func apcfCommand(_ c: HCICommandPacket, _ r: CaptureRecord) {
        guard let f = HCILEAdvFilter(parameters: c.parameters) else {
            // Too short to name a sub-command: noted, nothing applied.
            noteAnomaly(r.frame)
            return
        }
        apcfSeen = true
        let edit: PendingAPCF.Edit
        switch f.subcommand {
        case .enable?:
            edit = f.enable.map { .enable($0) } ?? .none
            if f.enable == nil { noteAnomaly(r.frame) }  // no enable byte: nothing applied
        case .setFilteringParameters?:
            switch (f.action, f.filterIndex) {
            case (.add?, let i?):
                // Parameters shorter than the add carries: the index is not taken as set up.
                edit = f.filteringParameters.map { .addFilter(index: i, $0) } ?? .none
                if f.filteringParameters == nil { noteAnomaly(r.frame) }
            case (.delete?, let i?): edit = .deleteFilter(index: i)
            case (.clear?, let i): edit = .clearFilters(index: i)
            default:
                edit = .none
                noteAnomaly(r.frame)
            }
        case let s? where s.editsFilter:
            guard let i = f.filterIndex, let a = f.action else {
                edit = .none
                noteAnomaly(r.frame)  // no action or index: nothing to apply
                break
            }
            if a == .clear {
                edit = .clearConditions(index: i, subcommand: s.rawValue)
            } else {
                // A condition whose length field disagrees with the bytes decodes to nil: kept
                // as an unknown condition (`otherConditions`) and noted.
                if f.condition == nil { noteAnomaly(r.frame) }
                let cond = Self.condition(f.condition, s)
                edit = a == .add ? .addCondition(index: i, cond) : .deleteCondition(index: i, cond)
            }
        default:
            edit = .none
        }
        if pendingAPCF.count >= Self.maximumPendingAPCF { pendingAPCF.removeFirst() }
        pendingAPCF.append(
            PendingAPCF(
                controller: r.controllerIndex, subcommand: f.subcommandCode, frame: r.frame, edit: edit,
                group: apcfGroup
            ))
    }

    private static func condition(_ c: APCFCondition?, _ s: HCILEAdvFilter.SubCommand) -> PendingAPCF.Condition {
        switch c {
        case .uuid(let u, _, let solicitation)?: solicitation ? .solicitationUUID(u) : .serviceUUID(u)
        case .localName(let v)?: .localName(String(decoding: v.toArray(), as: UTF8.self))
        case .broadcasterAddress(let a, _)?: .address(a)
        case .manufacturerData(let company, _, _, _)?: .company(company)
        case .serviceData(let pattern, _)?: .serviceData(Hex.string(pattern.toArray()))
        case nil: .other
        }
    }

    func apcfComplete(_ cc: HCICommandComplete, _ r: CaptureRecord) {
        guard let ret = HCILEAdvFilterComplete(returnParameters: cc.returnParameters) else { return }
        // Answers arrive in order; the first pending command of the same sub-command is this one
        // (a failed command may return no sub-command: then the oldest).
        let i = pendingAPCF.firstIndex {
            $0.controller == r.controllerIndex && (ret.subcommandCode == nil || $0.subcommand == ret.subcommandCode)
        }
        guard let i else { return }
        let p = pendingAPCF.remove(at: i)
        guard ret.status == HCIError.success else { return }
        let before = (scanFilters.enabled, scanFilters.active)
        apply(p)
        // A change of the filters in force while scanning takes effect for the running scan:
        // report the new table (conditions added to an index not yet selected change nothing).
        if scanning, before.0 != scanFilters.enabled || before.1 != scanFilters.active { emitScanFilters(r) }
    }

    private func apply(_ p: PendingAPCF) {
        switch p.edit {
        case .none:
            return
        case .enable(let on):
            scanFilters.enabled = on
            scanFilters.enableFrame = p.frame
        case .addFilter(let index, let params):
            let i = scanFilters.entry(index)
            scanFilters.entries[i].featureSelection = params.featureSelection
            scanFilters.entries[i].deliveryMode = params.deliveryMode
            scanFilters.entries[i].rssiHighThreshold = params.rssiHighThreshold
            scanFilters.entries[i].group = p.group
            scanFilters.entries[i].note(frame: p.frame)
        case .deleteFilter(let index):
            // AOSP frees the index (and reuses it later with new conditions). A delete of an
            // index the table never saw is noted: on a capture that starts mid-scan it is one
            // set up before the capture began.
            if !scanFilters.entries.contains(where: { $0.index == index }) { noteAnomaly(p.frame) }
            scanFilters.entries.removeAll { $0.index == index }
        case .clearFilters(let index):
            if let index {
                scanFilters.entries.removeAll { $0.index == index }
            } else {
                scanFilters.entries.removeAll()
            }
        case .addCondition(let index, let c):
            let i = scanFilters.entry(index)
            guard scanFilters.entries[i].conditionCount < ScanFilterEntry.maximumConditions else { return }
            switch c {
            case .serviceUUID(let u): scanFilters.entries[i].serviceUUIDs.append(u)
            case .solicitationUUID(let u): scanFilters.entries[i].solicitationUUIDs.append(u)
            case .localName(let n): scanFilters.entries[i].localNames.append(n)
            case .address(let a): scanFilters.entries[i].addresses.append(a)
            case .company(let c): scanFilters.entries[i].manufacturerCompanies.append(c)
            case .serviceData(let d): scanFilters.entries[i].serviceData.append(d)
            case .other: scanFilters.entries[i].otherConditions += 1
            }
            scanFilters.entries[i].note(frame: p.frame)
        case .deleteCondition(let index, let c):
            guard let i = scanFilters.entries.firstIndex(where: { $0.index == index }) else {
                noteAnomaly(p.frame)
                return
            }
            func drop<T: Equatable>(_ list: inout [T], _ v: T) {
                if let k = list.firstIndex(of: v) { list.remove(at: k) }
            }
            switch c {
            case .serviceUUID(let u): drop(&scanFilters.entries[i].serviceUUIDs, u)
            case .solicitationUUID(let u): drop(&scanFilters.entries[i].solicitationUUIDs, u)
            case .localName(let n): drop(&scanFilters.entries[i].localNames, n)
            case .address(let a): drop(&scanFilters.entries[i].addresses, a)
            case .company(let c): drop(&scanFilters.entries[i].manufacturerCompanies, c)
            case .serviceData(let d): drop(&scanFilters.entries[i].serviceData, d)
            case .other: scanFilters.entries[i].otherConditions = max(0, scanFilters.entries[i].otherConditions - 1)
            }
            scanFilters.entries[i].note(frame: p.frame)
        case .clearConditions(let index, let sub):
            guard let i = scanFilters.entries.firstIndex(where: { $0.index == index }) else {
                noteAnomaly(p.frame)
                return
            }
            switch HCILEAdvFilter.SubCommand(rawValue: sub) {
            case .serviceUUID?: scanFilters.entries[i].serviceUUIDs.removeAll()
            case .serviceSolicitationUUID?: scanFilters.entries[i].solicitationUUIDs.removeAll()
            case .localName?: scanFilters.entries[i].localNames.removeAll()
            case .broadcasterAddress?: scanFilters.entries[i].addresses.removeAll()
            case .manufacturerData?: scanFilters.entries[i].manufacturerCompanies.removeAll()
            case .serviceData?: scanFilters.entries[i].serviceData.removeAll()
            default: scanFilters.entries[i].otherConditions = 0
            }
            scanFilters.entries[i].note(frame: p.frame)
        }
        if scanFilters.entries.count > Self.maximumFilterEntries { scanFilters.entries.removeFirst() }
    }

    static let maximumFilterEntries = 256

    /// An APCF command the table could not apply as sent (`ScanFilterTable.anomalies`).
    func noteAnomaly(_ frame: Int) {
        scanFilters.anomalies += 1
        if scanFilters.firstAnomalyFrame == nil { scanFilters.firstAnomalyFrame = frame }
    }

    /// HCI Inquiry (Core 5.4 Vol 4 Part E 7.1.1): the classic half of device discovery. On an
    /// Android capture it names the index-0 all-pass filter as discovery; while a scan runs the
    /// table is reported again so the lint rules see it.
    func inquiry(_ r: CaptureRecord) {
        scanFilters.inquiryFrame = r.frame
        if scanning { emitScanFilters(r) }
    }

    func vendorCapabilities(_ cc: HCICommandComplete, _ r: CaptureRecord) {
        guard let v = HCILEGetVendorCapabilities(returnParameters: cc.returnParameters), v.status == HCIError.success
        else { return }
        apcfSeen = true
        scanFilters.filteringSupported = v.filteringSupported
        scanFilters.maxFilters = v.maxFilter
        scanFilters.capabilitiesFrame = r.frame
    }

    /// HCI Reset: the controller forgets its filters.
    func resetScanFilters() {
        let caps = (scanFilters.filteringSupported, scanFilters.maxFilters, scanFilters.capabilitiesFrame)
        scanFilters = ScanFilterTable()
        scanFilters.complete = true
        scanning = false
        (scanFilters.filteringSupported, scanFilters.maxFilters, scanFilters.capabilitiesFrame) = caps
        pendingAPCF.removeAll()
    }

    /// After a scan start, and after each confirmed change while a scan runs: the filters in
    /// force, when the capture shows any APCF traffic.
    func emitScanFilters(_ r: CaptureRecord) {
        guard apcfSeen else { return }
        scanFilters.scanMode = scanParameters?.androidScanMode
        add(event(r, nil, .scanFilters(scanFilterTables.keep(scanFilters))))
    }
}
