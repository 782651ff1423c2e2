import BLEBytes
import BLEPackets
import BLEPass
import BLETimeline

/// `gatt`'s consumer of the capture pass: every connection's summary as it ends.
package final class ConnectionSummaries: CaptureConsumer {
    package var summaries: [ConnectionSummary] = []
    package init() {}
    package var observes: CaptureObservations { .connections }
    package func connectionEnded(_ summary: ConnectionSummary) { summaries.append(summary) }
}

/// Renders connection summaries as an indented tree or one JSON document.
package struct GATTTreeWriter {
    package let out: OutputBuffer
    package let json: Bool
    /// Text only: each connection's line and each server's heading bold.
    package var paint = Paint(on: false)

    package init(out: OutputBuffer, json: Bool) {
        self.out = out
        self.json = json
    }

    package func write(_ summaries: [ConnectionSummary]) {
        if json {
            out.ascii("{\"connections\":[")
            for (i, s) in summaries.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                jsonConnection(s)
            }
            out.ascii("]}")
            out.newline()
            return
        }
        if summaries.isEmpty {
            out.ascii("no connections")
            out.newline()
        }
        for s in summaries { textConnection(s) }
    }

    // MARK: text

    private func textConnection(_ s: ConnectionSummary) {
        if paint.on { out.ascii(Palette.header) }
        out.ascii("Connection #")
        out.decimal(s.number)
        if let p = s.peer {
            out.ascii("  peer ")
            out.address(p)
        }
        if let id = s.identity {
            out.ascii("  identity ")
            out.address(id)
        }
        out.ascii("  handle ")
        out.hex(UInt64(s.handle), digits: 4)
        if let r = s.role { out.ascii(r == 0 ? "  central" : "  peripheral") }
        out.ascii("  frames ")
        out.decimal(s.startFrame)
        out.ascii("–")
        if let e = s.endFrame { out.decimal(e) } else { out.ascii("end") }
        out.ascii("  ATT_MTU ")
        out.string(s.facts.mtuText)
        if s.unknownStart { out.ascii("  (started before the capture)") }
        if paint.on { out.ascii(ANSI.reset) }
        out.newline()
        textDatabase("peer's GATT server", s.remoteDatabase, s.remoteCarriedOverFrom, s.number)
        textDatabase("this host's GATT server", s.localDatabase, s.localCarriedOverFrom, s.number)
    }

    private func textDatabase(_ title: StaticString, _ db: GATTDatabase, _ from: Int?, _ number: Int) {
        guard !db.isEmpty else { return }
        out.ascii("  ")
        if paint.on { out.ascii(Palette.header) }
        out.ascii(title)
        if let from, from != number {
            out.ascii(" (carried over from connection #")
            out.decimal(from)
            out.ascii(")")
        }
        if paint.on { out.ascii(ANSI.reset) }
        out.newline()
        for svc in db.services {
            out.ascii("    ")
            out.ascii(svc.isPrimary ? "Primary Service " : "Secondary Service ")
            out.hex(UInt64(svc.startHandle), digits: 4)
            out.ascii("–")
            out.hex(UInt64(svc.endHandle), digits: 4)
            out.ascii("  ")
            uuidText(svc.uuid, .service)
            carried(svc.learnedIn, number)
            out.newline()
            for inc in db.includes where inc.handle >= svc.startHandle && inc.handle <= svc.endHandle {
                out.ascii("      Include ")
                out.hex(UInt64(inc.handle), digits: 4)
                out.ascii(" → ")
                out.hex(UInt64(inc.includedStart), digits: 4)
                out.ascii("–")
                out.hex(UInt64(inc.includedEnd), digits: 4)
                if let u = inc.uuid {
                    out.ascii("  ")
                    uuidText(u, .service)
                }
                out.newline()
            }
            for c in db.characteristics
            where c.declarationHandle >= svc.startHandle && c.declarationHandle <= svc.endHandle {
                textCharacteristic(c, db, number, indent: 6)
            }
        }
        let orphans = db.characteristics.filter { db.service(containing: $0.declarationHandle) == nil }
        if !orphans.isEmpty {
            out.ascii("    (characteristics outside any discovered service)")
            out.newline()
            for c in orphans { textCharacteristic(c, db, number, indent: 6) }
        }
    }

    private func textCharacteristic(_ c: GATTCharacteristic, _ db: GATTDatabase, _ number: Int, indent: Int) {
        out.spaces(indent)
        out.ascii("Characteristic ")
        out.hex(UInt64(c.declarationHandle), digits: 4)
        out.ascii(" value ")
        out.hex(UInt64(c.valueHandle), digits: 4)
        out.ascii("  ")
        uuidText(c.uuid, .characteristic)
        out.ascii("  ")
        out.hex(UInt64(c.properties), digits: 2)
        out.ascii(" ")
        var firstName = true
        for (bit, name) in GATTCharacteristicProperties.names where c.properties & bit != 0 {
            out.ascii(firstName ? "[" : "|")
            out.ascii(name)
            firstName = false
        }
        if !firstName { out.ascii("]") }
        carried(c.learnedIn, number)
        out.newline()
        for d in db.descriptors(of: c) {
            out.spaces(indent + 2)
            out.ascii("Descriptor ")
            out.hex(UInt64(d.handle), digits: 4)
            out.ascii("  ")
            uuidText(d.uuid, .descriptor)
            carried(d.learnedIn, number)
            out.newline()
        }
    }

    private func carried(_ learnedIn: Int, _ number: Int) {
        if learnedIn != number { out.ascii("  (carried over)") }
    }

    /// "Heart Rate (180D)"; a member UUID on a characteristic or descriptor as "FFF3 (member
    /// UUID of FiRa Consortium)": the company registered it for a service, it does not name this
    /// attribute.
    private func uuidText(_ u: BluetoothUUID, _ kind: GATTAssignedNumbers.AttributeKind) {
        if let n = GATTAssignedNumbers.name(for: u, as: kind) {
            out.ascii(n)
            out.ascii(" (")
            out.string(u.description)
            out.ascii(")")
        } else if let note = GATTAssignedNumbers.memberNote(for: u, as: kind) {
            out.string(u.description)
            out.ascii(" (")
            out.string(note)
            out.ascii(")")
        } else {
            out.string(u.description)
        }
    }

    // MARK: JSON

    private func jsonConnection(_ s: ConnectionSummary) {
        out.ascii("{\"connection\":")
        out.decimal(s.number)
        out.jsonOptional("peer", address: s.peer)
        out.jsonOptional("peer_address_type", s.peerAddressType.map(Int.init))
        out.jsonOptional("identity_address", address: s.identity)
        out.ascii(",\"handle\":")
        out.decimal(Int(s.handle))
        if let r = s.role {
            out.ascii(",\"role\":")
            out.jsonString(r == 0 ? "central" : "peripheral")
        }
        out.ascii(",\"start_frame\":")
        out.decimal(s.startFrame)
        if let e = s.endFrame {
            out.ascii(",\"end_frame\":")
            out.decimal(e)
        }
        out.ascii(",\"unknown_start\":")
        out.ascii(s.unknownStart ? "true" : "false")
        let facts = s.facts
        // ATT_MTU only when it is a fact; `facts` says what it is at least (issue 28).
        if let mtu = facts.mtu {
            out.ascii(",\"mtu\":")
            out.decimal(mtu)
        }
        out.jsonFacts(facts)
        out.ascii(",\"remote_database\":")
        jsonDatabase(s.remoteDatabase, s.remoteCarriedOverFrom, s.number)
        out.ascii(",\"local_database\":")
        jsonDatabase(s.localDatabase, s.localCarriedOverFrom, s.number)
        out.ascii("}")
    }

    private func jsonDatabase(_ db: GATTDatabase, _ from: Int?, _ number: Int) {
        out.ascii("{")
        if let from, from != number {
            out.ascii("\"carried_over_from\":")
            out.decimal(from)
            out.ascii(",")
        }
        out.ascii("\"services\":[")
        for (i, svc) in db.services.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.ascii("{\"start_handle\":")
            out.decimal(Int(svc.startHandle))
            out.ascii(",\"end_handle\":")
            out.decimal(Int(svc.endHandle))
            jsonUUID(svc.uuid, .service)
            out.ascii(",\"primary\":")
            out.ascii(svc.isPrimary ? "true" : "false")
            out.ascii(",\"carried_over\":")
            out.ascii(svc.learnedIn != number ? "true" : "false")
            out.ascii("}")
        }
        out.ascii("],\"includes\":[")
        for (i, inc) in db.includes.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.ascii("{\"handle\":")
            out.decimal(Int(inc.handle))
            out.ascii(",\"included_start_handle\":")
            out.decimal(Int(inc.includedStart))
            out.ascii(",\"included_end_handle\":")
            out.decimal(Int(inc.includedEnd))
            if let u = inc.uuid { jsonUUID(u, .service) }
            out.ascii("}")
        }
        out.ascii("],\"characteristics\":[")
        for (i, c) in db.characteristics.enumerated() {
            if i > 0 { out.byte(UInt8(ascii: ",")) }
            out.ascii("{\"declaration_handle\":")
            out.decimal(Int(c.declarationHandle))
            out.ascii(",\"value_handle\":")
            out.decimal(Int(c.valueHandle))
            jsonUUID(c.uuid, .characteristic)
            out.ascii(",\"properties\":")
            out.decimal(Int(c.properties))
            out.ascii(",\"property_names\":[")
            var first = true
            for (bit, name) in GATTCharacteristicProperties.names where c.properties & bit != 0 {
                if !first { out.byte(UInt8(ascii: ",")) }
                out.jsonString(name)
                first = false
            }
            out.ascii("]")
            if let s = db.service(containing: c.declarationHandle) {
                out.ascii(",\"service_start_handle\":")
                out.decimal(Int(s.startHandle))
            }
            out.ascii(",\"carried_over\":")
            out.ascii(c.learnedIn != number ? "true" : "false")
            out.ascii(",\"descriptors\":[")
            for (j, d) in db.descriptors(of: c).enumerated() {
                if j > 0 { out.byte(UInt8(ascii: ",")) }
                out.ascii("{\"handle\":")
                out.decimal(Int(d.handle))
                jsonUUID(d.uuid, .descriptor)
                out.ascii(",\"carried_over\":")
                out.ascii(d.learnedIn != number ? "true" : "false")
                out.ascii("}")
            }
            out.ascii("]}")
        }
        out.ascii("]}")
    }

    private func jsonUUID(_ u: BluetoothUUID, _ kind: GATTAssignedNumbers.AttributeKind) {
        out.ascii(",\"uuid\":")
        out.jsonString(u.description)
        if let n = GATTAssignedNumbers.name(for: u, as: kind) {
            out.ascii(",\"name\":")
            out.jsonString(n)
        }
    }
}
