import BLEAir
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

    /// The server's response to a discovery request from its attribute table, answered by
    /// `GATTDiscovery` as the replay's and the virtual controller's server answer theirs: the
    /// attributes in the range, in handle order, as many of the first one's size as one PDU of
    /// `mtu` holds (Vol 3 Part F 3.4.3.2, 3.4.3.4, 3.4.4.2, 3.4.4.10). Nil when nothing
    /// matches (a reversed range, which descriptor discovery of a characteristic without
    /// descriptors asks, matches nothing).
    static func discoveryResponse(_ d: DiscoveryInfo, database db: GATTServerDatabase, mtu: Int) -> [UInt8]? {
        guard d.startHandle <= d.endHandle else { return nil }
        let range = d.startHandle...d.endHandle
        let table = attributeTable(db)
        switch d.target {
        case .primaryServices, .secondaryServices:
            let type = d.target == .primaryServices ? GATTDeclaration.primaryService : GATTDeclaration.secondaryService
            if let f = d.filter {
                return GATTDiscovery.findByTypeValue(table, in: range, type: type, value: CBUUID(f).wireBytes, mtu: mtu)
            }
            return GATTDiscovery.readByGroupType(table, in: range, type: BluetoothUUID(uuid16: type), mtu: mtu)
        case .includes:
            return GATTDiscovery.readByType(
                table, in: range, type: BluetoothUUID(uuid16: GATTDeclaration.include), mtu: mtu)
        case .characteristics:
            return GATTDiscovery.readByType(
                table, in: range, type: BluetoothUUID(uuid16: GATTDeclaration.characteristic), mtu: mtu)
        case .descriptors:
            return GATTDiscovery.findInformation(table, in: range, mtu: mtu)
        }
    }

    /// The database's attribute table (Vol 3 Part G 3): service, include and characteristic
    /// declarations with their values, characteristic values and descriptors, in handle order.
    static func attributeTable(_ db: GATTServerDatabase) -> [GATTAttribute] {
        // A UUID with a 16-bit form is carried in it, however the definition wrote it.
        func type(_ u: CBUUID) -> BluetoothUUID { u.uuid16.map { BluetoothUUID(uuid16: $0) } ?? u.bluetoothUUID }
        var table: [GATTAttribute] = []
        for s in db.services {
            table.append(
                GATTAttribute(
                    handle: s.start,
                    type: BluetoothUUID(
                        uuid16: s.isPrimary ? GATTDeclaration.primaryService : GATTDeclaration.secondaryService),
                    value: s.uuid.wireBytes, groupEnd: s.end))
            for inc in s.includes {
                let t = db.services[inc.serviceIndex]
                var w = ByteWriter()
                w.appendUInt16LE(t.start)
                w.appendUInt16LE(t.end)
                // Include declaration: the service UUID only when it is 16-bit (Vol 3 Part G 3.2).
                if t.uuid.uuid16 != nil { w.appendBytes(t.uuid.wireBytes) }
                table.append(
                    GATTAttribute(
                        handle: inc.handle, type: BluetoothUUID(uuid16: GATTDeclaration.include), value: w.bytes))
            }
        }
        for c in db.characteristics {
            var w = ByteWriter()
            w.appendUInt8(c.properties.declarationBits)
            w.appendUInt16LE(c.valueHandle)
            w.appendBytes(c.uuid.wireBytes)
            table.append(
                GATTAttribute(
                    handle: c.declarationHandle, type: BluetoothUUID(uuid16: GATTDeclaration.characteristic),
                    value: w.bytes))
            table.append(GATTAttribute(handle: c.valueHandle, type: type(c.uuid)))
            for d in c.descriptors { table.append(GATTAttribute(handle: d.handle, type: type(d.uuid))) }
        }
        table.sort { $0.handle < $1.handle }
        return table
    }
}
