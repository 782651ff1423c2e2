import BLEBytes
import BLEPackets
import BLETimeline

/// The simulator's GATT radio events as ATT PDUs (Core 5.4 Vol 3 Part F 3.4), built by the
/// BLEPackets encoders: which request a discovery event stands for and what the simulated
/// peripheral's attribute table answers.
enum ATTSynthesis {
    /// The request opcode a discovery event stands for: Find By Type Value when it looked for
    /// one service UUID, Read By Group Type for all services, Read By Type for include and
    /// characteristic declarations, Find Information for descriptors (Vol 3 Part G 4.4–4.7).
    static func discoveryOpcode(_ d: DiscoveryInfo) -> ATTOpcode {
        switch d.target {
        case .primaryServices, .secondaryServices: d.filter != nil ? .findByTypeValueRequest : .readByGroupTypeRequest
        case .includes, .characteristics: .readByTypeRequest
        case .descriptors: .findInformationRequest
        }
    }

    static func discoveryRequest(_ d: DiscoveryInfo) -> [UInt8] {
        let (s, e) = (d.startHandle, d.endHandle)
        switch d.target {
        case .primaryServices, .secondaryServices:
            let type = d.target == .primaryServices ? GATTDeclaration.primaryService : GATTDeclaration.secondaryService
            if let f = d.filter {
                return CBUUID(f).wireBytes.withByteView {
                    ATTFindByTypeValueRequest(
                        startingHandle: s, endingHandle: e, attributeType: type, attributeValue: $0
                    )
                    .encoded()
                }
            }
            return ATTReadByGroupTypeRequest.encoded(startingHandle: s, endingHandle: e, type16: type)
        case .includes:
            return ATTReadByTypeRequest.encoded(startingHandle: s, endingHandle: e, type16: GATTDeclaration.include)
        case .characteristics:
            return ATTReadByTypeRequest.encoded(
                startingHandle: s, endingHandle: e, type16: GATTDeclaration.characteristic)
        case .descriptors: return ATTFindInformationRequest(startingHandle: s, endingHandle: e).encoded()
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
                return ATTFindByTypeValueResponse.encoded(hits.map { (handle: $0.start, groupEnd: $0.end) }, mtu: mtu)
            }
            return ATTReadByGroupTypeResponse.encoded(
                services.map { s in
                    var w = ByteWriter()
                    w.appendUInt16LE(s.start)
                    w.appendUInt16LE(s.end)
                    w.appendBytes(s.uuid.wireBytes)
                    return w.bytes
                }, mtu: mtu)
        case .includes:
            let entries = db.services.flatMap { s in
                s.includes.filter { range.contains($0.handle) }.map { inc -> (UInt16, [UInt8]) in
                    let t = db.services[inc.serviceIndex]
                    var w = ByteWriter()
                    w.appendUInt16LE(inc.handle)
                    w.appendUInt16LE(t.start)
                    w.appendUInt16LE(t.end)
                    // Include declaration: the service UUID only when it is 16-bit (Vol 3 Part G 3.2).
                    if t.uuid.uuid16 != nil { w.appendBytes(t.uuid.wireBytes) }
                    return (inc.handle, w.bytes)
                }
            }.sorted { $0.0 < $1.0 }.map(\.1)
            return ATTReadByTypeResponse.encoded(entries, mtu: mtu)
        case .characteristics:
            let entries = db.characteristics.filter { range.contains($0.declarationHandle) }
                .sorted { $0.declarationHandle < $1.declarationHandle }
                .map { c in
                    var w = ByteWriter()
                    w.appendUInt16LE(c.declarationHandle)
                    w.appendUInt8(c.properties.declarationBits)
                    w.appendUInt16LE(c.valueHandle)
                    w.appendBytes(c.uuid.wireBytes)
                    return w.bytes
                }
            return ATTReadByTypeResponse.encoded(entries, mtu: mtu)
        case .descriptors:
            let entries = db.characteristics.flatMap { c in c.descriptors.filter { range.contains($0.handle) } }
                .sorted { $0.handle < $1.handle }
            return ATTFindInformationResponse.encoded(
                entries.lazy.map { (handle: $0.handle, uuid: $0.uuid.wireBytes) },
                mtu: mtu)
        }
    }
}
