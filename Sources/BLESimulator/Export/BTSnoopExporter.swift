import BLEBytes
import BLEPackets
import BLETimeline
import CaptureIO
import Foundation

/// Exports a simulated run as the capture the phone's HCI would have logged: btsnoop, datalink
/// 1002 (H4), readable by blecap, Wireshark and tshark.
///
/// The central's side is synthesized from the trace's radio events, with the virtual clock's
/// timestamps (`SimulatedWorld.Configuration.epochMicros` + the run's time):
/// - power-on: HCI Reset and LE Read Buffer Size, each with its Command Complete (the
///   controller reports 27-byte LE ACL buffers, `aclDataLength`);
/// - a scan: LE Set Scan Parameters and LE Set Scan Enable (extended variants when the event
///   says so), each with Command Complete; advertising reports (data beyond 31 bytes in a
///   scan response, cut at AD-structure boundaries);
/// - a connection: LE Create Connection + Command Status, LE Connection Complete; a cancelled
///   attempt: LE Create Connection Cancel + Command Complete, then LE Connection Complete with
///   Unknown Connection Identifier (7.8.13);
/// - ATT over L2CAP (CID 0x0004) over ACL, cut to 27-byte fragments, requests and write
///   commands sent (Packet Boundary 0b00 then 0b01, each fragment followed by Number Of
///   Completed Packets), responses and notifications received (0b10 then 0b01); responses at
///   the request's time plus its latency;
/// - the end: HCI Disconnect (0x13) + Command Status + Disconnection Complete when the central
///   ended it, Disconnection Complete alone otherwise.
///
/// One simulated discovery event is one request and its response (the simulator models a
/// procedure as one exchange), the response listing what the peripheral's attribute table
/// holds in the range, as far as one PDU carries. A read longer than ATT_MTU − 1 continues
/// with Read Blob requests, as Core Bluetooth's would (Vol 3 Part G 4.8.3).
public struct BTSnoopExporter {
    /// LE ACL data packet length the synthesized controller reports (the Core minimum, 27).
    public static let aclDataLength = 27
    public static let aclBuffers = 8

    public let world: SimulatedWorld

    public init(world: SimulatedWorld) { self.world = world }

    /// The whole file.
    public func bytes() -> [UInt8] {
        var writer = BTSnoopWriter()
        for em in emissions() {
            for p in em.packets { writer.append(p.bytes, received: p.received, unixMicros: em.time) }
        }
        return writer.bytes
    }

    /// The same packets as pcapng (`PcapngWriter`, link type 201), for Wireshark: with
    /// `comments`, the first packet of each trace event says which one (its sequence number
    /// and type, as in the trace's JSONL).
    public func pcapng(comments: Bool = true) -> [UInt8] {
        var writer = PcapngWriter(application: "blecap BLESimulator")
        for em in emissions() {
            for (i, p) in em.packets.enumerated() {
                writer.append(
                    p.bytes, received: p.received, unixMicros: em.time,
                    comment: comments && i == 0 ? em.comment : nil)
            }
        }
        return writer.bytes
    }

