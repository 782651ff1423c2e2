import BLEBytes
import BLEPackets
import CaptureIO

/// What the host's HCI commands set of its own advertising (Core 5.4 Vol 4 Part E 7.8.4–7.8.9,
/// 7.8.52–7.8.60), per controller: legacy advertising and each extended set. Applied as the
/// host sends them, as scan parameters are: a refused command is rare and its event says so.
struct AdvertisingState {
    /// Since an HCI Reset: data nobody set is the controller's default, empty (7.8.7).
    var afterReset = false
    /// LE Set Random Address: the host's random address (legacy advertising uses it).
    var randomAddress: BDAddr?
    var legacy: AdvertisingSetup
    var sets: [UInt8: AdvertisingSetup] = [:]
    /// Extended data being assembled from fragments (Operation 1, 0 … 2), per set and kind
    /// (false: advertising data, true: scan response).
    var fragments: [Key: [UInt8]] = [:]

    struct Key: Hashable {
        var handle: UInt8
        var scanResponse: Bool
    }

    /// More sets than a controller has (Num_Supported_Advertising_Sets is a byte) are not kept.
    static let maximumSets = 64
    /// Extended data longer than this (LE Read Maximum Advertising Data Length's greatest
    /// answer, 1650 octets, 7.8.57) is not assembled further.
    static let maximumData = 1650

    init(afterReset: Bool) {
        self.afterReset = afterReset
        legacy = Self.fresh(extended: false, handle: nil, afterReset: afterReset)
    }

    static func fresh(extended: Bool, handle: UInt8?, afterReset: Bool) -> AdvertisingSetup {
        var s = AdvertisingSetup(extended: extended, handle: handle)
        (s.dataKnown, s.scanResponseKnown) = (afterReset, afterReset)
        return s
    }

    mutating func set(_ handle: UInt8) -> AdvertisingSetup {
        sets[handle] ?? Self.fresh(extended: true, handle: handle, afterReset: afterReset)
    }

    mutating func update(_ handle: UInt8, _ change: (inout AdvertisingSetup) -> Void) {
        var s = set(handle)
        change(&s)
        guard sets[handle] != nil || sets.count < Self.maximumSets else { return }
        sets[handle] = s
    }

    /// Extended advertising or scan response data (7.8.54, 7.8.55): a whole, or fragments
    /// assembled until the last; Operation 4 (unchanged data) changes nothing.
    mutating func extendedData(_ d: HCILESetExtendedAdvertisingData, scanResponse: Bool) {
        let key = Key(handle: d.advertisingHandle, scanResponse: scanResponse)
        var whole: [UInt8]?
        switch d.operation {
        case HCILESetExtendedAdvertisingData.completeData:
            fragments[key] = nil
            whole = d.data
        case HCILESetExtendedAdvertisingData.firstFragment:
            fragments[key] = d.data
        case HCILESetExtendedAdvertisingData.intermediateFragment:
            guard let f = fragments[key], f.count + d.data.count <= Self.maximumData else {
                fragments[key] = nil
                return
            }
            fragments[key] = f + d.data
        case HCILESetExtendedAdvertisingData.lastFragment:
            guard let f = fragments[key] else { return }
            fragments[key] = nil
            whole = f + d.data
        default:
            return
        }
        guard let whole else { return }
        update(d.advertisingHandle) { s in
            if scanResponse {
                (s.scanResponse, s.scanResponseKnown) = (whole, true)
            } else {
                (s.data, s.dataKnown) = (whole, true)
            }
        }
    }
}

