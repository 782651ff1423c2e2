import BLEBytes
import BLEPackets
import CaptureIO

/// Formats decoded frames for `blecap packets`: one summary line per frame (text), one JSON
/// object per frame (jsonl, the contract in docs/jsonl.md), or a JSON array with full decodes.
package final class PacketWriter {
    package let out: OutputBuffer
    package let format: OutputFormat
    let verbose: Bool
    package let color: Bool
    let absoluteTime: Bool
    /// Linux-monitor captures name the controller of each record.
    let showsController: Bool
    /// Link Layer captures, text: show empty PDUs (hidden by default, they only acknowledge).
    package var showsEmptyPDUs: Bool {
        get { showsEmptyPDUsStorage }
        set { showsEmptyPDUsStorage = newValue }
    }
    /// Private storage, read per frame: see `TimelineWriter.base`.
    private var showsEmptyPDUsStorage = false
    /// The capture's first record's time: relative times count from it, also when a filter
    /// leaves that record out (`note(firstRecord:)`).
    private(set) var firstTimestamp: Int64? = nil

    package func note(firstRecord r: CaptureRecord) { if firstTimestamp == nil { firstTimestamp = r.timestamp } }
    private var wroteArrayElement = false
    /// Who is at the other end of each open connection handle: the packets pass runs no
    /// timeline, so it keeps this small table (`PacketOutput` feeds it every frame).
    package let peers = ConnectionPeers()
    /// `,"peer":"…","peer_type":"…"` of the last peer written, and that peer: the frames of a
    /// connection name the same peer one after another, and formatting its address and the two
    /// keys again for each was most of what the peer members cost (docs/performance.md).
    private let peerJSON = UnsafeMutablePointer<UInt8>.allocate(capacity: PacketWriter.peerJSONLength)
    private var peerJSONFor: ConnectionPeers.Peer?
    private static let peerJSONLength = 48
    private lazy var textSink = TextFieldSink(out: out, depth: 4)
    private lazy var jsonSink = JSONFieldSink(out: out)

    package init(
        out: OutputBuffer, format: OutputFormat, verbose: Bool, color: Bool, absoluteTime: Bool,
        showsController: Bool
    ) {
        self.showsController = showsController
        self.out = out
        self.format = format
        self.verbose = verbose
        self.color = color
        self.absoluteTime = absoluteTime
    }

    deinit { peerJSON.deallocate() }

    /// Writes the peer members of a frame's connection (see `peerJSON`).
    private func peerMember(_ p: ConnectionPeers.Peer) {
        if peerJSONFor != p {
            let start: StaticString = ",\"peer\":\""
            let type: StaticString = p.isRandom ? "\",\"peer_type\":\"random\"" : "\",\"peer_type\":\"public\""
            var q = peerJSON + OutputBuffer.copy(start, to: peerJSON)
            OutputBuffer.address(p.address, to: q)
            q += 17
            q += OutputBuffer.copy(type, to: q)
            precondition(q - peerJSON == Self.peerJSONLength)
            peerJSONFor = p
        }
        out.append(UnsafeRawBufferPointer(start: peerJSON, count: Self.peerJSONLength))
    }

    package func begin() {
        if format == .json { out.ascii("[\n") }
    }

    package func end() {
        if format == .json { out.ascii(wroteArrayElement ? "\n]\n" : "]\n") }
        out.flush()
    }

    package func write(_ frame: DecodedFrame) {
        // Empty PDUs only acknowledge: hidden from the text listing unless asked for; json and
        // jsonl keep one object per frame (their contract).
        if format == .text, !showsEmptyPDUs, let ll = frame.linkLayer, ll.data?.isEmpty == true, ll.crc != .invalid {
            return
        }
        switch format {
        case .text: writeText(frame)
        case .jsonl:
            writeJSONObject(frame, withFields: false)
            out.newline()
        case .json:
            if wroteArrayElement { out.ascii(",\n") }
            wroteArrayElement = true
            writeJSONObject(frame, withFields: true)
        }
        out.maybeFlush()
    }

    // MARK: text

    package func paint(_ code: StaticString) {
        if color { out.ascii(code) }
    }

    /// Columns as in `blecap timeline`: frame right-aligned in 7, time right-aligned in 12.
    private func writeText(_ frame: DecodedFrame) {
        let r = frame.record
        out.spaces(7 - digits(r.frame))
        out.decimal(UInt64(r.frame))
        out.byte(0x20)
        if absoluteTime {
            out.byte(0x20)
            out.rfc3339(microseconds: r.timestamp)
        } else {
            let t0 = firstTimestamp ?? r.timestamp
            firstTimestamp = t0
            let rel = r.timestamp &- t0
            out.spaces(12 - secondsWidth(rel))
            out.seconds(microseconds: rel)
        }
        out.ascii("  ")
        if r.kind == .linkLayer {
            linkLayerColumns(r, senderPerMIC: frame.linkLayer?.senderPerMIC)
        } else {
            switch r.direction {
            case .sent: out.ascii("sent ")
            case .received: out.ascii("rcvd ")
            case .unknown: out.ascii("     ")
            }
        }
        summary(frame)
        out.newline()
        if verbose { details(frame, sink: textSink) }
    }

    /// Characters `out.seconds(microseconds:)` writes for `t`.
    func secondsWidth(_ t: Int64) -> Int {
        (t < 0 ? 1 : 0) + digits(Int(clamping: t.magnitude / 1_000_000)) + 7
    }

    func digits(_ v: Int) -> Int {
        var n = 1
        var x = v / 10
        while x > 0 {
            n += 1
            x /= 10
        }
        return n
    }

    /// Protocol tag and a one-line description, like tshark's Protocol and Info columns.
    private func summary(_ frame: DecodedFrame) {
        let r = frame.record
        switch frame.layer {
        case .command(let c):
            paint(Palette.hciCommand)
            out.ascii("HCI_CMD ")
            paint(ANSI.reset)
            named(HCICommands.name(for: c.opcode), c.opcode, digits: 4)
            commandSummary(c)
            if c.lengthMismatch { out.ascii(" [length mismatch]") }
        case .event(let e):
            paint(Palette.hciEvent)
            out.ascii("HCI_EVT ")
            paint(ANSI.reset)
            eventSummary(e)
        case .acl(let acl):
            aclSummary(frame, acl)
        case .malformed(let note):
            paint(Palette.error)
            out.ascii("MALFORMED ")
            paint(ANSI.reset)
            out.ascii(note)
        case .other:
            out.ascii(tag(r.kind))
            out.byte(0x20)
            otherSummary(frame)
        case .linkLayer(let ll):
            linkLayerSummary(frame, ll)
        }
    }

    /// Container metadata: monitor index/control records, notes, PacketLogger text.
    private func otherSummary(_ frame: DecodedFrame) {
        let r = frame.record
        if let c = frame.managementCommand {
            out.ascii(c.name)
            if c.opcode == BlueZManagementOpcode.startDiscovery
                || c.opcode == BlueZManagementOpcode.startServiceDiscovery,
                let d = BlueZDiscoveryAddressTypes(c.parameters)
            {
                FieldFormatting.flagNames(UInt64(d.addressTypes), BlueZManagementNames.addressTypeBits, to: out)
            }
            return
        }
        if let e = frame.managementEvent {
            out.ascii(e.name)
            if let (op, status) = e.answered {
                out.ascii(" (")
                out.ascii(BlueZManagementNames.command(op) ?? "Unknown")
                out.byte(UInt8(ascii: ")"))
                if status != 0 {
                    paint(Palette.error)
                    out.ascii(" status ")
                    out.ascii(BlueZManagementNames.status(status) ?? "Unknown")
                    paint(ANSI.reset)
                }
            }
            return
        }
        switch r.kind {
        case .indexNew:
            out.ascii("New Index")
            if let i = MonitorNewIndex(r.payload) {
                out.ascii(" hci")
                out.decimal(UInt64(r.controllerIndex))
                out.byte(0x20)
                out.address(i.address)
                out.byte(0x20)
                out.sanitizedText(i.name)
            }
        case .controlOpen:
            out.ascii("Control Open")
            if let o = MonitorControlOpen(r.payload) {
                out.byte(0x20)
                out.sanitizedText(o.ident)
            }
        case .userLogging:
            if let u = MonitorUserLogging(r.payload) {
                out.sanitizedText(u.ident)
                out.ascii(": ")
                out.sanitizedText(u.message)
            }
        case .systemNote:
            out.sanitizedText(MonitorSystemNote(r.payload).text)
        default:
            if isText(r.kind) {
                out.sanitizedText(textPayload(r))
            } else if let h = frame.connectionHandle {
                out.ascii("handle ")
                out.hex(UInt64(h), digits: 4)
                out.ascii(" len ")
                out.decimal(r.payload.count)
            } else {
                out.ascii(r.kind.name)
                out.ascii(" (")
                out.decimal(r.payload.count)
                out.ascii(" bytes)")
            }
        }
    }

    private func commandSummary(_ c: HCICommandPacket) {
        switch c.opcode {
        case HCIOpcode.disconnect:
            if let d = HCIDisconnect(parameters: c.parameters) {
                out.ascii(" handle ")
                out.hex(UInt64(d.handle), digits: 4)
                out.ascii(" reason ")
                out.hex(UInt64(d.reason), digits: 2)
            }
        case HCIOpcode.leCreateConnection:
            if let peer = BDAddr(littleEndian: c.parameters, at: HCILECreateConnection.peerAddressOffset) {
                out.ascii(" to ")
                out.address(peer)
            }
        case HCIOpcode.leSetScanEnable, HCIOpcode.leSetExtendedScanEnable:  // Enable is the first parameter
            if let enable = HCILESetScanEnable.enableValue(of: c.parameters) { out.ascii(enable == 0 ? " off" : " on") }
        case HCILEAdvFilter.opcode:  // Android APCF: sub-command, action, filter index
            guard let f = HCILEAdvFilter(parameters: c.parameters) else { break }
            out.ascii(": ")
            if let n = HCICommands.subcommandName(for: c.opcode, parameters: c.parameters) {
                out.ascii(n)
            } else {
                out.ascii("sub-command ")
                out.hex(UInt64(f.subcommandCode), digits: 2)
            }
            if let on = f.enable { out.ascii(on ? " on" : " off") }
            if let a = f.actionCode {
                if let action = HCILEAdvFilter.Action(rawValue: a) {
                    out.byte(UInt8(ascii: " "))
                    out.ascii(action.verb)
                } else {
                    out.ascii(" action ")
                    out.hex(UInt64(a), digits: 2)
                }
            }
            if let i = f.filterIndex {
                out.ascii(" index ")
                out.decimal(Int(i))
            }
        default: break
        }
    }

    /// A name from a protocol table, followed by the code in hex when the table does not know
    /// it ("Unknown 0x207f", as tshark writes an unknown opcode).
    func named<Code: BinaryInteger>(_ name: StaticString, _ code: Code, digits: Int) {
        out.ascii(name)
        let unknown = name.withUTF8Buffer {
            $0.elementsEqual("Unknown".utf8) || $0.elementsEqual("LL_UNKNOWN_OPCODE".utf8)
        }
        if unknown {
            out.byte(0x20)
            out.hex(UInt64(code), digits: digits)
        }
    }

    private func tag(_ kind: RecordKind) -> StaticString {
        switch kind {
        case .scoData: "HCI_SCO"
        case .isoData: "HCI_ISO"
        case .systemNote, .userLogging, .note, .syslog, .kernel, .kernelDebug, .error, .config: "NOTE   "
        case .power: "POWER  "
        case .controlOpen, .controlClose, .controlCommand, .controlEvent: "MGMT   "
        case .indexNew, .indexDelete, .indexOpen, .indexClose, .indexInfo, .newController: "INDEX  "
        default: "OTHER  "
        }
    }

    private func isText(_ kind: RecordKind) -> Bool {
        switch kind {
        case .systemNote, .note, .syslog, .kernel, .kernelDebug, .error, .config, .power: true
        case .userLogging: false
        default: false
        }
    }

    private func eventSummary(_ e: HCIEventPacket) {
        if let sub = e.subeventCode {
            named(HCIEvents.leSubeventName(for: sub), sub, digits: 2)
            leMetaSummary(sub, e.subeventParameters)
            return
        }
        named(HCIEvents.name(for: e.code), e.code, digits: 2)
        let p = e.parameters
        switch e.code {
        case HCICommandComplete.code:
            if let cc = HCICommandComplete(parameters: p) {
                out.ascii(" (")
                named(HCICommands.name(for: cc.opcode), cc.opcode, digits: 4)
                // Return parameters start after Num_HCI_Command_Packets and the opcode (7.7.14).
                if let n = HCICommands.subcommandName(for: cc.opcode, returnParameters: p.suffix(from: 3) ?? .empty) {
                    out.ascii(": ")
                    out.ascii(n)
                }
                out.byte(UInt8(ascii: ")"))
                if let status = cc.status { statusText(status) }
            }
        case HCICommandStatus.code:
            if let cs = HCICommandStatus(parameters: p) {
                out.ascii(" (")
                named(HCICommands.name(for: cs.opcode), cs.opcode, digits: 4)
                out.byte(UInt8(ascii: ")"))
                statusText(cs.status)
            }
        case HCIDisconnectionComplete.code:
            if let d = HCIDisconnectionComplete(parameters: p) {
                out.ascii(" handle ")
                out.hex(UInt64(d.handle), digits: 4)
                out.ascii(" reason ")
                out.hex(UInt64(d.reason), digits: 2)
                if let n = HCIError.name(d.reason) {
                    out.byte(0x20)
                    out.ascii(n)
                }
            }
        default: break
        }
    }

    /// Who, where and how for the LE events an auditor scans for: connections and reports.
    private func leMetaSummary(_ sub: UInt8, _ p: ByteView) {
        switch sub {
        case HCILEConnectionComplete.subevent:
            if let c = HCILEConnectionComplete(parameters: p) {
                connectionSummary(c.status, c.handle, c.role, c.peerAddress, c.peerAddressType, c.interval)
            }
        case HCILEEnhancedConnectionComplete.subeventV1, HCILEEnhancedConnectionComplete.subeventV2:
            if let c = HCILEEnhancedConnectionComplete(
                parameters: p,
                version: sub == HCILEEnhancedConnectionComplete.subeventV2 ? 2 : 1)
            {
                connectionSummary(c.status, c.handle, c.role, c.peerAddress, c.peerAddressType, c.interval)
            }
        case HCILEAdvertisingReport.subevent:
            if let r = HCILEAdvertisingReport(parameters: p) {
                for report in r.reports { reportSummary(report.address, report.rssi, report.data) }
            }
        case HCILEExtendedAdvertisingReport.subevent:
            if let r = HCILEExtendedAdvertisingReport(parameters: p) {
                for report in r.reports { reportSummary(report.address, report.rssi, report.data) }
            }
        default: break
        }
    }

    private func connectionSummary(
        _ status: UInt8, _ handle: UInt16, _ role: UInt8, _ peer: BDAddr, _ peerType: UInt8, _ interval: UInt16
    ) {
        if status != 0 {
            statusText(status)
            out.ascii(" peer ")
            out.address(peer)
            return
        }
        out.ascii(" handle ")
        out.hex(UInt64(handle), digits: 4)
        out.ascii(role == 0 ? " central, peer " : " peripheral, peer ")
        out.address(peer)
        out.ascii(peerType & 1 == 0 ? " (public)" : " (random)")
        out.ascii(" interval ")
        FieldFormatting.text(.microseconds(Int64(interval) * 1250), to: out)
    }

    private func reportSummary(_ address: BDAddr, _ rssi: Int8, _ data: ByteView) {
        out.byte(0x20)
        out.address(address)
        out.byte(0x20)
        out.decimal(Int64(rssi))
        out.ascii(" dBm")
        if let name = AdvertisingData(data).localName {
            out.ascii(" \"")
            out.sanitizedText(name)
            out.byte(UInt8(ascii: "\""))
        }
    }

    private func statusText(_ status: UInt8) {
        if status == 0 { return }
        paint(Palette.error)
        out.ascii(" status ")
        out.hex(UInt64(status), digits: 2)
        if let n = HCIError.name(status) {
            out.byte(0x20)
            out.ascii(n)
        }
        paint(ANSI.reset)
    }

    private func aclSummary(_ frame: DecodedFrame, _ acl: HCIACLPacket) {
        guard let pdu = frame.l2cap else {
            out.ascii("HCI_ACL handle ")
            out.hex(UInt64(acl.handle), digits: 4)
            if case .malformed(let note, _, _)? = frame.reassembly {
                paint(Palette.error)
                out.ascii(" malformed: ")
                out.ascii(note)
                paint(ANSI.reset)
            } else {
                out.ascii(" fragment (")
                out.decimal(acl.data.count)
                out.ascii(" bytes)")
            }
            return
        }
        l2capSummary(frame, pdu)
    }

    /// An L2CAP PDU's protocol tag, its connection and peer, and summary (ACL and Link Layer
    /// data alike).
    func l2capSummary(_ frame: DecodedFrame, _ pdu: L2CAPPDU) {
        let result = frame.reassembly
        switch pdu.channel {
        case L2CAPChannel.att:
            paint(Palette.att)
            out.ascii("ATT     ")
            paint(ANSI.reset)
            peerColumn(frame)
            attSummary(pdu.payload)
        case L2CAPChannel.smp:
            paint(Palette.smp)
            out.ascii("SMP     ")
            paint(ANSI.reset)
            peerColumn(frame)
            if let code = SMPCode.code(of: pdu.payload) { out.ascii(SMPCode.name(code)) } else { out.ascii("(empty)") }
        case L2CAPChannel.leSignaling:
            out.ascii("L2CAP   ")
            peerColumn(frame)
            if let code = L2CAPSignalingCode.code(of: pdu.payload) {
                out.ascii(L2CAPSignalingCode.name(code))
            } else {
                out.ascii("(empty)")
            }
        default:
            out.ascii("L2CAP   ")
            peerColumn(frame)
            out.ascii("cid ")
            out.hex(UInt64(pdu.channel), digits: 4)
            out.ascii(" (")
            out.ascii(L2CAPChannel.name(pdu.channel))
            out.ascii(") ")
            out.decimal(pdu.payload.count)
            out.ascii(" bytes")
        }
        if case .malformed(let note, _, _)? = result {
            paint(Palette.error)
            out.ascii(" [")
            out.ascii(note)
            out.byte(UInt8(ascii: "]"))
            paint(ANSI.reset)
        }
    }

    /// The connection column of an L2CAP line: the handle (the Link Layer connection number
    /// over the air) and the peer that Connection Complete or CONNECT_IND named for it,
    /// "unknown" when the capture did not show it open. Fixed width: 6 + 1 + 17 + 2.
    private func peerColumn(_ frame: DecodedFrame) {
        guard let h = frame.connectionHandle else { return }
        out.hex(UInt64(h), digits: 4)
        out.byte(0x20)
        if let p = peers.peer(controller: frame.record.controllerIndex, handle: h) {
            out.address(p.address)
        } else {
            out.ascii("unknown          ")
        }
        out.ascii("  ")
    }

    func attSummary(_ payload: ByteView) {
        guard let op = ATTPDUHeader(payload)?.opcode else {
            out.ascii("(empty PDU)")
            return
        }
        let opcode = ATTOpcode(op)
        named(opcode.name, op, digits: 2)
        let pdu = ATTPDU(payload)
        if case .errorResponse(let e) = pdu {
            out.ascii(" to ")
            named(e.requestOpcode.name, e.requestOpcode.rawValue, digits: 2)
            out.ascii(" handle ")
            out.hex(UInt64(e.handle), digits: 4)
            paint(Palette.error)
            out.byte(0x20)
            out.hex(UInt64(e.errorCode), digits: 2)
            if let n = ATTErrorCode.name(e.errorCode) {
                out.byte(0x20)
                out.ascii(n)
            }
            paint(ANSI.reset)
            return
        }
        if case .malformed(_, _, let note) = pdu {
            paint(Palette.error)
            out.ascii(" [")
            out.ascii(note)
            out.byte(UInt8(ascii: "]"))
            paint(ANSI.reset)
            return
        }
        if let h = ATTPDU.handle(of: payload) {
            out.ascii(" handle ")
            out.hex(UInt64(h), digits: 4)
        }
        switch pdu {
        case .readByGroupTypeRequest(let r):
            range(r.startingHandle, r.endingHandle)
            uuidText(r.groupTypeBytes)
        case .readByTypeRequest(let r):
            range(r.startingHandle, r.endingHandle)
            uuidText(r.attributeTypeBytes)
        case .findByTypeValueRequest(let r):
            range(r.startingHandle, r.endingHandle)
            out.ascii(" type ")
            out.hexDigits(UInt64(r.attributeType), digits: 4)
            out.ascii(" value ")
            out.hexBytes(r.attributeValue)
        case .findInformationRequest(let r):
            range(r.startingHandle, r.endingHandle)
        case .exchangeMTURequest(let m):
            out.ascii(" client rx MTU ")
            out.decimal(UInt64(m.clientRxMTU))
        case .exchangeMTUResponse(let m):
            out.ascii(" server rx MTU ")
            out.decimal(UInt64(m.serverRxMTU))
        case .readByGroupTypeResponse(let r):
            var n = 0
            for e in r.attributeData {
                if !listEntry(&n, of: r.attributeData.count) { break }
                handleRange(e.handle, e.endGroupHandle)
                if e.value.count == 2 || e.value.count == 16, let u = BluetoothUUID(littleEndian: e.value) {
                    uuidName(u)
                } else {
                    entryValue(e.value)
                }
            }
            listMalformed(r.attributeData.isWellFormed)
        case .findInformationResponse(let r):
            var n = 0
            for e in r.information {
                if !listEntry(&n, of: r.information.count) { break }
                out.hex(UInt64(e.handle), digits: 4)
                uuidName(e.uuid)
            }
            listMalformed(r.information.isWellFormed)
        case .findByTypeValueResponse(let r):
            var n = 0
            for e in r.handlesInformation {
                if !listEntry(&n, of: r.handlesInformation.count) { break }
                handleRange(e.handle, e.endGroupHandle)
            }
            listMalformed(r.handlesInformation.isWellFormed)
        case .readByTypeResponse(let r):
            var n = 0
            for e in r.attributeData {
                if !listEntry(&n, of: r.attributeData.count) { break }
                out.hex(UInt64(e.handle), digits: 4)
                // A characteristic declaration (the usual Read By Type): properties, value
                // handle and UUID (Vol 3 Part G 3.3.1); any other value in hex.
                if e.value.count == 5 || e.value.count == 19, let d = GATTCharacteristicDeclarationValue(e.value),
                    let u = d.uuid
                {
                    out.ascii(" props ")
                    out.hex(UInt64(d.properties), digits: 2)
                    out.ascii(" value ")
                    out.hex(UInt64(d.valueHandle), digits: 4)
                    uuidName(u)
                } else {
                    entryValue(e.value)
                }
            }
            listMalformed(r.attributeData.isWellFormed)
        case .readMultipleResponse(let r):
            out.ascii(" values ")
            cappedHex(r.values)
        default: break
        }
        if let v = ATTValues.value(of: pdu) {
            out.ascii(" value ")
            switch pdu {
            case .readResponse, .readBlobResponse: cappedHex(v)
            default:
                if v.count > 32 {
                    out.hexBytes(v.prefix(32))
                    out.ascii("… (")
                    out.decimal(v.count)
                    out.ascii(" bytes)")
                } else {
                    out.hexBytes(v)
                }
            }
        }
    }

    /// Entries a response's summary names before "… N more": a line stays bounded.
    static let listedEntries = 4

    /// Separates the `n`th entry of a response list (`count` in all); false once the line has
    /// listed enough, after writing how many it leaves out.
    private func listEntry(_ n: inout Int, of count: Int) -> Bool {
        if n == Self.listedEntries {
            out.ascii(", … ")
            out.decimal(count - n)
            out.ascii(" more")
            return false
        }
        out.ascii(n == 0 ? " " : ", ")
        n += 1
        return true
    }

    private func listMalformed(_ wellFormed: Bool) {
        if wellFormed { return }
        paint(Palette.error)
        out.ascii(" [list does not match its length]")
        paint(ANSI.reset)
    }

    /// A listed group or range: `0x0001..0x0005`.
    private func handleRange(_ start: UInt16, _ end: UInt16) {
        out.hex(UInt64(start), digits: 4)
        out.ascii("..")
        out.hex(UInt64(end), digits: 4)
    }

    /// A listed entry's value that names nothing: its first 16 bytes in hex.
    private func entryValue(_ v: ByteView) {
        out.ascii(" value ")
        out.hexBytes(v.prefix(16))
        if v.count > 16 { out.ascii("…") }
    }

    /// The first 32 bytes of a read value in hex, then its length.
    private func cappedHex(_ v: ByteView) {
        out.hexBytes(v.prefix(32))
        if v.count > 32 { out.ascii("…") }
        out.ascii(" (")
        out.decimal(v.count)
        out.ascii(v.count == 1 ? " byte)" : " bytes)")
    }

    /// A UUID as `BluetoothUUID.description` writes it ("180D", 128-bit 8-4-4-4-12, uppercase)
    /// and its assigned name, straight into the buffer.
    private func uuidName(_ u: BluetoothUUID) {
        out.byte(0x20)
        if let v = u.uuid16 {
            out.hexDigits(UInt64(v), digits: 4)
        } else if u.width == 4, let v = u.uuid32 {
            out.hexDigits(UInt64(v), digits: 8)
        } else {
            out.hexDigits(u.high >> 32, digits: 8)
            out.byte(UInt8(ascii: "-"))
            out.hexDigits(u.high >> 16, digits: 4)
            out.byte(UInt8(ascii: "-"))
            out.hexDigits(u.high, digits: 4)
            out.byte(UInt8(ascii: "-"))
            out.hexDigits(u.low >> 48, digits: 4)
            out.byte(UInt8(ascii: "-"))
            out.hexDigits(u.low, digits: 12)
        }
        if let name = GATTAssignedNumbers.name(for: u) {
            out.ascii(" (")
            out.ascii(name)
            out.byte(UInt8(ascii: ")"))
        }
    }

    private func range(_ start: UInt16, _ end: UInt16) {
        out.byte(0x20)
        out.hex(UInt64(start), digits: 4)
        out.ascii("..")
        out.hex(UInt64(end), digits: 4)
    }

    private func uuidText(_ bytes: ByteView) {
        guard let uuid = BluetoothUUID(littleEndian: bytes) else { return }
        out.byte(0x20)
        out.string(uuid.description)
        if let name = GATTAssignedNumbers.name(for: uuid) {
            out.ascii(" (")
            out.ascii(name)
            out.byte(UInt8(ascii: ")"))
        }
    }

    /// The indented full decode under a summary line (`--verbose`) or the JSON `fields` tree.
    private func details(_ frame: DecodedFrame, sink: FieldSink) {
        switch frame.layer {
        case .command(let c): c.describe(into: sink)
        case .event(let e): e.describe(into: sink)
        case .acl(let acl):
            acl.describe(into: sink)
            if let pdu = frame.l2cap { L2CAPPayload.describe(pdu, into: sink) }
        case .other:
            if let c = frame.managementCommand {
                c.describe(into: sink)
            } else if let e = frame.managementEvent {
                e.describe(into: sink)
            } else if !frame.record.payload.isEmpty {
                sink.field("data", .bytes(frame.record.payload))
            }
        case .malformed(let note):
            sink.note(note)
            sink.field("data", .bytes(frame.record.payload))
        case .linkLayer(let ll):
            linkLayerDetails(frame.record, ll, sink: sink)
            if let pdu = frame.l2cap { L2CAPPayload.describe(pdu, into: sink) }
        }
    }

    // MARK: JSON

    private func writeJSONObject(_ frame: DecodedFrame, withFields: Bool) {
        let r = frame.record
        out.ascii("{\"frame\":")
        out.decimal(r.frame)
        out.ascii(",\"time\":")
        if r.timestamp >= -62_135_596_800_000_000 && r.timestamp < 253_402_300_800_000_000 {
            out.byte(0x22)
            out.rfc3339(microseconds: r.timestamp)
            out.byte(0x22)
        } else {
            out.decimal(r.timestamp)
        }
        out.ascii(",\"direction\":")
        switch r.direction {
        case .sent: out.ascii("\"sent\"")
        case .received: out.ascii("\"received\"")
        case .unknown: out.ascii("\"unknown\"")
        }
        out.ascii(",\"kind\":\"")
        out.ascii(r.kind.name)
        out.byte(0x22)
        if showsController {
            out.ascii(",\"controller\":")
            out.decimal(UInt64(r.controllerIndex))
        }
        if let h = frame.connectionHandle {
            out.ascii(",\"connection_handle\":")
            out.decimal(UInt64(h))
            if frame.l2cap != nil, let p = peers.peer(controller: r.controllerIndex, handle: h) {
                peerMember(p)
            }
        }
        switch frame.layer {
        case .command(let c):
            out.ascii(",\"hci\":{\"opcode\":")
            out.decimal(UInt64(c.opcode))
            out.ascii(",\"name\":")
            out.jsonString(HCICommands.name(for: c.opcode))
            out.byte(UInt8(ascii: "}"))
        case .event(let e):
            jsonEvent(e)
        case .acl:
            if let pdu = frame.l2cap {
                out.ascii(",\"l2cap\":{\"cid\":")
                out.decimal(UInt64(pdu.channel))
                out.ascii(",\"length\":")
                out.decimal(UInt64(pdu.length))
                out.ascii(",\"fragments\":")
                out.decimal(pdu.fragmentCount)
                out.byte(UInt8(ascii: "}"))
                jsonUpperLayer(pdu)
            }
            if case .malformed(let note, _, _)? = frame.reassembly {
                out.ascii(",\"malformed\":")
                out.jsonString(note)
            }
        case .malformed(let note):
            out.ascii(",\"malformed\":")
            out.jsonString(note)
        case .linkLayer(let ll):
            jsonLinkLayer(r, ll)
            if let pdu = frame.l2cap {
                out.ascii(",\"l2cap\":{\"cid\":")
                out.decimal(UInt64(pdu.channel))
                out.ascii(",\"length\":")
                out.decimal(UInt64(pdu.length))
                out.ascii(",\"fragments\":")
                out.decimal(pdu.fragmentCount)
                out.byte(UInt8(ascii: "}"))
                jsonUpperLayer(pdu)
            }
        case .other:
            if isText(r.kind) || r.kind == .userLogging {
                out.ascii(",\"text\":")
                out.jsonString(textPayload(r))
            }
            if let c = frame.managementCommand {
                out.ascii(",\"mgmt\":{\"opcode\":")
                out.decimal(UInt64(c.opcode))
                out.ascii(",\"name\":")
                out.jsonString(c.name)
                out.byte(UInt8(ascii: "}"))
            } else if let e = frame.managementEvent {
                out.ascii(",\"mgmt\":{\"event\":")
                out.decimal(UInt64(e.code))
                out.ascii(",\"name\":")
                out.jsonString(e.name)
                if let (op, status) = e.answered {
                    out.ascii(",\"command_opcode\":")
                    out.decimal(UInt64(op))
                    out.ascii(",\"status\":")
                    out.decimal(UInt64(status))
                }
                out.byte(UInt8(ascii: "}"))
            }
        }
        if withFields {
            out.ascii(",\"fields\":[")
            details(frame, sink: jsonSink)
            jsonSink.closeAll()
            out.byte(UInt8(ascii: "]"))
        }
        out.byte(UInt8(ascii: "}"))
    }

    /// The human text of a note-like record: user logging's message after its priority and
    /// ident, system notes without their C string terminator.
    private func textPayload(_ r: CaptureRecord) -> ByteView {
        switch r.kind {
        case .userLogging: return MonitorUserLogging(r.payload)?.message ?? r.payload
        case .systemNote: return MonitorSystemNote(r.payload).text
        default:
            return r.payload.droppingTrailing { $0 == 0 }
        }
    }

    private func jsonEvent(_ e: HCIEventPacket) {
        out.ascii(",\"hci\":{\"event\":")
        out.decimal(UInt64(e.code))
        out.ascii(",\"name\":")
        out.jsonString(HCIEvents.name(for: e.code))
        if let sub = e.subeventCode {
            out.ascii(",\"subevent\":")
            out.decimal(UInt64(sub))
            out.ascii(",\"subevent_name\":")
            out.jsonString(HCIEvents.leSubeventName(for: sub))
        }
        let p = e.parameters
        var answered: (UInt16, UInt8)? = nil
        if e.code == HCICommandComplete.code, let cc = HCICommandComplete(parameters: p) {
            answered = (cc.opcode, cc.status ?? 0)
        }
        if e.code == HCICommandStatus.code, let cs = HCICommandStatus(parameters: p) {
            answered = (cs.opcode, cs.status)
        }
        if let (op, status) = answered {
            out.ascii(",\"command_opcode\":")
            out.decimal(UInt64(op))
            out.ascii(",\"command\":")
            out.jsonString(HCICommands.name(for: op))
            out.ascii(",\"status\":")
            out.decimal(UInt64(status))
        }
        out.byte(UInt8(ascii: "}"))
    }

    func jsonUpperLayer(_ pdu: L2CAPPDU) {
        let payload = pdu.payload
        switch pdu.channel {
        case L2CAPChannel.att:
            guard let op = ATTPDUHeader(payload)?.opcode else { return }
            let opcode = ATTOpcode(op)
            out.ascii(",\"att\":{\"opcode\":")
            out.decimal(UInt64(op))
            out.ascii(",\"name\":")
            out.jsonString(opcode.name)
            if let h = ATTPDU.handle(of: payload) {
                out.ascii(",\"handle\":")
                out.decimal(UInt64(h))
            }
            let decoded = ATTPDU(payload)
            if let v = ATTValues.value(of: decoded) {
                out.ascii(",\"value\":\"")
                out.hexBytes(v)
                out.byte(0x22)
            }
            jsonATTParameters(decoded)
            if case .errorResponse(let e) = decoded {
                out.ascii(",\"request_opcode\":")
                out.decimal(UInt64(e.requestOpcode.rawValue))
                out.ascii(",\"error\":")
                out.decimal(UInt64(e.errorCode))
                if let n = ATTErrorCode.name(e.errorCode) {
                    out.ascii(",\"error_name\":")
                    out.jsonString(n)
                }
            }
            if case .malformed(_, _, let note) = decoded {
                out.ascii(",\"malformed\":")
                out.jsonString(note)
            }
            out.byte(UInt8(ascii: "}"))
        case L2CAPChannel.smp:
            guard let code = SMPCode.code(of: payload) else { return }
            out.ascii(",\"smp\":{\"code\":")
            out.decimal(UInt64(code))
            out.ascii(",\"name\":")
            out.jsonString(SMPCode.name(code))
            out.byte(UInt8(ascii: "}"))
        case L2CAPChannel.leSignaling:
            guard let code = L2CAPSignalingCode.code(of: payload) else { return }
            out.ascii(",\"signaling\":{\"code\":")
            out.decimal(UInt64(code))
            out.ascii(",\"name\":")
            out.jsonString(L2CAPSignalingCode.name(code))
            out.byte(UInt8(ascii: "}"))
        default: break
        }
    }
}

