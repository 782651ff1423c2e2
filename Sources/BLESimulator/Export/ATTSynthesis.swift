import BLEBytes
import BLETimeline

/// ATT PDUs (Core 5.4 Vol 3 Part F 3.4) for the simulator's GATT radio events.
package enum ATTSynthesis {
    /// Error Response (Vol 3 Part F 3.4.1.1): the request opcode, the handle it failed on, the
    /// error code.
    package static func errorResponse(request: UInt8, handle: UInt16, code: UInt8) -> [UInt8] {
        [0x01, request] + HCISynthesis.le16(handle) + [code]
    }

    /// The request opcode a discovery event stands for: Find By Type Value when it looked for
    /// one service UUID, Read By Group Type for all services, Read By Type for include and
    /// characteristic declarations, Find Information for descriptors (Vol 3 Part G 4.4–4.7).
    static func discoveryOpcode(_ d: DiscoveryInfo) -> UInt8 {
        switch d.target {
        case .primaryServices, .secondaryServices: d.filter != nil ? 0x06 : 0x10
        case .includes, .characteristics: 0x08
        case .descriptors: 0x04
        }
    }

    static func discoveryRequest(_ d: DiscoveryInfo) -> [UInt8] {
        let range = HCISynthesis.le16(d.startHandle) + HCISynthesis.le16(d.endHandle)
        switch d.target {
        case .primaryServices, .secondaryServices:
            let type = HCISynthesis.le16(d.target == .primaryServices ? 0x2800 : 0x2801)
            if let f = d.filter { return [0x06] + range + type + CBUUID(f).wireBytes }
            return [0x10] + range + type
        case .includes: return [0x08] + range + HCISynthesis.le16(0x2802)
        case .characteristics: return [0x08] + range + HCISynthesis.le16(0x2803)
        case .descriptors: return [0x04] + range
        }
    }

    /// The server's response to a discovery request from its attribute table: the attributes
    /// in the range, in handle order, as many of the first one's size as one PDU of `mtu`
    /// holds (Vol 3 Part F 3.4.3.2, 3.4.3.4, 3.4.4.2, 3.4.4.10). Nil when nothing matches.
    static func discoveryResponse(_ d: DiscoveryInfo, database db: GATTServerDatabase, mtu: Int) -> [UInt8]? {
        let range = d.startHandle...max(d.startHandle, d.endHandle)
        switch d.target {
        case .primaryServices, .secondaryServices:
            let primary = d.target == .primaryServices
            let services = db.services.filter { $0.isPrimary == primary && range.contains($0.start) }
            if let f = d.filter {
                let hits = services.filter { $0.uuid.bluetoothUUID == f }
                guard !hits.isEmpty else { return nil }
                let fit = hits.prefix(max(1, (mtu - 1) / 4))
                return [0x07] + fit.flatMap { HCISynthesis.le16($0.start) + HCISynthesis.le16($0.end) }
            }
            return list(0x11, services.map { HCISynthesis.le16($0.start) + HCISynthesis.le16($0.end) + $0.uuid.wireBytes },
                        mtu: mtu)
        case .includes:
            let entries = db.services.flatMap { s in
                s.includes.filter { range.contains($0.handle) }.map { inc -> (UInt16, [UInt8]) in
                    let t = db.services[inc.serviceIndex]
                    let uuid = t.uuid.uuid16 != nil ? t.uuid.wireBytes : []
                    return (inc.handle, HCISynthesis.le16(inc.handle) + HCISynthesis.le16(t.start) + HCISynthesis.le16(t.end) + uuid)
                }
            }.sorted { $0.0 < $1.0 }.map(\.1)
            return list(0x09, entries, mtu: mtu)
        case .characteristics:
            let entries = db.characteristics.filter { range.contains($0.declarationHandle) }
                .sorted { $0.declarationHandle < $1.declarationHandle }
                .map { HCISynthesis.le16($0.declarationHandle) + [$0.properties.declarationBits]
                    + HCISynthesis.le16($0.valueHandle) + $0.uuid.wireBytes }
            return list(0x09, entries, mtu: mtu)
        case .descriptors:
            let entries = db.characteristics.flatMap { c in c.descriptors.filter { range.contains($0.handle) } }
                .sorted { $0.handle < $1.handle }
            guard let first = entries.first else { return nil }
            let short = first.uuid.uuid16 != nil
            let size = short ? 4 : 18
            var out: [UInt8] = [0x05, short ? 0x01 : 0x02]
            for e in entries {
                guard (e.uuid.uuid16 != nil) == short, out.count + size <= mtu else { break }
                out += HCISynthesis.le16(e.handle) + e.uuid.wireBytes
            }
            return out
        }
    }

    /// Read By Type / Read By Group Type response: a length octet, then entries of that
    /// length; the first entry of another length ends the list.
    private static func list(_ opcode: UInt8, _ entries: [[UInt8]], mtu: Int) -> [UInt8]? {
        guard let first = entries.first, first.count <= 255 else { return nil }
        var out: [UInt8] = [opcode, UInt8(first.count)]
        for e in entries {
            guard e.count == first.count, out.count + e.count <= mtu else { break }
            out += e
        }
        return out
    }
}
