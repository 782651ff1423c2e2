import BLEBytes
import BLEPackets
import CaptureIO
import Testing

/// Builds an ACL payload (after the H4 byte): handle|PB<<12|BC<<14, length, data.
func aclBytes(handle: UInt16, pb: UInt8, bc: UInt8 = 0, _ dataHex: String, declaredLength: Int? = nil) -> [UInt8] {
    let data = Hex.bytes(dataHex)!
    let hf = handle | UInt16(pb) << 12 | UInt16(bc) << 14
    let len = UInt16(declaredLength ?? data.count)
    return [UInt8(hf & 0xFF), UInt8(hf >> 8), UInt8(len & 0xFF), UInt8(len >> 8)] + data
}

/// Feeds one ACL payload and hands the result (valid only inside `body`) to `body`.
func feed<R>(
    _ r: L2CAPReassembler, _ bytes: [UInt8], frame: Int, direction: Direction = .sent, controller: UInt16 = 0,
    _ body: (L2CAPReassemblyResult) -> R
) -> R {
    bytes.withByteView { v in
        body(r.feed(HCIACLPacket(v)!, frame: frame, direction: direction, controllerIndex: controller))
    }
}

extension L2CAPReassemblyResult {
    var isIncomplete: Bool { if case .incomplete = self { true } else { false } }
    var pdu: L2CAPPDU? { if case .complete(let p) = self { p } else { nil } }
    var malformedNote: String? { if case .malformed(let n, _, _) = self { "\(n)" } else { nil } }
}

@Suite struct ACLPacketTests {
    // clean_heart_rate.central frame 92 (without the H4 byte 02): handle 1, PB 0b00, length 9.
    @Test func headerFields() {
        Hex.bytes("0100 0900 0500 0400 12 1100 0100")!.withByteView { v in
            let p = HCIACLPacket(v)!
            #expect(p.handle == 0x0001 && p.boundary == .firstNonFlushable && p.broadcast == 0)
            #expect(p.declaredLength == 9 && p.data.count == 9 && !p.lengthMismatch)
        }
        // Frame 95 RX: 0x2001 -> handle 1, PB 0b10 (first automatically flushable).
        Hex.bytes("0120 0b00 0700 0400 1b 1000 16466d03")!.withByteView { v in
            let p = HCIACLPacket(v)!
            #expect(p.boundary == .firstFlushable && p.boundary.isStart)
        }
        // Handle 0xEFF, PB continuing, BC 0b01.
        Hex.bytes("ff5e 0100 aa")!.withByteView { v in
            let p = HCIACLPacket(v)!
            #expect(p.handle == 0x0EFF && p.boundary == .continuing && !p.boundary.isStart && p.broadcast == 1)
        }
        #expect(HCIACLPacket.BoundaryFlag(rawValue: 0b11) == .complete)
    }

    @Test func declaredLengthDisagreements() {
        // Declared 9, 4 present (snap length).
        Hex.bytes("0100 0900 0500 0400")!.withByteView { v in
            let p = HCIACLPacket(v)!
            #expect(p.data.count == 4 && p.lengthMismatch && p.trailing.isEmpty)
            let s = RecordingSink()
            p.describe(into: s)
            #expect(s.notes == ["!ACL data shorter than its declared length"])
        }
        // Declared 2, 4 present: data is the declared 2, the rest is trailing.
        Hex.bytes("0100 0200 aabb ccdd")!.withByteView { v in
            let p = HCIACLPacket(v)!
            #expect(p.data.elementsEqual([0xAA, 0xBB]) && p.trailing.elementsEqual([0xCC, 0xDD]) && p.lengthMismatch)
        }
        // No room for the header.
        #expect(Hex.bytes("0100 02")!.withByteView { HCIACLPacket($0) } == nil)
        #expect([UInt8]().withByteView { HCIACLPacket($0) } == nil)
    }
}

@Suite struct L2CAPReassemblyTests {
    // oversized_and_unchecked_writes.central frames 56-57: a 43-byte Write Request to 0x0012
    // as 27 bytes (PB 0b00) + 20 bytes (PB 0b01), exactly as Bumble fragments TX.
    static let frame56 = aclBytes(handle: 1, pb: 0b00, "2b00 0400 12 1200 624e8b1a379a8fc84f2e217f3e9af499b0932fe2")
    static let frame57 = aclBytes(handle: 1, pb: 0b01, "cec6a0e7652ec79b12c1d005fcab094c2b0a82f4")

