import BLEBytes
import BLESimulator

/// A GATT server answering ATT requests from a `ReplayServerModel`: discovery from its
/// attribute table by the rules of Core 5.4 Vol 3 Part F 3.4.3–3.4.4 (so a different request
/// gets the answer the captured server would have given), reads and writes from the recorded
/// answers in order (the n-th read of a handle gets the n-th captured answer, later ones the
/// last), errors as captured or as injected.
struct ReplayATTServer {
    private let model: ReplayServerModel
    private let faults: ReplayFaults
    /// ATT_MTU of the bearer: 23 until an exchange (Vol 3 Part F 3.2.8). One bearer carries
    /// both directions, so an exchange either side starts sets it for both servers.
    var mtu: Int = 23
    /// The ATT_MTU an answered Exchange MTU settles on, in force once its response is
    /// delivered (a PDU crossing it on the air still uses the old one).
    private(set) var negotiatedMTU: Int?
    private var readCursor: [UInt16: Int] = [:]
    private var blobCursor: [UInt16: Int] = [:]
    private var writeCursor: [UInt16: Int] = [:]
    private var prepareCursor: [UInt16: Int] = [:]
    private var verbatimCursor: [[UInt8]: Int] = [:]
    /// The last value read or written per handle (a Read Blob beyond the recorded ones
    /// continues it).
    private var current: [UInt16: [UInt8]] = [:]

    init(model: ReplayServerModel, faults: ReplayFaults) {
        self.model = model
        self.faults = faults
    }

    /// Raises ATT_MTU to what the capture shows in force at its index `i` (an exchange the
    /// capture does not contain).
    mutating func adoptEvidence(at i: Int) {
        if let m = model.evidencedMTU(at: i), m > mtu { mtu = m }
    }

    /// The response to `request`, or nil when none is due (commands, confirmations).
    mutating func answer(_ request: [UInt8]) -> [UInt8]? {
        guard let op = request.first else { return nil }
        guard ATTRole.isRequest(op) else { return nil }
        let h = request.u16le(1) ?? 0
        if [0x0A, 0x0C, 0x12, 0x16].contains(op), let code = faults.errors[h] { return error(op, h, code) }
        switch op {
        case 0x02: return exchangeMTU(request)
        case 0x04: return findInformation(request)
        case 0x06: return findByTypeValue(request)
        case 0x08: return readByType(request)
        case 0x10: return readByGroupType(request)
        case 0x0A:
            guard model.attribute(h) != nil else { return error(op, h, 0x01) }
            switch next(model.reads[h], &readCursor[h, default: 0]) {
            case .error(let code)?: return error(op, h, code)
            case .value(let v)?:
                current[h] = v
                return [0x0B] + v.prefix(mtu - 1)
            case nil: return [0x0B] + (current[h] ?? []).prefix(mtu - 1)
            }
        case 0x0C:
            guard model.attribute(h) != nil else { return error(op, h, 0x01) }
            let offset = Int(request.u16le(3) ?? 0)
            switch next(model.blobReads[h], &blobCursor[h, default: 0]) {
            case .error(let code)?: return error(op, h, code)
            case .value(let v)?: return [0x0D] + v.prefix(mtu - 1)
            case nil:
                let v = current[h] ?? []
                guard offset <= v.count else { return error(op, h, 0x07) }
                return [0x0D] + v[offset...].prefix(mtu - 1)
            }
        case 0x12:
            guard model.attribute(h) != nil else { return error(op, h, 0x01) }
            if case .error(let code)? = next(model.writes[h], &writeCursor[h, default: 0]) { return error(op, h, code) }
            current[h] = Array(request.dropFirst(3))
            return [0x13]
        case 0x16:
            guard model.attribute(h) != nil else { return error(op, h, 0x01) }
            if case .error(let code)? = next(model.prepares[h], &prepareCursor[h, default: 0]) {
                return error(op, h, code)
            }
            // The response echoes handle, offset and part (Vol 3 Part F 3.4.6.2).
            return [0x17] + request.dropFirst()
        default:
            if let recorded = model.verbatim[request] {
                let i = verbatimCursor[request, default: 0]
                verbatimCursor[request] = i + 1
                return recorded[min(i, recorded.count - 1)]
            }
            // An Execute Write nobody refused succeeds; anything else unknown is not supported
            // (Vol 3 Part F 3.4.1.1).
            return op == 0x18 ? [0x19] : error(op, h, 0x06)
        }
    }

    private func next(_ list: [ReplayAnswer]?, _ cursor: inout Int) -> ReplayAnswer? {
        guard let list, !list.isEmpty else { return nil }
        defer { cursor += 1 }
        return list[min(cursor, list.count - 1)]
    }

    private func error(_ request: UInt8, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [0x01, request] + HCISynthesis.le16(handle) + [code]
    }

    /// Exchange MTU (3.4.2): the server's Rx MTU as captured (or injected); ATT_MTU becomes
    /// the smaller of the two, at least 23.
    private mutating func exchangeMTU(_ request: [UInt8]) -> [UInt8] {
        let client = Int(request.u16le(1) ?? 23)
        let server = faults.serverMTU ?? model.serverRxMTU ?? 23
        negotiatedMTU = Swift.max(23, Swift.min(client, Int(server)))
        return [0x03] + HCISynthesis.le16(server)
    }