extension PacketWriter {
    /// What the text summary says of a request's range, an MTU exchange and a response's list,
    /// as JSONL fields (docs/jsonl.md): every entry of a list, where text names the first few.
    func jsonATTParameters(_ pdu: ATTPDU) {
        switch pdu {
        case .readByGroupTypeRequest(let r):
            jsonRange(r.startingHandle, r.endingHandle)
            if let u = r.groupType { jsonUUID(u) }
        case .readByTypeRequest(let r):
            jsonRange(r.startingHandle, r.endingHandle)
            if let u = r.attributeType { jsonUUID(u) }
        case .findByTypeValueRequest(let r):
            jsonRange(r.startingHandle, r.endingHandle)
            jsonUUID(BluetoothUUID(uuid16: r.attributeType))
            out.ascii(",\"value\":\"")
            out.hexBytes(r.attributeValue)
            out.byte(0x22)
        case .findInformationRequest(let r):
            jsonRange(r.startingHandle, r.endingHandle)
        case .exchangeMTURequest(let m):
            out.ascii(",\"mtu\":")
            out.decimal(UInt64(m.clientRxMTU))
        case .exchangeMTUResponse(let m):
            out.ascii(",\"mtu\":")
            out.decimal(UInt64(m.serverRxMTU))
        case .readByGroupTypeResponse(let r):
            out.ascii(",\"entries\":[")
            var first = true
            for e in r.attributeData {
                jsonEntryStart(&first, e.handle)
                out.ascii(",\"end_handle\":")
                out.decimal(UInt64(e.endGroupHandle))
                if e.value.count == 2 || e.value.count == 16, let u = BluetoothUUID(littleEndian: e.value) {
                    jsonUUID(u)
                } else {
                    jsonHexValue(e.value)
                }
                out.byte(UInt8(ascii: "}"))
            }
            jsonListEnd(r.attributeData.isWellFormed)
        case .findInformationResponse(let r):
            out.ascii(",\"entries\":[")
            var first = true
            for e in r.information {
                jsonEntryStart(&first, e.handle)
                jsonUUID(e.uuid)
                out.byte(UInt8(ascii: "}"))
            }
            jsonListEnd(r.information.isWellFormed)
        case .findByTypeValueResponse(let r):
            out.ascii(",\"entries\":[")
            var first = true
            for e in r.handlesInformation {
                jsonEntryStart(&first, e.handle)
                out.ascii(",\"end_handle\":")
                out.decimal(UInt64(e.endGroupHandle))
                out.byte(UInt8(ascii: "}"))
            }
            jsonListEnd(r.handlesInformation.isWellFormed)
        case .readByTypeResponse(let r):
            out.ascii(",\"entries\":[")
            var first = true
            for e in r.attributeData {
                jsonEntryStart(&first, e.handle)
                jsonHexValue(e.value)
                // A characteristic declaration (Vol 3 Part G 3.3.1), as the text line reads it.
                if e.value.count == 5 || e.value.count == 19, let d = GATTCharacteristicDeclarationValue(e.value),
                    let u = d.uuid
                {
                    out.ascii(",\"properties\":")
                    out.decimal(UInt64(d.properties))
                    out.ascii(",\"value_handle\":")
                    out.decimal(UInt64(d.valueHandle))
                    jsonUUID(u)
                }
                out.byte(UInt8(ascii: "}"))
            }
            jsonListEnd(r.attributeData.isWellFormed)
        case .readMultipleResponse(let r):
            out.ascii(",\"values\":\"")
            out.hexBytes(r.values)
            out.byte(0x22)
        default: break
        }
    }