    @Test func singlePacketPDUIsAViewIntoTheInput() {
        let r = L2CAPReassembler()
        let bytes = aclBytes(handle: 1, pb: 0b10, "0700 0400 1b 1000 16466d03")
        bytes.withByteView { v in
            let res = r.feed(HCIACLPacket(v)!, frame: 95, direction: .received)
            guard let p = res.pdu else {
                Issue.record("\(res)")
                return
            }
            #expect(p.length == 7 && p.channel == 4 && p.firstFrame == 95 && p.lastFrame == 95 && p.fragmentCount == 1)
            #expect(p.handle == 1 && p.direction == .received)
            #expect(p.payload.base.baseAddress == v.base.baseAddress! + 8)
            #expect(ATTPDU.handle(of: p.payload) == 0x0010)
        }
        #expect(r.pendingCount == 0)
    }

    @Test func bumbleTwoFragmentWrite() {
        let r = L2CAPReassembler()
        #expect(feed(r, Self.frame56, frame: 56) { $0.isIncomplete })
        #expect(r.pendingCount == 1)
        feed(r, Self.frame57, frame: 57) { res in
            guard let p = res.pdu else {
                Issue.record("\(res)")
                return
            }
            #expect(p.length == 43 && p.channel == 4 && p.payload.count == 43)
            #expect(p.firstFrame == 56 && p.lastFrame == 57 && p.fragmentCount == 2)
            guard case .writeRequest(let w) = ATTPDU(p.payload) else {
                Issue.record("not a write")
                return
            }
            #expect(w.handle == 0x0012 && w.value.count == 40)
            #expect(Hex.string(w.value).hasSuffix("2b0a82f4"))
        }
        #expect(r.pendingCount == 0 && r.abandoned == nil)
    }

