import BLEBytes
import BLEPackets
import CaptureIO
import Foundation
import TestSupport
import Testing

/// decode(encode(x)) == x for representative values of every ATT PDU and of the HCI, ACL and
/// L2CAP types that have an encoder.
@Suite struct EncodeRoundTripTests {
    static let peer = BDAddr("C0:FF:EE:00:00:01")!

    /// Encodes, checks the opcode byte, decodes with the type's own decoder. Only for types
    /// without views: the bytes are gone when this returns.
    func roundTrip<T: ATTPDUType>(_ pdu: T) -> (bytes: [UInt8], decoded: T?) {
        let bytes = pdu.encoded()
        #expect(bytes.first == T.opcode.rawValue)
        return (bytes, bytes.withByteView { T(pdu: $0) })
    }

    /// The same for types holding views into the bytes: `check` runs while they are valid.
    func roundTrip<T: ATTPDUType>(_ pdu: T, _ check: (T) throws -> Void) throws {
        let bytes = pdu.encoded()
        #expect(bytes.first == T.opcode.rawValue)
        try bytes.withByteView { v in try check(try #require(T(pdu: v))) }
    }

    @Test func fixedLayoutATTPDUs() throws {
        let e = try #require(
            roundTrip(
                ATTErrorResponse(
                    requestOpcode: .readRequest, handle: 0x0203,
                    errorCode: ATTErrorCode.readNotPermitted)
            ).decoded)
        #expect(e.requestOpcode == .readRequest && e.handle == 0x0203 && e.errorCode == ATTErrorCode.readNotPermitted)
        #expect(
            ATTErrorResponse(requestOpcode: .readRequest, handle: 0x0203, errorCode: 0x02).encoded()
                == [0x01, 0x0A, 0x03, 0x02, 0x02])
        #expect(roundTrip(ATTExchangeMTURequest(clientRxMTU: 517)).decoded?.clientRxMTU == 517)
        #expect(roundTrip(ATTExchangeMTUResponse(serverRxMTU: 247)).decoded?.serverRxMTU == 247)
        let fi = try #require(roundTrip(ATTFindInformationRequest(startingHandle: 1, endingHandle: 0xFFFF)).decoded)
        #expect(fi.startingHandle == 1 && fi.endingHandle == 0xFFFF)
        #expect(roundTrip(ATTReadRequest(handle: 0x002A)).decoded?.handle == 0x002A)
        let blob = try #require(roundTrip(ATTReadBlobRequest(handle: 0x002A, offset: 22)).decoded)
        #expect(blob.handle == 0x002A && blob.offset == 22)
        #expect(
            roundTrip(ATTExecuteWriteRequest(flags: ATTExecuteWriteRequest.writeAllPreparedWrites)).decoded?.flags == 1)
        #expect(ATTWriteResponse().encoded() == [0x13])
        #expect(ATTExecuteWriteResponse().encoded() == [0x19])
        #expect(ATTHandleValueConfirmation().encoded() == [0x1E])
        #expect(roundTrip(ATTWriteResponse()).decoded != nil)
    }

    @Test func valueCarryingATTPDUs() throws {
        let value: [UInt8] = [0x16, 0x48, 0x00, 0xFF]
        try value.withByteView { v in
            try roundTrip(ATTReadResponse(value: v)) { #expect($0.value.elementsEqual(value)) }
            try roundTrip(ATTReadBlobResponse(partValue: v)) { #expect($0.partValue.elementsEqual(value)) }
            try roundTrip(ATTReadMultipleResponse(values: v)) { #expect($0.values.elementsEqual(value)) }
            func handleValue<T: ATTHandleValuePDU>(_ t: T.Type) throws {
                try roundTrip(T(handle: 0x0010, value: v)) { d in
                    #expect(d.handle == 0x0010 && d.value.elementsEqual(value))
                }
                #expect(T.encoded(handle: 0x0010, value: value) == [T.opcode.rawValue, 0x10, 0x00] + value)
            }
            try handleValue(ATTWriteRequest.self)
            try handleValue(ATTWriteCommand.self)
            try handleValue(ATTHandleValueNotification.self)
            try handleValue(ATTHandleValueIndication.self)
            func prepare<T: ATTPrepareWritePDU>(_ t: T.Type) throws {
                try roundTrip(T(handle: 0x0012, offset: 18, partValue: v)) { d in
                    #expect(d.handle == 0x0012 && d.offset == 18 && d.partValue.elementsEqual(value))
                }
            }
            try prepare(ATTPrepareWriteRequest.self)
            try prepare(ATTPrepareWriteResponse.self)
            let signature: [UInt8] = Array(1...12)
            try signature.withByteView { s in
                try roundTrip(ATTSignedWriteCommand(handle: 0x0020, value: v, signature: s)) { d in
                    #expect(d.handle == 0x0020 && d.value.elementsEqual(value) && d.signature.elementsEqual(signature))
                    #expect(d.signCounter == 0x0403_0201)
                }
            }
            try roundTrip(
                ATTFindByTypeValueRequest(
                    startingHandle: 1, endingHandle: 0xFFFF,
                    attributeType: GATTDeclaration.primaryService, attributeValue: v)
            ) { typed in
                #expect(typed.attributeType == 0x2800 && typed.attributeValue.elementsEqual(value))
            }
        }
    }

    @Test func typedRequests() throws {
        let u128 = BluetoothUUID("F0A3C006-6C1E-4D5B-9A57-2B8E1A6B3C61")!
        var w = ByteWriter()
        w.appendUUID(u128, width: 16)
        try w.bytes.withByteView { t in
            try roundTrip(ATTReadByTypeRequest(startingHandle: 1, endingHandle: 9, attributeType: t)) {
                #expect($0.attributeType == u128 && $0.endingHandle == 9)
            }
            try roundTrip(ATTReadByGroupTypeRequest(startingHandle: 1, endingHandle: 9, groupType: t)) {
                #expect($0.groupType == u128 && $0.startingHandle == 1)
            }
        }
        let short = ATTReadByTypeRequest.encoded(
            startingHandle: 1, endingHandle: 0xFFFF, type16: GATTDeclaration.characteristic)
        #expect(short == [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28])
        #expect(short.withByteView { ATTReadByTypeRequest(pdu: $0)?.attributeType } == BluetoothUUID(uuid16: 0x2803))
        let group = ATTReadByGroupTypeRequest.encoded(startingHandle: 1, endingHandle: 0xFFFF, type16: 0x2800)
        #expect(group.withByteView { ATTReadByGroupTypeRequest(pdu: $0)?.groupType } == BluetoothUUID(uuid16: 0x2800))
        let handles: [UInt8] = [0x03, 0x00, 0x05, 0x00]
        try handles.withByteView { h in
            try roundTrip(ATTReadMultipleRequest(handles: h)) { #expect($0.handles.map(\.handle) == [3, 5]) }
            try roundTrip(ATTReadMultipleVariableRequest(handles: h)) { #expect($0.handles.map(\.handle) == [3, 5]) }
        }
        let tuples: [UInt8] = [0x02, 0x00, 0xAA, 0xBB, 0x01, 0x00, 0xCC]
        try tuples.withByteView { t in
            try roundTrip(ATTReadMultipleVariableResponse(tuples: t)) { d in
                #expect(d.tuples.map { $0.value.toArray() } == [[0xAA, 0xBB], [0xCC]])
            }
        }
        let hlv: [UInt8] = [0x10, 0x00, 0x01, 0x00, 0x7F, 0x12, 0x00, 0x02, 0x00, 0x01, 0x02]
        try hlv.withByteView { t in
            try roundTrip(ATTMultipleHandleValueNotification(tuples: t)) { d in
                #expect(d.tuples.map(\.handle) == [0x10, 0x12])
            }
        }
    }

    @Test func listResponsesPackWhatFits() throws {
        // Find Information: 16-bit pairs until the first 128-bit one; ATT_MTU 23 holds 5 pairs.
        let pairs: [(handle: UInt16, uuid: [UInt8])] =
            (1...8).map { (handle: UInt16($0), uuid: [UInt8($0), 0x29]) }
            + [(handle: UInt16(9), uuid: [UInt8](repeating: 0xAB, count: 16))]
        let fi = try #require(ATTFindInformationResponse.encoded(pairs, mtu: 23))
        let d = try #require(
            fi.withByteView { ATTFindInformationResponse(pdu: $0) }.map { r in
                (r.format, r.information.map { (e: ATTHandleUUID) in e.handle })
            })
        #expect(d.0 == ATTFindInformationResponse.format16BitUUIDs && d.1 == [1, 2, 3, 4, 5])
        #expect(ATTFindInformationResponse.encoded(pairs, mtu: 517)?.count == 2 + 8 * 4)
        #expect(ATTFindInformationResponse.encoded(pairs, mtu: 517, maximumEntries: 2)?.count == 2 + 2 * 4)
        #expect(ATTFindInformationResponse.encoded([(handle: UInt16, uuid: [UInt8])](), mtu: 23) == nil)
        let long = try #require(ATTFindInformationResponse.encoded(Array(pairs.suffix(1)), mtu: 23))
        #expect(
            long.withByteView { v in ATTFindInformationResponse(pdu: v).map { Array($0.information).first?.handle } }
                == 9)

        let ranges = [(handle: UInt16(1), groupEnd: UInt16(5)), (handle: 6, groupEnd: 0xFFFF)]
        let fbtv = try #require(ATTFindByTypeValueResponse.encoded(ranges, mtu: 23))
        #expect(
            fbtv.withByteView { ATTFindByTypeValueResponse(pdu: $0)?.handlesInformation.map(\.endGroupHandle) } == [
                5, 0xFFFF,
            ])

        // Read By Type: entries of the first one's length only.
        let entries: [[UInt8]] = [
            [0x02, 0x00, 0x02, 0x03, 0x00, 0x00, 0x2A], [0x04, 0x00, 0x02, 0x05, 0x00, 0x01, 0x2A],
            [0x06, 0x00, 0x02, 0x07, 0x00] + [UInt8](repeating: 1, count: 16),
        ]
        let rbt = try #require(ATTReadByTypeResponse.encoded(entries, mtu: 23))
        let parsed = try #require(
            rbt.withByteView { ATTReadByTypeResponse(pdu: $0) }.map { ($0.length, $0.attributeData.map(\.handle)) })
        #expect(parsed.0 == 7 && parsed.1 == [2, 4])
        let groups: [[UInt8]] = [[0x01, 0x00, 0x05, 0x00, 0x00, 0x18], [0x06, 0x00, 0x09, 0x00, 0x01, 0x18]]
        let rbg = try #require(ATTReadByGroupTypeResponse.encoded(groups, mtu: 23))
        #expect(
            rbg.withByteView { ATTReadByGroupTypeResponse(pdu: $0)?.attributeData.map(\.endGroupHandle) } == [5, 9])
    }

    @Test func hciCommands() throws {
        let d = try #require(
            h4Decode(HCIDisconnect(handle: 0x0040, reason: HCIError.remoteUserTerminatedConnection)) {
                HCIDisconnect(parameters: $0.parameters)
            })
        #expect(d.handle == 0x0040 && d.reason == 0x13)
        let sp = try #require(
            h4Decode(
                HCILESetScanParameters(
                    scanType: 1, interval: 0x30, window: 0x30, ownAddressType: 1,
                    filterPolicy: 0)
            ) { HCILESetScanParameters(parameters: $0.parameters) })
        #expect(sp.isActive && sp.interval == 0x30 && sp.ownAddressType == 1)
        let se = try #require(
            h4Decode(HCILESetScanEnable(enable: true, filterDuplicates: 1)) {
                HCILESetScanEnable(parameters: $0.parameters)
            })
        #expect(se.enable && se.filterDuplicates == 1)
        let ext = HCILESetExtendedScanParameters.h4Encoded(
            ownAddressType: 1, filterPolicy: 0, scanType: 1, interval: 0x60,
            window: 0x30)
        let xp = try #require(
            ext.withByteView { $0.suffix(from: 1).flatMap(HCICommandPacket.init) }
                .flatMap { HCILESetExtendedScanParameters(parameters: $0.parameters) })
        #expect(xp.entryPHYs == [1])
        let xe0 = xp.entries
        #expect(xe0.count == 1 && xe0[0].isActive && xe0[0].interval == 0x60 && xe0[0].window == 0x30)
        let xe = try #require(
            h4Decode(HCILESetExtendedScanEnable(enable: true, filterDuplicates: 0, duration: 100, period: 0)) {
                HCILESetExtendedScanEnable(parameters: $0.parameters)
            })
        #expect(xe.enable && xe.duration == 100)
        let cc = HCIConnectionParameters(intervalMin: 24, intervalMax: 40, maxLatency: 0, supervisionTimeout: 72)
        let create = try #require(
            h4Decode(
                HCILECreateConnection(
                    scanInterval: 96, scanWindow: 48, initiatorFilterPolicy: 0,
                    peerAddressType: 1, peerAddress: Self.peer, ownAddressType: 0,
                    connection: cc)
            ) {
                HCILECreateConnection(parameters: $0.parameters)
            })
        #expect(create.peerAddress == Self.peer && create.connection == cc && create.peerAddressType == 1)
        #expect(HCISynthesis.command(HCIOpcode.reset) == [H4PacketType.command, 0x03, 0x0C, 0x00])
    }

    /// Encodes with the H4 type, checks it and the declared length, decodes the packet.
    func h4Decode<C: HCICommandEncodable, T>(_ c: C, _ decode: (HCICommandPacket) -> T?) -> T? {
        let bytes = c.h4Encoded()
        #expect(bytes.first == H4PacketType.command)
        return bytes.withByteView { v -> T? in
            guard let p = v.suffix(from: 1).flatMap(HCICommandPacket.init) else { return nil }
            #expect(p.opcode == c.commandOpcode && !p.lengthMismatch)
            return decode(p)
        }
    }

    func eventDecode<E: HCIEventEncodable, T>(_ e: E, _ decode: (HCIEventPacket) -> T?) -> T? {
        let bytes = e.h4Encoded()
        #expect(bytes.first == H4PacketType.event)
        return bytes.withByteView { v -> T? in
            guard let p = v.suffix(from: 1).flatMap(HCIEventPacket.init) else { return nil }
            #expect(p.code == e.eventCode && !p.lengthMismatch)
            return decode(p)
        }
    }

    @Test func hciEvents() throws {
        let ret: [UInt8] = [0x00, 0x1B, 0x00, 0x08]
        let (cc, rbs) = try ret.withByteView { r in
            try #require(
                eventDecode(HCICommandComplete(numPackets: 1, opcode: HCIOpcode.leReadBufferSize, returnParameters: r))
                {
                    // The return parameters are a view into the packet: read them here.
                    HCICommandComplete(parameters: $0.parameters).flatMap { c in
                        HCILEReadBufferSize(returnParameters: c.returnParameters).map {
                            ((c.opcode, c.status, c.numPackets), $0)
                        }
                    }
                })
        }
        #expect(cc.0 == HCIOpcode.leReadBufferSize && cc.1 == 0 && cc.2 == 1)
        #expect(rbs.leACLDataPacketLength == 27 && rbs.totalNumLEACLDataPackets == 8)
        var rw = ByteWriter()
        rbs.appendReturnParameters(to: &rw)
        #expect(rw.bytes == ret)
        let cs = try #require(
            eventDecode(HCICommandStatus(status: 0, numPackets: 1, opcode: HCIOpcode.leCreateConnection)) {
                HCICommandStatus(parameters: $0.parameters)
            })
        #expect(cs.opcode == HCIOpcode.leCreateConnection && cs.status == 0)
        let dc = try #require(
            eventDecode(HCIDisconnectionComplete(status: 0, handle: 0x0040, reason: 0x16)) {
                HCIDisconnectionComplete(parameters: $0.parameters)
            })
        #expect(dc.handle == 0x0040 && dc.reason == HCIError.connectionTerminatedByLocalHost)
        let nocp = HCINumberOfCompletedPackets.h4Encoded([.init(handle: 0x40, count: 2), .init(handle: 0x41, count: 1)])
        let entries = try #require(
            nocp.withByteView { v in
                v.suffix(from: 1).flatMap(HCIEventPacket.init).flatMap {
                    HCINumberOfCompletedPackets(parameters: $0.parameters)
                }
                .map { Array($0.entries) }
            })
        #expect(entries == [.init(handle: 0x40, count: 2), .init(handle: 0x41, count: 1)])

        let lcc = try #require(
            eventDecode(
                HCILEConnectionComplete(
                    status: 0, handle: 0x0040, role: HCIRole.peripheral, peerAddressType: 1, peerAddress: Self.peer,
                    interval: 24,
                    latency: 0, supervisionTimeout: 72, centralClockAccuracy: 1)
            ) { HCILEConnectionComplete(parameters: $0.subeventParameters) })
        #expect(
            lcc.handle == 0x0040 && !lcc.isCentral && lcc.peerAddress == Self.peer && lcc.supervisionTimeout == 72
                && lcc.centralClockAccuracy == 1)
        let rpa = BDAddr("4A:00:00:00:00:02")!
        for (ah, sh) in [(UInt8?.none, UInt16?.none), (UInt8(2), UInt16(0x0FFF))] {
            let e = HCILEEnhancedConnectionComplete(
                status: 0, handle: 1, role: 0, peerAddressType: 3, peerAddress: Self.peer,
                localResolvablePrivateAddress: rpa,
                peerResolvablePrivateAddress: rpa, interval: 6, latency: 0, supervisionTimeout: 100,
                centralClockAccuracy: 0,
                advertisingHandle: ah, syncHandle: sh)
            let d = try #require(
                eventDecode(e) {
                    $0.subeventCode == e.subeventCode
                        ? HCILEEnhancedConnectionComplete(parameters: $0.subeventParameters, version: e.version) : nil
                })
            #expect(d.version == (ah == nil ? 1 : 2) && d.localResolvablePrivateAddress == rpa && d.syncHandle == sh)
        }

        let data: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18]
        let adv = HCISynthesis.advertisingReport(
            eventType: HCILEAdvertisingReportEntry.advInd, addressType: 1,
            address: Self.peer, data: data, rssi: -60)
        let reports = try #require(
            adv.withByteView { v in
                v.suffix(from: 1).flatMap(HCIEventPacket.init).flatMap {
                    HCILEAdvertisingReport(parameters: $0.subeventParameters)
                }
                .map { r in (r.isComplete, r.reports.map { ($0.address, $0.rssi, $0.data.toArray()) }) }
            })
        #expect(
            reports.0 && reports.1.count == 1 && reports.1[0].0 == Self.peer && reports.1[0].1 == -60
                && reports.1[0].2 == data)

        var body = ByteWriter()
        data.withByteView {
            HCILEExtendedAdvertisingReportEntry(
                eventType: HCILEExtendedAdvertisingReportEntry.connectableBit
                    | HCILEExtendedAdvertisingReportEntry.legacyBit,
                addressType: 0, address: Self.peer, primaryPHY: 1, secondaryPHY: 0, advertisingSID: 0xFF, txPower: 127,
                rssi: -70, periodicAdvertisingInterval: 0, directAddressType: 0, directAddress: BDAddr(rawValue: 0),
                data: $0
            )
            .append(to: &body)
        }
        let ext = try #require(
            body.bytes.withByteView { b in
                eventDecode(HCILEExtendedAdvertisingReport(declaredCount: 1, reports: b)) {
                    HCILEExtendedAdvertisingReport(parameters: $0.subeventParameters)
                        .map { r in
                            (
                                r.isComplete,
                                r.reports.map { ($0.isConnectable, $0.isLegacy, $0.rssi, $0.data.toArray()) }
                            )
                        }
                }
            })
        #expect(ext.0 && ext.1.count == 1 && ext.1[0].0 && ext.1[0].1 && ext.1[0].2 == -70 && ext.1[0].3 == data)
    }

    /// An ATT PDU longer than the buffer becomes a start fragment and continuations, which the
    /// reassembler puts back together.
    @Test func aclFragmentationReassembles() throws {
        let payload = (0..<60).map { UInt8($0) }
        for received in [false, true] {
            let packets = HCISynthesis.acl(handle: 0x0041, payload: payload, received: received, fragment: 27)
            #expect(packets.map(\.count) == [1 + 4 + 27, 1 + 4 + 27, 1 + 4 + 10])
            let flags = packets.map { $0.withByteView { HCIACLPacket($0.suffix(from: 1)!)!.boundary } }
            #expect(flags == [received ? .firstFlushable : .firstNonFlushable, .continuing, .continuing])
            let r = L2CAPReassembler()
            var done: L2CAPPDU?
            var frame = 0
            for p in packets {
                frame += 1
                try p.withByteView { v in
                    let acl = try #require(HCIACLPacket(v.suffix(from: 1)!))
                    #expect(acl.handle == 0x0041 && !acl.lengthMismatch)
                    if case .complete(let pdu) = r.feed(
                        acl, frame: frame, direction: received ? .received : .sent,
                        controllerIndex: 0)
                    {
                        #expect(
                            pdu.channel == L2CAPChannel.att && pdu.payload.elementsEqual(payload)
                                && pdu.fragmentCount == 3)
                        done = pdu
                    }
                }
            }
            #expect(done != nil)
        }
        // A frame that fits is one packet; its basic header round-trips.
        let single = L2CAPBasicFrame.aclPackets(
            channel: L2CAPChannel.smp, payload: [0x01, 0x03], handle: 1,
            first: .firstNonFlushable, bufferSize: 251)
        #expect(single == [[0x02, 0x01, 0x00, 0x06, 0x00, 0x02, 0x00, 0x06, 0x00, 0x01, 0x03]])
        let header = try #require(single[0].withByteView { L2CAPBasicFrame($0.suffix(from: 5)!) })
        #expect(header.channel == L2CAPChannel.smp && header.isComplete && header.encoded() == Array(single[0][5...]))
    }
}