    /// What the file holds, in file order.
    private func emissions() -> [Emission] {
        var emissions: [Emission] = []
        var connections: [Int: (handle: UInt16, peer: BDAddr?)] = [:]
        var mtu: [Int: Int] = [:]
        let epoch = world.configuration.epochMicros
        emissions.append(Emission(key: 0, time: epoch, packets: powerOn(), event: nil))

        for e in world.trace.radioEvents {
            let responseTime = e.time &+ (e.outcome.latency ?? 0)
            let responseKey = e.outcome.responseFrame
            var now: [HCIRecord] = []
            var later: [HCIRecord] = []
            switch e.kind {
            case .power:
                if e.value.bytes.first == 1 { now = powerOn() }
            case .scanStart(let s):
                now = scanStart(s)
            case .scanStop:
                let opcode = HCIOpcode.leSetScanEnable
                now = [
                    .sent(HCILESetScanEnable(enable: false, filterDuplicates: 0).h4Encoded()),
                    .received(HCISynthesis.commandComplete(opcode)),
                ]
            case .advertisement(let a):
                guard let peer = e.peer else { break }
                let split = HCISynthesis.splitAdvertisingData(e.value.bytes)
                now = [
                    .received(
                        HCISynthesis.advertisingReport(
                            eventType: UInt8(truncatingIfNeeded: a.eventType),
                            addressType: e.peerAddressType ?? 0, address: peer,
                            data: split.advertising, rssi: a.rssi))
                ]
                if !split.scanResponse.isEmpty {
                    now.append(
                        .received(
                            HCISynthesis.advertisingReport(
                                eventType: HCILEAdvertisingReportEntry.scanResponse,
                                addressType: e.peerAddressType ?? 0,
                                address: peer, data: split.scanResponse,
                                rssi: a.rssi)))
                }
            case .connectionCreate(let c):
                // Own address random (0x01), as Core Bluetooth's.
                let create = HCILECreateConnection(
                    scanInterval: c.scanInterval, scanWindow: c.scanWindow, initiatorFilterPolicy: c.filterPolicy,
                    peerAddressType: e.peerAddressType ?? 0, peerAddress: e.peer ?? BDAddr(rawValue: 0),
                    ownAddressType: 0x01,
                    connection: HCIConnectionParameters(
                        intervalMin: c.intervalMin, intervalMax: c.intervalMax,
                        maxLatency: c.latency, supervisionTimeout: c.supervisionTimeout))
                now = [.sent(create.h4Encoded()), .received(HCISynthesis.commandStatus(HCIOpcode.leCreateConnection))]
            case .connectionCancel:
                let opcode = HCIOpcode.leCreateConnectionCancel
                now = [.sent(HCISynthesis.command(opcode)), .received(HCISynthesis.commandComplete(opcode))]
                if let peer = e.peer {
                    now.append(
                        .received(
                            HCISynthesis.leConnectionComplete(
                                status: HCIError.unknownConnectionIdentifier, handle: 0,
                                peerType: e.peerAddressType ?? 0,
                                peer: peer, interval: 0, latency: 0, timeout: 0)))
                }
            case .connectionComplete(let c), .connectionFailed(let c):
                if c.status == 0, let n = e.connection {
                    connections[n] = (c.handle, e.peer)
                    mtu[n] = 23
                }
                now = [
                    .received(
                        HCISynthesis.leConnectionComplete(
                            status: c.status, handle: c.handle, peerType: e.peerAddressType ?? 0,
                            peer: e.peer ?? BDAddr(rawValue: 0),
                            interval: c.timing?.interval ?? 0, latency: c.timing?.latency ?? 0,
                            timeout: c.timing?.supervisionTimeout ?? 0))
                ]
            case .disconnection(_, let reason, let side):
                guard let n = e.connection, let h = connections[n]?.handle else { break }
                if side == .local {
                    // The host asks with Remote User Terminated; the controller reports the
                    // local host ended it (7.1.6, 7.7.5).
                    now = [
                        .sent(HCIDisconnect(handle: h, reason: HCIError.remoteUserTerminatedConnection).h4Encoded()),
                        .received(HCISynthesis.commandStatus(HCIOpcode.disconnect)),
                    ]
                }
                now.append(.received(HCISynthesis.disconnectionComplete(handle: h, reason: reason)))
            default:
                guard let n = e.connection, let h = connections[n]?.handle else { break }
                let (request, response) = att(e, mtu: mtu[n] ?? 23, peer: connections[n]?.peer)
                now = request.flatMap { acl($0, handle: h) }
                later = response.flatMap { acl($0, handle: h) }
                if case .mtuExchange(_, _, let effective, _) = e.kind, responseKey != nil { mtu[n] = Int(effective) }
            }
            if !now.isEmpty {
                emissions.append(Emission(key: e.frame, time: e.time, packets: now, event: (e.frame, e.type, false)))
            }
            if !later.isEmpty, let responseKey {
                emissions.append(
                    Emission(key: responseKey, time: responseTime, packets: later, event: (e.frame, e.type, true)))
            }
        }

        // Sequence numbers are allocated in time order, so they order the file.
        emissions.sort { $0.key < $1.key }
        return emissions
    }

    /// Writes the file to `path`.
    public func write(to path: String) throws {
        try Data(bytes()).write(to: URL(fileURLWithPath: path))
    }

    // MARK: - Pieces