    // 27-byte fragmentation of a 65-byte SMP Public Key PDU (69 bytes with header), RX style:
    // PB 0b10 then two 0b01, as indications_and_errors frame 107 arrives.
    @Test func threeFragmentsRX() {
        let r = L2CAPReassembler()
        var pdu = [UInt8](Hex.bytes("4100 0600 0c")!)
        pdu += (0..<64).map { UInt8($0) }
        let f1 = Array(pdu[0..<27])
        let f2 = Array(pdu[27..<54])
        let f3 = Array(pdu[54...])
        #expect(
            feed(r, aclBytes(handle: 1, pb: 0b10, Hex.string(f1)), frame: 105, direction: .received) { $0.isIncomplete }
        )
        #expect(
            feed(r, aclBytes(handle: 1, pb: 0b01, Hex.string(f2)), frame: 106, direction: .received) { $0.isIncomplete }
        )
        feed(r, aclBytes(handle: 1, pb: 0b01, Hex.string(f3)), frame: 107, direction: .received) { res in
            guard let p = res.pdu else {
                Issue.record("\(res)")
                return
            }
            #expect(p.channel == 6 && p.fragmentCount == 3 && p.firstFrame == 105 && p.lastFrame == 107)
            guard case .pairingPublicKey(let k) = SMPPDU(p.payload) else {
                Issue.record("not a key")
                return
            }
            #expect(k.x.elementsEqual(0..<32) && k.y.elementsEqual(32..<64))
        }
    }

    @Test func headerSplitAcrossFragments() {
        let r = L2CAPReassembler()
        #expect(feed(r, aclBytes(handle: 2, pb: 0b00, "0500"), frame: 1) { $0.isIncomplete })
        #expect(feed(r, aclBytes(handle: 2, pb: 0b01, "04"), frame: 2) { $0.isIncomplete })
        feed(r, aclBytes(handle: 2, pb: 0b01, "00 12 1100 0100"), frame: 3) { res in
            #expect(res.pdu?.channel == 4 && res.pdu?.fragmentCount == 3 && res.pdu?.payload.count == 5)
        }
    }

    @Test func continuationWithoutStart() {
        let r = L2CAPReassembler()
        feed(r, Self.frame57, frame: 57) { res in
            guard case .malformed(let note, let raw, let salvaged) = res else {
                Issue.record("\(res)")
                return
            }
            #expect("\(note)" == "continuation without start" && raw.count == 20 && salvaged == nil)
        }
        #expect(r.pendingCount == 0)
    }

    @Test func newStartWhilePendingAbandonsTheOldPDU() {
        let r = L2CAPReassembler()
        #expect(feed(r, Self.frame56, frame: 56) { $0.isIncomplete })
        // A complete notification starts on the same stream before the write finished.
        feed(r, aclBytes(handle: 1, pb: 0b00, "0700 0400 1b 1000 16466d03"), frame: 58) { res in
            #expect(res.pdu?.firstFrame == 58)
        }
        let a = r.abandoned
        #expect(a?.reason == .restarted && a?.handle == 1 && a?.direction == .sent && a?.controllerIndex == 0)
        #expect(a?.firstFrame == 56 && a?.lastFrame == 56 && a?.fragmentCount == 1)
        #expect(a?.collected == 27 && a?.expected == 47)
        // The late continuation now has no start.
        #expect(feed(r, Self.frame57, frame: 59) { $0.malformedNote } == "continuation without start")
        #expect(r.abandoned == nil)
    }

    @Test func newFragmentedStartWhilePendingReusesTheStream() {
        let r = L2CAPReassembler()
        #expect(feed(r, Self.frame56, frame: 56) { $0.isIncomplete })
        #expect(feed(r, Self.frame56, frame: 60) { $0.isIncomplete })
        #expect(r.abandoned?.reason == .restarted && r.abandoned?.firstFrame == 56)
        #expect(r.pendingCount == 1)
        #expect(feed(r, Self.frame57, frame: 61) { $0.pdu.map { ($0.firstFrame, $0.lastFrame) } ?? (0, 0) } == (60, 61))
    }

    @Test func moreBytesThanTheL2CAPLength() {
        let r = L2CAPReassembler()
        // Single packet: L2CAP length 3 but 5 payload bytes.
        feed(r, aclBytes(handle: 1, pb: 0b10, "0300 0400 1e aabb ccdd"), frame: 1, direction: .received) { res in
            guard case .malformed(let note, let raw, let salvaged) = res else {
                Issue.record("\(res)")
                return
            }
            #expect("\(note)" == "more bytes than the L2CAP length" && raw.count == 9)
            #expect(salvaged?.payload.elementsEqual([0x1E, 0xAA, 0xBB]) == true)
        }
        // Fragmented: 47 expected, the continuation brings 25 instead of 20.
        #expect(feed(r, Self.frame56, frame: 2) { $0.isIncomplete })
        feed(r, aclBytes(handle: 1, pb: 0b01, "cec6a0e7652ec79b12c1d005fcab094c2b0a82f4 0102030405"), frame: 3) { res in
            guard case .malformed(let note, let raw, let salvaged) = res else {
                Issue.record("\(res)")
                return
            }
            #expect("\(note)" == "more bytes than the L2CAP length" && raw.count == 25)
            #expect(salvaged?.payload.count == 43 && salvaged?.fragmentCount == 2 && salvaged?.lastFrame == 3)
        }
        #expect(r.pendingCount == 0)
        // Header split, then a fragment overshooting the now-known length.
        #expect(feed(r, aclBytes(handle: 1, pb: 0b00, "01"), frame: 4) { $0.isIncomplete })
        feed(r, aclBytes(handle: 1, pb: 0b01, "00 0400 1e ffff"), frame: 5) { res in
            #expect(res.malformedNote == "more bytes than the L2CAP length")
            if case .malformed(_, _, let s) = res { #expect(s?.payload.elementsEqual([0x1E]) == true) }
        }
    }

    @Test func maximumLengthPDUIsBoundedAndCompletes() {
        let r = L2CAPReassembler()
        // Declares 65535 payload bytes; feed 65539 bytes in 27-byte fragments.
        var total = 0
        var frame = 0
        var result: Int? = nil
        let first = aclBytes(handle: 3, pb: 0b00, "ffff 4000" + String(repeating: "ab", count: 23))
        #expect(feed(r, first, frame: 0) { $0.isIncomplete })
        total = 27
        let chunk = aclBytes(handle: 3, pb: 0b01, String(repeating: "cd", count: 27))
        while total < L2CAPReassembler.maximumPDUSize {
            frame += 1
            let n = min(27, L2CAPReassembler.maximumPDUSize - total)
            let bytes = n == 27 ? chunk : aclBytes(handle: 3, pb: 0b01, String(repeating: "cd", count: n))
            total += n
            feed(r, bytes, frame: frame) { res in
                if let p = res.pdu {
                    result = p.payload.count
                    #expect(p.channel == 0x0040 && p.length == 0xFFFF)
                }
            }
        }
        #expect(result == 65535)
    }

    @Test func interleavedHandlesAndDirections() {
        let r = L2CAPReassembler()
        // Same handle both directions, plus handle 2, plus handle 1 on controller 1.
        let tx1 = aclBytes(handle: 1, pb: 0b00, "0500 0400 12 1100")
        let tx2 = aclBytes(handle: 1, pb: 0b01, "0100")
        let rx1 = aclBytes(handle: 1, pb: 0b10, "0500 0400 1b 10")
        let rx2 = aclBytes(handle: 1, pb: 0b01, "00 aabb")
        let h2a = aclBytes(handle: 2, pb: 0b10, "0300 0400 0a")
        let h2b = aclBytes(handle: 2, pb: 0b01, "1300")
        #expect(feed(r, tx1, frame: 1, direction: .sent) { $0.isIncomplete })
        #expect(feed(r, rx1, frame: 2, direction: .received) { $0.isIncomplete })
        #expect(feed(r, h2a, frame: 3, direction: .received) { $0.isIncomplete })
        #expect(feed(r, tx1, frame: 4, direction: .sent, controller: 1) { $0.isIncomplete })
        #expect(r.pendingCount == 4 && r.abandoned == nil)
        feed(r, rx2, frame: 5, direction: .received) { res in
            #expect(res.pdu.map { ATTPDU.handle(of: $0.payload) } == 0x0010)
            #expect(res.pdu?.firstFrame == 2)
        }
        feed(r, h2b, frame: 6, direction: .received) { res in
            #expect(res.pdu?.handle == 2 && res.pdu.map { ATTPDU.handle(of: $0.payload) } == 0x0013)
        }
        feed(r, tx2, frame: 7, direction: .sent) { res in
            #expect(res.pdu?.firstFrame == 1 && res.pdu?.controllerIndex == 0)
            #expect(res.pdu.map { Hex.string($0.payload) } == "1211000100")
        }
        feed(r, tx2, frame: 8, direction: .sent, controller: 1) { res in
            #expect(res.pdu?.firstFrame == 4 && res.pdu?.controllerIndex == 1)
        }
        #expect(r.pendingCount == 0)
    }

    @Test func handleReuseAfterReset() {
        let r = L2CAPReassembler()
        #expect(feed(r, Self.frame56, frame: 56) { $0.isIncomplete })
        #expect(feed(r, aclBytes(handle: 1, pb: 0b10, "0500 04"), frame: 57, direction: .received) { $0.isIncomplete })
        // Another connection's handle is untouched.
        #expect(feed(r, aclBytes(handle: 2, pb: 0b00, "0500 04"), frame: 58) { $0.isIncomplete })
        // Disconnection Complete for handle 1: both directions dropped.
        #expect(r.reset(handle: 1) == 2)
        #expect(r.pendingCount == 1)
        // The new connection on handle 1 must not be glued to the old bytes.
        #expect(feed(r, Self.frame57, frame: 70) { $0.malformedNote } == "continuation without start")
        #expect(
            feed(r, aclBytes(handle: 2, pb: 0b01, "00 1e 0000 000000"), frame: 71) { $0.malformedNote }
                == "more bytes than the L2CAP length")
        r.reset()
        #expect(r.pendingCount == 0)
    }

    @Test func streamCapEvictsTheStalest() {
        let r = L2CAPReassembler(maximumStreams: 2)
        #expect(feed(r, aclBytes(handle: 1, pb: 0b00, "0500 04"), frame: 1) { $0.isIncomplete })
        #expect(feed(r, aclBytes(handle: 2, pb: 0b00, "0500 04"), frame: 2) { $0.isIncomplete })
        // Handle 1 gets a continuation, so handle 2 is now the stalest.
        #expect(feed(r, aclBytes(handle: 1, pb: 0b01, "00"), frame: 3) { $0.isIncomplete })
        #expect(feed(r, aclBytes(handle: 3, pb: 0b00, "0500 04"), frame: 4) { $0.isIncomplete })
        #expect(r.abandoned?.reason == .evicted && r.abandoned?.handle == 2 && r.abandoned?.expected == nil)
        #expect(r.pendingCount == 2)
        #expect(
            feed(r, aclBytes(handle: 2, pb: 0b01, "00 1e"), frame: 5) { $0.malformedNote }
                == "continuation without start")
        #expect(feed(r, aclBytes(handle: 1, pb: 0b01, "1e 1000 0000"), frame: 6) { $0.pdu?.firstFrame } == 1)
        #expect(feed(r, aclBytes(handle: 3, pb: 0b01, "00 1e 1000 0000"), frame: 7) { $0.pdu?.firstFrame } == 4)
    }

    @Test func recordFeedIgnoresNonACLAndFlagsShortHeaders() {
        let r = L2CAPReassembler()
        [UInt8]([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]).withByteView { v in
            let rec = CaptureRecord(
                frame: 1, timestamp: 0, direction: .received, kind: .hciEvent, rawType: 4,
                payload: v, originalLength: 6, fileOffset: 0, recordLength: 6)
            #expect(r.feed(rec) == nil)
        }
        [UInt8]([0x01, 0x00, 0x05]).withByteView { v in
            let rec = CaptureRecord(
                frame: 2, timestamp: 0, direction: .sent, kind: .aclData, rawType: 2,
                payload: v, originalLength: 3, fileOffset: 0, recordLength: 3)
            #expect(r.feed(rec)?.malformedNote == "ACL header truncated")
        }
    }
}
