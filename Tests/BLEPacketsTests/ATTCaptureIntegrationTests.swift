import BLEBytes
import BLEPackets
import CaptureIO
import TestSupport
import Testing

/// What one capture yields once reassembled: per-frame ATT facts and everything odd.
struct CaptureWalk {
    var att: [Int: (opcode: UInt8, handle: UInt16?)] = [:]
    var malformed: [Int] = []
    var abandoned: [Int] = []
    var pdus = 0
}

/// Runs a capture through its reader and the reassembler, resetting a handle's streams on
/// Disconnection Complete (event 0x05) as a real pipeline must, and calls `body` for each
/// complete L2CAP PDU with the frame it belongs to (its last fragment's).
@discardableResult
func walkCapture(_ path: String, _ body: (Int, L2CAPPDU) -> Void = { _, _ in }) throws -> CaptureWalk {
    let reader = try CaptureFile.open(path: path)
    let r = L2CAPReassembler()
    var w = CaptureWalk()
    while let rec = reader.next() {
        if rec.kind == .hciEvent, rec.payload.u8(0) == 0x05, let h = rec.payload.u16le(3) {
            r.reset(handle: h & 0x0FFF, controllerIndex: rec.controllerIndex)
        }
        guard let res = r.feed(rec) else { continue }
        if r.abandoned != nil { w.abandoned.append(rec.frame) }
        switch res {
        case .complete(let pdu):
            w.pdus += 1
            if pdu.channel == L2CAPChannel.att, let op = pdu.payload.u8(0) {
                w.att[rec.frame] = (op, ATTPDU.handle(of: pdu.payload))
            }
            body(rec.frame, pdu)
        case .malformed: w.malformed.append(rec.frame)
        case .incomplete: break
        }
    }
    #expect(reader.damage == nil, "\(path)")
    return w
}

func bumble(_ name: String) -> String { Fixtures.capture("bumble/\(name).btsnoop") }

@Suite struct ATTCaptureIntegrationTests {
    /// `tshark -Y btatt | wc -l` per file, from the Bumble README's table.
    static let attFrameCounts: [String: Int] = [
        "clean_heart_rate.central": 58, "clean_heart_rate.peripheral": 58,
        "nil_scan_all_services.central": 32, "nil_scan_all_services.peripheral": 32,
        "oversized_and_unchecked_writes.central": 231, "oversized_and_unchecked_writes.peripheral": 231,
        "reconnect_storm.central": 32, "reconnect_storm.peripheral": 32,
        "indications_and_errors.central": 48, "indications_and_errors.peripheral": 48,
        "long_notify_stream.central": 5054, "long_notify_stream.peripheral": 5054,
        "two_peripherals_concurrent.central": 58, "two_peripherals_concurrent.peripheral": 28,
        "two_peripherals_concurrent.peripheral_b": 30,
        "cached_reconnect.central": 54, "cached_reconnect.peripheral": 54,
        "hr_short_notification.central": 28, "hr_short_notification.peripheral": 28,
        "scan_before_init.central": 19, "scan_before_init.peripheral": 19,
    ]

    @Test(arguments: attFrameCounts.keys.sorted())
    func everyBumbleCaptureReassemblesCleanly(_ name: String) throws {
        let w = try walkCapture(bumble(name))
        #expect(w.att.count == Self.attFrameCounts[name], "\(name)")
        #expect(w.malformed.isEmpty && w.abandoned.isEmpty, "\(name): \(w.malformed) \(w.abandoned)")
    }

    @Test func cleanHeartRateCentral() throws {
        var writeValue: [UInt8] = []
        let w = try walkCapture(bumble("clean_heart_rate.central")) { frame, pdu in
            if frame == 92, case .att(.writeRequest(let wr)) = L2CAPPayload(pdu) { writeValue = wr.value.toArray() }
        }
        #expect(w.att[44]?.opcode == 0x02 && w.att[46]?.opcode == 0x03)
        for f in 95...114 {
            #expect(w.att[f]?.opcode == 0x1B && w.att[f]?.handle == 0x0010, "frame \(f)")
        }
        #expect(w.att[92]?.opcode == 0x12 && w.att[92]?.handle == 0x0011 && writeValue == [0x01, 0x00])
        #expect(w.att[91]?.opcode == 0x05 && w.att[91]?.handle == nil)
        #expect(w.att[115]?.opcode == 0x0A && w.att[115]?.handle == 0x0016)
        #expect(w.att[118]?.opcode == 0x0A && w.att[118]?.handle == 0x0013)
        // Six discovery steps end with Error Response 0x0A Attribute Not Found.
        #expect(w.att.values.filter { $0.opcode == 0x01 }.count == 6)
    }