    private struct Emission {
        let key: Int
        let time: Int64
        let packets: [HCIRecord]
        /// The trace event (sequence number, type) the packets stand for; nil for the power-on.
        let event: (seq: Int, type: StaticString, response: Bool)?

        var comment: String {
            guard let event else { return "power on" }
            return "trace seq \(event.seq): \(event.type)\(event.response ? " (response)" : "")"
        }
    }

    private func powerOn() -> [HCIRecord] {
        let reset = HCIOpcode.reset
        let buffer = HCIOpcode.leReadBufferSize
        var returned = ByteWriter()
        HCILEReadBufferSize(
            status: HCIError.success, leACLDataPacketLength: UInt16(Self.aclDataLength),
            totalNumLEACLDataPackets: UInt8(Self.aclBuffers)
        ).appendReturnParameters(to: &returned)
        return [
            .sent(HCISynthesis.command(reset)), .received(HCISynthesis.commandComplete(reset)),
            .sent(HCISynthesis.command(buffer)),
            .received(HCISynthesis.commandComplete(buffer, returned.bytes)),
        ]
    }

    private func scanStart(_ s: ScanParameters) -> [HCIRecord] {
        let params: [UInt8]
        let paramsOpcode: UInt16
        let enable: [UInt8]
        let enableOpcode: UInt16
        let scanType: UInt8 = s.active ? 1 : 0  // 7.8.10: 0 passive, 1 active
        if s.extended {
            paramsOpcode = HCIOpcode.leSetExtendedScanParameters
            params = HCILESetExtendedScanParameters.h4Encoded(
                ownAddressType: s.ownAddressType, filterPolicy: s.filterPolicy,
                scanType: scanType, interval: s.interval, window: s.window)
            enableOpcode = HCIOpcode.leSetExtendedScanEnable
            enable = HCILESetExtendedScanEnable(enable: true, filterDuplicates: s.filterDuplicates).h4Encoded()
        } else {
            paramsOpcode = HCIOpcode.leSetScanParameters
            params = HCILESetScanParameters(
                scanType: scanType, interval: s.interval, window: s.window,
                ownAddressType: s.ownAddressType, filterPolicy: s.filterPolicy
            ).h4Encoded()
            enableOpcode = HCIOpcode.leSetScanEnable
            enable = HCILESetScanEnable(enable: true, filterDuplicates: s.filterDuplicates).h4Encoded()
        }
        return [
            .sent(params), .received(HCISynthesis.commandComplete(paramsOpcode)),
            .sent(enable), .received(HCISynthesis.commandComplete(enableOpcode)),
        ]
    }

    /// One ATT PDU each way with its direction (true: received by the central).
    private typealias PDU = (bytes: [UInt8], received: Bool)