    /// The range of a discovery request, or the Invalid Handle error it deserves (a zero or
    /// reversed range, 3.4.3.1).
    private func range(_ request: [UInt8]) -> (ClosedRange<UInt16>?, [UInt8]?) {
        let s = request.u16le(1) ?? 0
        let e = request.u16le(3) ?? 0
        guard s != 0, s <= e else { return (nil, error(request[0], s, 0x01)) }
        return (s...e, nil)
    }

    private func notFound(_ request: [UInt8]) -> [UInt8] {
        error(request[0], model.notFoundHandle(opcode: request[0], start: request.u16le(1) ?? 0,
                                               end: request.u16le(3) ?? 0), 0x0A)
    }

    /// Find Information (3.4.3.1–2): handle–type pairs in the range, all of the first one's
    /// format (16-bit or 128-bit), as many as fit.
    private func findInformation(_ request: [UInt8]) -> [UInt8] {
        let (r, bad) = range(request)
        guard let r else { return bad! }
        let hits = model.attributes.filter { r.contains($0.handle) }
        guard let first = hits.first else { return notFound(request) }
        let short = first.type.width == 2
        var out: [UInt8] = [0x05, short ? 0x01 : 0x02]
        var n = 0
        let limit = model.entryLimit(0x05, short ? 4 : 18)
        for a in hits {
            let t = a.type.attBytes
            guard (t.count == 2) == short, out.count + 2 + t.count <= mtu, n < limit else { break }
            out += HCISynthesis.le16(a.handle) + t
            n += 1
        }
        return out
    }

    /// Find By Type Value (3.4.3.3–4): attributes of the 16-bit type whose value equals the
    /// request's, each with the end of its group (services) or its own handle.
    private func findByTypeValue(_ request: [UInt8]) -> [UInt8] {
        let (r, bad) = range(request)
        guard let r else { return bad! }
        guard let type = request.u16le(5) else { return error(request[0], 0, 0x04) }
        let value = Array(request.dropFirst(7))
        var out: [UInt8] = [0x07]
        let limit = model.entryLimit(0x07, 4)
        for a in model.attributes where r.contains(a.handle) && a.type.width == 2 && a.type.uuid16 == type
            && a.value == value {
            guard out.count + 4 <= mtu, (out.count - 1) / 4 < limit else { break }
            out += HCISynthesis.le16(a.handle) + HCISynthesis.le16(a.groupEnd ?? a.handle)
        }
        return out.count > 1 ? out : notFound(request)
    }

    /// Read By Type (3.4.4.1–2) for include and characteristic declarations: handle–value
    /// pairs of the first one's length, each value at most ATT_MTU − 4 octets.
    private func readByType(_ request: [UInt8]) -> [UInt8] {
        let (r, bad) = range(request)
        guard let r else { return bad! }
        guard let type = request.count == 7 ? request.u16le(5).map(BluetoothUUID.init(uuid16:))
                : request.count == 21 ? request.withByteView({ $0.slice(5, 16).flatMap(BluetoothUUID.init(littleEndian:)) })
                : nil else { return error(request[0], 0, 0x04) }
        if type != ReplayAttribute.characteristic && type != ReplayAttribute.include,
           let recorded = model.verbatim[request] {
            return recorded[0]
        }
        return list(0x09, request, in: r, type: type, maximumValue: 253) { HCISynthesis.le16($0.handle) }
    }

    /// Read By Group Type (3.4.4.9–10): services of the asked group type with their group
    /// end, all of the first one's length; other group types are not grouping types (0x10).
    private func readByGroupType(_ request: [UInt8]) -> [UInt8] {
        let (r, bad) = range(request)
        guard let r else { return bad! }
        let type = request.count == 7 ? request.u16le(5).map(BluetoothUUID.init(uuid16:))
            : request.withByteView { $0.count == 21 ? $0.slice(5, 16).flatMap(BluetoothUUID.init(littleEndian:)) : nil }
        guard let type, type == ReplayAttribute.primaryService || type == ReplayAttribute.secondaryService else {
            return error(request[0], request.u16le(1) ?? 0, 0x10)
        }
        return list(0x11, request, in: r, type: type, maximumValue: 251) { HCISynthesis.le16($0.handle) + HCISynthesis.le16($0.groupEnd ?? $0.handle) }
    }

    /// A Read By Type or Read By Group Type response: a length octet, then entries of the
    /// attributes of `type` in the range, each its `header` and value, all of the first one's
    /// value length (cut to fit: ATT_MTU − 2 − header, at most `maximumValue`), as many as
    /// ATT_MTU and the server's habit allow; Attribute Not Found when there is none.
    private func list(_ opcode: UInt8, _ request: [UInt8], in r: ClosedRange<UInt16>, type: BluetoothUUID,
                      maximumValue: Int, header: (ReplayAttribute) -> [UInt8]) -> [UInt8] {
        let hits = model.attributes.filter { r.contains($0.handle) && $0.type == type }
        guard let first = hits.first else { return notFound(request) }
        let headerLength = header(first).count
        let length = Swift.min(first.value.count, mtu - 2 - headerLength, maximumValue)
        let entry = headerLength + length
        var out: [UInt8] = [opcode, UInt8(entry)]
        let limit = model.entryLimit(opcode, entry)
        for a in hits {
            guard a.value.count == first.value.count, out.count + entry <= mtu, (out.count - 2) / entry < limit else { break }
            out += header(a) + a.value.prefix(length)
        }
        return out
    }
}