    @Test func indicationsAndErrorsCentral() throws {
        var smp: [Int: UInt8] = [:]
        var publicKeyFragments = 0
        var errors: [Int: (UInt8, UInt16, UInt8)] = [:]
        var readByType59Entries = 0
        let w = try walkCapture(bumble("indications_and_errors.central")) { frame, pdu in
            switch L2CAPPayload(pdu) {
            case .smp(let s):
                smp[frame] = pdu.payload.u8(0)
                if case .pairingRequest(let p) = s {
                    #expect(p.features.ioCapability == 0x03 && p.features.authReq.rawValue == 0x09)
                    #expect(!p.features.authReq.mitm && p.features.maximumEncryptionKeySize == 16)
                    #expect(p.features.initiatorKeyDistribution.rawValue == 0x03)
                }
                if case .pairingPublicKey = s, frame == 107 { publicKeyFragments = pdu.fragmentCount }
            case .att(.errorResponse(let e)): errors[frame] = (e.requestOpcode.rawValue, e.handle, e.errorCode)
            case .att(.readByTypeResponse(let r)) where frame == 59:
                readByType59Entries = r.attributeData.count
                #expect(pdu.fragmentCount == 2 && pdu.length == 44)
            default: break
            }
        }
        #expect(smp[102] == 0x01 && smp[104] == 0x02 && smp[107] == 0x0C && smp[113] == 0x0C && smp[114] == 0x03)
        #expect(smp[115] == 0x04 && smp[117] == 0x04 && smp[118] == 0x0D && smp[120] == 0x0D)
        #expect(smp[124] == 0x08 && smp[125] == 0x09 && smp[126] == 0x08 && smp[127] == 0x09)
        #expect(publicKeyFragments == 3)
        #expect(readByType59Entries == 2)
        #expect(errors[95].map { $0 == (0x0A, 0x0FFF, 0x01) } == true)
        #expect(errors[98].map { $0 == (0x08, 0x0001, 0x0A) } == true)
        #expect(errors[101].map { $0 == (0x0A, 0x0013, 0x05) } == true)
        #expect(w.att[75]?.opcode == 0x1D && w.att[75]?.handle == 0x0008 && w.att[76]?.opcode == 0x1E)
        #expect(w.att.values.filter { $0.opcode == 0x1D }.count == 6)
        #expect(w.att.values.filter { $0.opcode == 0x1E }.count == 6)
    }

    @Test func oversizedAndUncheckedWritesCentral() throws {
        var oversized = 0
        let w = try walkCapture(bumble("oversized_and_unchecked_writes.central")) { frame, pdu in
            if frame == 57, case .att(.writeRequest(let wr)) = L2CAPPayload(pdu) {
                oversized = wr.value.count
                #expect(pdu.length == 43 && pdu.firstFrame == 56 && pdu.fragmentCount == 2)
            }
        }
        #expect(oversized == 40 && w.att[57]?.handle == 0x0012)
        #expect(w.att.values.filter { $0.opcode == 0x52 }.count == 201)
        #expect(w.att[76]?.opcode == 0x52 && w.att[76]?.handle == 0x0012)
        #expect(w.att.values.filter { $0.opcode == 0x16 && $0.handle == 0x0012 }.count == 3)
        #expect(w.att.values.filter { $0.opcode == 0x17 && $0.handle == 0x0012 }.count == 3)
        #expect(w.att[415]?.opcode == 0x12 && w.att[415]?.handle == 0x0011)
    }

    @Test func longNotifyStreamCentral() throws {
        var sequence: [UInt32] = []
        var valueBytes = 0
        var lengths = (min: Int.max, max: 0)
        var maxFragments = 0
        var update: L2CAPConnectionParameterUpdateRequest? = nil
        let w = try walkCapture(bumble("long_notify_stream.central")) { frame, pdu in
            switch L2CAPPayload(pdu) {
            case .att(.handleValueNotification(let n)):
                #expect(n.handle == 0x0010)
                sequence.append(n.value.u32le(0) ?? .max)
                valueBytes += n.value.count
                lengths = (min(lengths.min, n.value.count), max(lengths.max, n.value.count))
                maxFragments = max(maxFragments, pdu.fragmentCount)
            case .signaling(let s) where frame == 35:
                update = s.first.flatMap { L2CAPConnectionParameterUpdateRequest(data: $0.data) }
            default: break
            }
        }
        #expect(sequence.count == 5040 && sequence == Array(0..<5040))
        #expect(valueBytes == 668_645)
        #expect(lengths.min >= 20 && lengths.max <= 244 && maxFragments == 10)
        #expect(update?.intervalMin == 6 && update?.intervalMax == 9 && update?.timeout == 400)
        #expect(w.pdus == 5054 + 2)
    }
}