extension TimelineBuilder {
    /// The host's advertising commands: the parameters, addresses and data are noted; an
    /// enable emits `advertising.start` (one per extended set) with what is in force, a
    /// disable `advertising.stop`, each answered by the command's Command Complete.
    func advertisingCommand(_ c: HCICommandPacket, _ r: CaptureRecord) {
        let p = c.parameters
        var a = advertising[r.controllerIndex] ?? AdvertisingState(afterReset: false)
        defer { advertising[r.controllerIndex] = a }
        switch c.opcode {
        case HCIOpcode.leSetRandomAddress:
            guard let s = HCILESetRandomAddress(parameters: p) else { return }
            a.randomAddress = s.address
        case HCILESetAdvertisingParameters.opcode:
            let s = HCILESetAdvertisingParameters(parameters: p)
            guard let type = s.advertisingType, let own = s.ownAddressType else { return }
            a.legacy.parametersKnown = true
            a.legacy.advertisingType = type
            (a.legacy.intervalMin, a.legacy.intervalMax) = (
                s.intervalMin.map(UInt32.init), s.intervalMax.map(UInt32.init)
            )
            a.legacy.ownAddressType = own
        case HCIOpcode.leSetAdvertisingData, HCIOpcode.leSetScanResponseData:
            guard let d = HCILESetAdvertisingData(opcode: c.opcode, parameters: p) else { return }
            if c.opcode == HCIOpcode.leSetAdvertisingData {
                (a.legacy.data, a.legacy.dataKnown) = (d.data, true)
            } else {
                (a.legacy.scanResponse, a.legacy.scanResponseKnown) = (d.data, true)
            }
        case HCILESetAdvertisingEnable.opcode:
            guard let e = HCILESetAdvertisingEnable(parameters: p) else { return }
            if e.enable != 0 {
                var s = a.legacy
                if s.ownAddressType == 1 || s.ownAddressType == 3 { s.randomAddress = a.randomAddress }
                advertisingStart(s, c.opcode, r)
            } else {
                advertisingStop(extended: false, handle: nil, c.opcode, r)
            }
        case HCILESetExtendedAdvertisingParameters.opcode:
            let s = HCILESetExtendedAdvertisingParameters(parameters: p)
            guard let h = s.advertisingHandle, let properties = s.eventProperties, let own = s.ownAddressType else {
                return
            }
            a.update(h) { set in
                set.parametersKnown = true
                set.eventProperties = properties
                (set.intervalMin, set.intervalMax, set.ownAddressType) = (s.intervalMin, s.intervalMax, own)
                (set.primaryPHY, set.secondaryPHY) = (s.primaryPHY, s.secondaryPHY)
            }
        case HCILESetAdvertisingSetRandomAddress.opcode:
            let s = HCILESetAdvertisingSetRandomAddress(parameters: p)
            guard let h = s.advertisingHandle, let address = s.randomAddress else { return }
            a.update(h) { $0.randomAddress = address }
        case HCIOpcode.leSetExtendedAdvertisingData, HCIOpcode.leSetExtendedScanResponseData:
            guard let d = HCILESetExtendedAdvertisingData(opcode: c.opcode, parameters: p) else { return }
            a.extendedData(d, scanResponse: c.opcode == HCIOpcode.leSetExtendedScanResponseData)
        case HCILESetExtendedAdvertisingEnable.opcode:
            guard let e = HCILESetExtendedAdvertisingEnable(parameters: p) else { return }
            if e.enable == 0, e.sets.isEmpty {
                advertisingStop(extended: true, handle: nil, c.opcode, r)
            }
            for set in e.sets {
                if e.enable == 0 {
                    advertisingStop(extended: true, handle: set.advertisingHandle, c.opcode, r)
                    continue
                }
                var s = a.set(set.advertisingHandle)
                // A set's random address is its own (7.8.52), not LE Set Random Address's.
                if s.ownAddressType != 1 && s.ownAddressType != 3 { s.randomAddress = nil }
                (s.duration, s.maxEvents) = (set.duration, set.maxExtendedAdvertisingEvents)
                advertisingStart(s, c.opcode, r)
            }
        case HCIOpcode.leRemoveAdvertisingSet:
            guard let remove = HCILERemoveAdvertisingSet(parameters: p) else { return }
            a.sets[remove.advertisingHandle] = nil
        case HCIOpcode.leClearAdvertisingSets:
            a.sets.removeAll()
        default:
            break
        }
    }

    private func advertisingStart(_ s: AdvertisingSetup, _ opcode: UInt16, _ r: CaptureRecord) {
        var e = event(r, nil, .advertisingStart(scanFilterTables.keep(s)))
        e.value = s.data.withUnsafeBytes { InlineBytes(ByteView($0)) }
        e.valueTruncated = false
        track(opcode, r, add(e, pendingUntil: r.timestamp &+ Self.hciCommandTimeout))
    }

    private func advertisingStop(extended: Bool, handle: UInt8?, _ opcode: UInt16, _ r: CaptureRecord) {
        track(
            opcode, r,
            add(
                event(r, nil, .advertisingStop(extended: extended, handle: handle)),
                pendingUntil: r.timestamp &+ Self.hciCommandTimeout))
    }
}