    private func jsonRange(_ start: UInt16, _ end: UInt16) {
        out.ascii(",\"start_handle\":")
        out.decimal(UInt64(start))
        out.ascii(",\"end_handle\":")
        out.decimal(UInt64(end))
    }

    /// `"uuid":"2A37"`, as `BluetoothUUID.description` writes it (the filter's `att.uuid`).
    private func jsonUUID(_ u: BluetoothUUID) {
        out.ascii(",\"uuid\":\"")
        out.string(u.description)
        out.byte(0x22)
    }

    private func jsonHexValue(_ v: ByteView) {
        out.ascii(",\"value\":\"")
        out.hexBytes(v)
        out.byte(0x22)
    }

    private func jsonEntryStart(_ first: inout Bool, _ handle: UInt16) {
        if !first { out.byte(UInt8(ascii: ",")) }
        first = false
        out.ascii("{\"handle\":")
        out.decimal(UInt64(handle))
    }

    /// Closes `entries`; a list whose bytes do not divide into whole entries says so, as the
    /// text line does.
    private func jsonListEnd(_ wellFormed: Bool) {
        out.byte(UInt8(ascii: "]"))
        if !wellFormed { out.ascii(",\"malformed\":\"list does not match its length\"") }
    }
}

/// The attribute value an ATT PDU carries, for the PDUs that carry exactly one.
enum ATTValues {
    static func value(of pdu: ATTPDU) -> ByteView? {
        switch pdu {
        case .readResponse(let p): p.value
        case .readBlobResponse(let p): p.partValue
        case .writeRequest(let p): p.value
        case .writeCommand(let p): p.value
        case .signedWriteCommand(let p): p.value
        case .prepareWriteRequest(let p): p.partValue
        case .prepareWriteResponse(let p): p.partValue
        case .handleValueNotification(let p): p.value
        case .handleValueIndication(let p): p.value
        default: nil
        }
    }
}