    /// The request (or server-initiated PDU) an event starts with, and what answers it.
    private func att(_ e: TimelineEvent, mtu: Int, peer: BDAddr?) -> (request: [PDU], response: [PDU]) {
        let error: (code: UInt8, handle: UInt16)? =
            if case .error(_, _, let c, let h) = e.outcome { (c, h) } else { nil }
        let answered = e.outcome.responseFrame != nil
        func answer(_ requestOpcode: ATTOpcode, _ success: () -> [PDU]) -> [PDU] {
            guard answered else { return [] }
            if let error {
                return [
                    (
                        ATTErrorResponse(requestOpcode: requestOpcode, handle: error.handle, errorCode: error.code)
                            .encoded(), true
                    )
                ]
            }
            return success()
        }
        let value = e.value.bytes
        switch e.kind {
        case .mtuExchange(let client, let server, _, _):
            return (
                [(ATTExchangeMTURequest(clientRxMTU: client).encoded(), false)],
                answer(.exchangeMTURequest) {
                    [(ATTExchangeMTUResponse(serverRxMTU: server ?? client).encoded(), true)]
                }
            )
        case .discovery(let d, _):
            let op = ATTSynthesis.discoveryOpcode(d)
            let db = peer.flatMap { p in world.peripherals.first { $0.address == p } }?.database
            return (
                [(ATTSynthesis.discoveryRequest(d), false)],
                answer(op) {
                    if let db, let rsp = ATTSynthesis.discoveryResponse(d, database: db, mtu: mtu) {
                        return [(rsp, true)]
                    }
                    return [
                        (
                            ATTErrorResponse(
                                requestOpcode: op, handle: d.startHandle, errorCode: ATTErrorCode.attributeNotFound
                            )
                            .encoded(), true
                        )
                    ]
                }
            )
        case .read(let o, let variant):
            let blob = variant == .blob
            let request =
                blob
                ? ATTReadBlobRequest(handle: o.handle, offset: o.offset ?? 0).encoded()
                : ATTReadRequest(handle: o.handle).encoded()
            return (
                [(request, false)],
                answer(blob ? .readBlobRequest : .readRequest) {
                    // Read Response carries ATT_MTU − 1; the rest follows by Read Blob.
                    let part = mtu - 1
                    let first = Array(value.prefix(part))
                    var out: [PDU] = [
                        (
                            first.withByteView {
                                blob
                                    ? ATTReadBlobResponse(partValue: $0).encoded()
                                    : ATTReadResponse(value: $0).encoded()
                            }, true
                        )
                    ]
                    var offset = part
                    while offset < value.count {
                        out.append(
                            (ATTReadBlobRequest(handle: o.handle, offset: UInt16(clamping: offset)).encoded(), false))
                        let next = Array(value[offset..<min(value.count, offset + part)])
                        out.append((next.withByteView { ATTReadBlobResponse(partValue: $0).encoded() }, true))
                        offset += part
                    }
                    return out
                }
            )
        case .write(let o, let variant):
            switch variant {
            case .command, .signed:
                return ([(ATTWriteCommand.encoded(handle: o.handle, value: value), false)], [])
            case .request:
                return (
                    [(ATTWriteRequest.encoded(handle: o.handle, value: value), false)],
                    answer(.writeRequest) { [(ATTWriteResponse().encoded(), true)] }
                )
            case .prepare:
                let offset = o.offset ?? 0
                return (
                    [(ATTPrepareWriteRequest.encoded(handle: o.handle, offset: offset, partValue: value), false)],
                    answer(.prepareWriteRequest) {
                        [(ATTPrepareWriteResponse.encoded(handle: o.handle, offset: offset, partValue: value), true)]
                    }
                )
            case .execute:
                let flags = UInt8(truncatingIfNeeded: o.offset ?? UInt16(ATTExecuteWriteRequest.writeAllPreparedWrites))
                return (
                    [(ATTExecuteWriteRequest(flags: flags).encoded(), false)],
                    answer(.executeWriteRequest) { [(ATTExecuteWriteResponse().encoded(), true)] }
                )
            }
        case .subscribe(let o, _):
            return (
                [(ATTWriteRequest.encoded(handle: o.handle, value: value), false)],
                answer(.writeRequest) { [(ATTWriteResponse().encoded(), true)] }
            )
        case .notification(let o):
            return ([(ATTHandleValueNotification.encoded(handle: o.handle, value: value), true)], [])
        case .indication(let o):
            // The central's host confirms (Vol 3 Part F 3.4.7.3).
            return (
                [(ATTHandleValueIndication.encoded(handle: o.handle, value: value), true)],
                answered ? [(ATTHandleValueConfirmation().encoded(), false)] : []
            )
        default:
            return ([], [])
        }
    }

    /// ACL fragments of one ATT PDU; after each fragment the central sends, the controller
    /// reports it completed.
    private func acl(_ pdu: PDU, handle: UInt16) -> [HCIRecord] {
        HCISynthesis.acl(handle: handle, payload: pdu.bytes, received: pdu.received, fragment: Self.aclDataLength)
            .flatMap { fragment -> [HCIRecord] in
                pdu.received
                    ? [.received(fragment)]
                    : [.sent(fragment), .received(HCISynthesis.completedPackets(handle: handle))]
            }
    }
}

/// One H4 packet of the export and whether the host received it.
struct HCIRecord {
    let bytes: [UInt8]
    let received: Bool
    static func sent(_ b: [UInt8]) -> Self { Self(bytes: b, received: false) }
    static func received(_ b: [UInt8]) -> Self { Self(bytes: b, received: true) }
}

extension SimulatedWorld {
    /// The run so far as a btsnoop (H4) capture of the central's HCI (`BTSnoopExporter`).
    public func btsnoop() -> [UInt8] { BTSnoopExporter(world: self).bytes() }
}
