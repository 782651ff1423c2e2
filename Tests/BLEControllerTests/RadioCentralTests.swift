import BLEAir
import BLEBytes
import BLEController
import BLEPackets
import BLEReplay
import CaptureIO
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// blecap as central over a controller (`blecap replay --role central --controller`): the
/// peripheral's capture's central played through a controller whose air is the central's
/// capture of the same session (blecap's own virtual controller in role peripheral, on a
/// socket), so an unedited run is the captured exchange; the far side's ATT answers are edited
/// to make the device diverge in each way a real one can.
@Suite struct RadioCentralTests {
    /// A read, writes, long writes and Write Commands, no notifications (which at max speed
    /// come at once, before answers the capture shows them after).
    static let central = Fixtures.capture("bumble/oversized_and_unchecked_writes.central.btsnoop")
    static let peripheral = Fixtures.capture("bumble/oversized_and_unchecked_writes.peripheral.btsnoop")
    /// Where the peripheral capture's controller set its random address (the central's capture
    /// connected there).
    static let device = BDAddr("DC:C0:57:00:00:05")!

    @Test func parsesPeers() {
        #expect(RadioPeer("DC:C0:57:00:00:05") == .address(Self.device))
        #expect(RadioPeer("180D") == .service(BluetoothUUID(uuid16: 0x180D)))
        #expect(RadioPeer("Thermo-1") == .name("Thermo-1"))
    }

    /// Scans, finds the captured peripheral at the captured address, connects to it once with
    /// the captured parameters, and the device's answers are the captured ones.
    @Test func findsConnectsAndPlaysTheCapturedCentral() throws {
        let run = try Self.run()
        let ops = run.report.operations.flatMap { $0 }
        #expect(!ops.isEmpty)
        #expect(ops.allSatisfy { $0.verdict == .same }, "\(ops.filter { $0.verdict != .same })")
        #expect(run.report.notServed.isEmpty)
        #expect(run.report.radio == [])
        let creates = Self.commands(run.hci, HCIOpcode.leCreateConnection)
        #expect(creates.count == 1)
        let c = try #require(creates.first.flatMap { $0.withByteView(HCILECreateConnection.init(parameters:)) })
        #expect(c.peerAddress == Self.device)
        let timing = try #require(try CaptureReplay(path: Self.peripheral).models.first?.connection.timing)
        #expect(c.connection.intervalMin == timing.interval && c.connection.intervalMax == timing.interval)
        #expect(
            c.connection.maxLatency == timing.latency && c.connection.supervisionTimeout == timing.supervisionTimeout)
        #expect(Self.commands(run.hci, HCIOpcode.leSetScanEnable).count >= 2)
    }

    /// The same session recorded on the central (the phone's own HCI log): its central is the
    /// capture's host, its requests what the host sent; played the same, to the same device
    /// (the LE Connection Complete's peer), every answer the captured one.
    @Test func playsTheCentralOfACaptureRecordedOnTheCentral() throws {
        let run = try Self.run(pair: Self.central, Self.central)
        let ops = run.report.operations.flatMap { $0 }
        #expect(ops.count == (try Self.run().report.operations.flatMap { $0 }.count))
        #expect(!ops.isEmpty)
        #expect(ops.allSatisfy { $0.verdict == .same }, "\(ops.filter { $0.verdict != .same })")
        #expect(run.report.notServed.isEmpty)
        #expect(run.report.radio == [])
        let creates = Self.commands(run.hci, HCIOpcode.leCreateConnection)
        let c = try #require(creates.first.flatMap { $0.withByteView(HCILECreateConnection.init(parameters:)) })
        #expect(creates.count == 1 && c.peerAddress == Self.device)
        let timing = try #require(try CaptureReplay(path: Self.central).models.first?.connection.timing)
        #expect(
            c.connection.intervalMin == timing.interval && c.connection.supervisionTimeout == timing.supervisionTimeout)
    }

    /// Recorded on the central, a read answered with another value is a divergence too.
    @Test func aDifferentValueIsADivergenceInACaptureRecordedOnTheCentral() throws {
        let run = try Self.run(
            pair: Self.central, Self.central,
            edit: { $0.first == ATTOpcode.readResponse.rawValue ? .replace([$0[0], 0x7F]) : .keep })
        let ops = run.report.operations.flatMap { $0 }
        #expect(ops.filter { $0.verdict != .same }.count == 1, "\(ops.filter { $0.verdict != .same })")
        #expect(ops.contains { $0.verdict == .differentValue && $0.host == "0b7f" })
        #expect(run.report.differences == 1)
    }

    /// Told to look for another device, blecap scans, sees the captured peripheral advertise,
    /// and never connects to it: the scan ends in an error after its timeout.
    @Test(arguments: ["11:22:33:44:55:66", "Nobody", "FEAA"])
    func neverConnectsToAnotherDevice(_ peer: String) throws {
        var central = RadioHost.CentralConfiguration()
        central.peer = RadioPeer(peer)
        central.scanTimeoutMicros = 400_000
        do {
            let run = try Self.run(central: central)
            Issue.record("connected to \(run)")
        } catch let failure as RunFailure {
            #expect(failure.error.description.contains("was not found"))
            #expect(Self.commands(failure.hci, HCIOpcode.leCreateConnection).isEmpty)
            #expect(Self.advertisingReports(failure.hci) > 0)
        }
    }

    /// The device named by its local name or a service it advertises (the central's capture
    /// has its advertising: "PulseBelt HR", 180D, 180F, 180A), at another address than the
    /// captured one would not matter.
    @Test(arguments: ["PulseBelt HR", "180D"])
    func findsTheDeviceByNameOrService(_ peer: String) throws {
        var central = RadioHost.CentralConfiguration()
        central.peer = RadioPeer(peer)
        let run = try Self.run(
            central: central, pair: Fixtures.capture("bumble/nil_scan_all_services.central.btsnoop"),
            Fixtures.capture("bumble/nil_scan_all_services.peripheral.btsnoop"))
        let ops = run.report.operations.flatMap { $0 }
        #expect(!ops.isEmpty && ops.allSatisfy { $0.verdict == .same })
        let creates = Self.commands(run.hci, HCIOpcode.leCreateConnection)
        #expect(
            creates.compactMap { $0.withByteView(HCILECreateConnection.init(parameters:))?.peerAddress } == [
                BDAddr("D8:0D:18:00:00:01")!
            ])
    }

    /// Two advertisers on the air (the captured peripheral and a thermometer): told to find
    /// the thermometer, blecap ignores the captured peripheral and tries only the thermometer
    /// (which takes no connection here: the attempt is cancelled after the connect timeout).
    @Test func connectsOnlyToTheNamedDeviceAmongOthers() throws {
        var central = RadioHost.CentralConfiguration()
        central.peer = .name("Thermo-1")
        central.connectTimeoutMicros = 300_000
        do {
            let run = try Self.run(
                central: central, pair: Fixtures.capture("bumble/scan_before_init.central.btsnoop"),
                Fixtures.capture("bumble/scan_before_init.peripheral.btsnoop"))
            Issue.record("connected: \(run.report.operations)")
        } catch let failure as RunFailure {
            #expect(failure.error.description.contains("did not accept the connection"))
            let creates = Self.commands(failure.hci, HCIOpcode.leCreateConnection)
            #expect(
                creates.compactMap { $0.withByteView(HCILECreateConnection.init(parameters:))?.peerAddress } == [
                    BDAddr("D9:09:18:00:00:02")!
                ])
            #expect(Self.commands(failure.hci, HCIOpcode.leCreateConnectionCancel).count == 1)
        }
    }

    /// A read answered with another value.
    @Test func aDifferentValueIsADivergence() throws {
        let run = try Self.run(edit: { $0.first == ATTOpcode.readResponse.rawValue ? .replace([$0[0], 0x7F]) : .keep })
        let ops = run.report.operations.flatMap { $0 }
        #expect(ops.contains { $0.verdict == .differentValue && $0.host == "0b7f" })
        #expect(run.report.differences > 0)
    }

    /// A read answered with an ATT error instead of its value.
    @Test func anErrorIsADivergence() throws {
        let error = ATTErrorResponse(requestOpcode: .readRequest, handle: 0x0010, errorCode: 0x02).encoded()
        let run = try Self.run(edit: { $0.first == ATTOpcode.readResponse.rawValue ? .replace(error) : .keep })
        let ops = run.report.operations.flatMap { $0 }
        #expect(ops.contains { $0.verdict == .extra && $0.host == Hex.string(error) })
        #expect(ops.contains { $0.verdict == .missing && $0.captured?.hasPrefix("0b") == true })
    }

    /// A request never answered: the wait ends after the response timeout, the link with it.
    @Test func aMissingResponseEndsTheLinkAfterTheResponseTimeout() throws {
        var central = RadioHost.CentralConfiguration()
        central.responseTimeoutMicros = 300_000
        let run = try Self.run(
            central: central, edit: { $0.first == ATTOpcode.readResponse.rawValue ? .drop : .keep })
        let radio = run.report.radio ?? []
        #expect(radio.contains { $0.contains("did not answer") }, "\(radio)")
        #expect(run.report.operations.flatMap { $0 }.contains { $0.verdict == .missing })
    }

    /// At the spec's 30 s (the default response timeout) the wait that runs out is ATT's
    /// transaction timeout (Core Vol 3 Part F 3.3.3): the virtual controller's bearer is timed
    /// out with it, nothing outstanding on it any more, and the finding is the same. The host's
    /// clock runs 100 times faster than the wall here, so the 30 s pass in 0.3 s.
    @Test func aMissingResponseAtTheSpecsThirtySecondsTimesTheBearerOut() throws {
        var central = RadioHost.CentralConfiguration()
        #expect(central.responseTimeoutMicros == 30_000_000)
        central.scanTimeoutMicros = 600_000_000
        central.connectTimeoutMicros = 600_000_000
        let run = try Self.run(
            central: central, edit: { $0.first == ATTOpcode.readResponse.rawValue ? .drop : .keep },
            speedUp: 100, runMicros: 3_000_000_000)
        let radio = run.report.radio ?? []
        #expect(
            radio.contains { $0.contains("did not answer the captured central's request within 30000 ms") }, "\(radio)")
        let bearers = run.served.map(\.bearer)
        #expect(bearers.count == 1)
        #expect(bearers.allSatisfy { $0.timedOut && $0.outstanding(.peer) == nil && !$0.maySendRequest(.peer) })
    }

    /// A response timeout other than the spec's is blecap's own bound: the finding ends the link,
    /// and the bearer is not timed out (its request is still outstanding as the link ends).
    @Test func aShorterResponseTimeoutLeavesTheBearerAsItIs() throws {
        var central = RadioHost.CentralConfiguration()
        central.responseTimeoutMicros = 300_000
        let run = try Self.run(
            central: central, edit: { $0.first == ATTOpcode.readResponse.rawValue ? .drop : .keep })
        #expect((run.report.radio ?? []).contains { $0.contains("did not answer") })
        let bearers = run.served.map(\.bearer)
        #expect(bearers.count == 1)
        #expect(bearers.allSatisfy { !$0.timedOut && $0.outstanding(.peer) != nil })
    }

    /// The device ends the link before the captured central is done.
    @Test func anEarlyDisconnectionIsADivergence() throws {
        let run = try Self.run(edit: { $0.first == ATTOpcode.readResponse.rawValue ? .disconnect : .keep })
        let radio = run.report.radio ?? []
        #expect(radio.contains { $0.contains("ended the link") && $0.contains("before") }, "\(radio)")
        #expect(run.report.operations.flatMap { $0 }.contains { $0.verdict == .missing })
    }

    /// The device notifies on its own clock (the far side at the captured pace: three
    /// notifications over two seconds after the subscription) while blecap plays the captured
    /// central at max speed: its read, captured after the third notification, waits for it, and
    /// its end of the link for the read's answer, so every notification arrives and comes
    /// before the read, as captured.
    @Test func theCentralsStepsWaitForTheNotificationsCapturedBeforeThem() throws {
        let run = try Self.run(pair: Self.heartRateCentral, Self.heartRatePeripheral, farSpeed: .realtime)
        let ops = run.report.operations.flatMap { $0 }
        #expect(ops.count { $0.captured?.hasPrefix("1b") == true } == 3)
        #expect(ops.allSatisfy { $0.verdict == .same }, "\(ops.filter { $0.verdict != .same })")
        #expect(run.report.radio == [])
        let att = Self.attPDUs(run.hci)
        let read = try #require(att.firstIndex { $0.sent && $0.pdu.first == ATTOpcode.readRequest.rawValue })
        #expect(att[..<read].count { !$0.sent && $0.pdu.first == ATTOpcode.handleValueNotification.rawValue } == 3)
    }

    /// A device that sends fewer notifications than captured: the captured central's read
    /// waits for the missing one until none has come for the wait's bound (1.5 s, longer than
    /// the captured second between two), then goes on; the report says so under "over the
    /// radio" and the notification is missing.
    @Test func aNotificationThatNeverComesEndsTheWaitWithAFinding() throws {
        let run = try Self.run(
            pair: Self.heartRateCentral, Self.heartRatePeripheral,
            edit: { $0.first == ATTOpcode.handleValueNotification.rawValue ? .drop : .keep }, farSpeed: .realtime,
            awaitMicros: 1_500_000)
        let radio = run.report.radio ?? []
        #expect(radio.contains { $0.contains("sent 2 of the 3 notifications") }, "\(radio)")
        #expect(run.report.operations.flatMap { $0 }.contains { $0.verdict == .missing })
    }

    /// A device that ends the link right behind its last answer, as the captured peripheral
    /// did (the first of reconnect_storm's links; the far side sends its Disconnection
    /// Complete in the same write as the Read Response, so blecap reads both at once): the
    /// captured central was done, so that is no divergence.
    @Test func aDeviceEndingTheLinkRightBehindItsLastAnswerAsCapturedIsNoDivergence() throws {
        let run = try Self.run(
            pair: Fixtures.capture("bumble/reconnect_storm.central.btsnoop"),
            Fixtures.capture("bumble/reconnect_storm.peripheral.btsnoop"),
            edit: { $0.first == ATTOpcode.readResponse.rawValue ? .thenDisconnect : .keep }, farSpeed: .realtime,
            only: 1)
        let ops = run.report.operations.flatMap { $0 }
        #expect(!ops.isEmpty && ops.allSatisfy { $0.verdict == .same }, "\(ops)")
        #expect(run.report.radio == [])
    }

    /// A heart rate belt's session: subscription, three notifications a second apart, a read,
    /// the central's disconnection.
    static let heartRateCentral = Fixtures.capture("bumble/scan_before_init.central.btsnoop")
    static let heartRatePeripheral = Fixtures.capture("bumble/scan_before_init.peripheral.btsnoop")

    /// The ATT PDUs on blecap's HCI (single-fragment ACL data), with whether blecap sent them.
    static func attPDUs(_ hci: [(packet: [UInt8], sent: Bool)]) -> [(pdu: [UInt8], sent: Bool)] {
        hci.compactMap { p in
            guard p.packet.first == H4PacketType.acl else { return nil }
            return p.packet.withByteView { v -> (pdu: [UInt8], sent: Bool)? in
                guard let acl = v.suffix(from: 1).flatMap(HCIACLPacket.init), let frame = L2CAPBasicFrame(acl.data),
                    frame.channel == L2CAPChannel.att
                else { return nil }
                return (frame.payload.toArray(), p.sent)
            }
        }
    }

    // MARK: harness

    struct Run {
        var report: ServeReport
        /// What crossed blecap's HCI, H4 packets with whether blecap sent them.
        var hci: [(packet: [UInt8], sent: Bool)]
        /// The virtual controller's connections as they ended.
        var served: [ServedConnection] = []
    }

    struct RunFailure: Error {
        var error: RadioHostError
        var hci: [(packet: [UInt8], sent: Bool)]
        /// The virtual controller's connections as they ended.
        var served: [ServedConnection] = []
    }

    /// `farSpeed` the device's pace; `awaitMicros` how long the captured central waits for
    /// notifications that do not come.
    static func run(
        central: RadioHost.CentralConfiguration = .init(), pair: String = central,
        _ peripheralCapture: String = peripheral,
        edit: ATTEditor? = nil, farSpeed: ReplaySpeed = .max, awaitMicros: Int64 = 10_000_000, only: Int? = nil,
        speedUp: Int64 = 1, runMicros: Int64 = 30_000_000
    ) throws -> Run {
        let (link, end) = SocketLink.pair()
        let far = FarSide(path: pair, role: .peripheral, transport: end, lingerMicros: 2_000_000, speed: farSpeed) {
            EditingTransport($0, edit: edit)
        }
        far.start()
        var config = ControllerConfiguration(overARadioAs: .central)
        config.speed = .max
        config.aclPackets = 255
        config.peerAwaitMicros = awaitMicros
        let virtual = VirtualController(replay: try CaptureReplay(path: peripheralCapture), configuration: config)
        if let only { #expect(virtual.playOnly(connection: only)) }
        let host = RadioHost(virtual: virtual, transport: link, record: true)
        if speedUp != 1 {
            host.clock = {
                var t = timespec()
                clock_gettime(CLOCK_MONOTONIC, &t)
                return (Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_nsec) / 1000) * speedUp
            }
        }
        let result: Result<RadioHost.End, RadioHostError>
        do { result = .success(try host.runCentral(central, timeoutMicros: runMicros)) } catch {
            result = .failure(error)
        }
        link.close()
        far.done.wait()
        let hci = RecordedHCI.packets(host.capture?.bytes ?? [])
        switch result {
        case .failure(let error): throw RunFailure(error: error, hci: hci)
        case .success(let end):
            #expect(end == .sessionOver)
            var report = virtual.report()
            report.radio = host.centralFindings
            return Run(report: report, hci: hci, served: virtual.served)
        }
    }

    /// The parameters of every command blecap sent with this opcode.
    static func commands(_ hci: [(packet: [UInt8], sent: Bool)], _ opcode: UInt16) -> [[UInt8]] {
        hci.compactMap { p in
            guard p.sent, p.packet.first == H4PacketType.command else { return nil }
            return p.packet.withByteView { v -> [UInt8]? in
                guard let body = v.suffix(from: 1), let c = HCICommandPacket(body), c.opcode == opcode else {
                    return nil
                }
                return c.parameters.toArray()
            }
        }
    }

    static func advertisingReports(_ hci: [(packet: [UInt8], sent: Bool)]) -> Int {
        hci.count { p in
            guard !p.sent, p.packet.first == H4PacketType.event else { return false }
            return p.packet.withByteView { v in
                v.suffix(from: 1).flatMap(HCIEventPacket.init)?.subeventCode == HCILESubeventCode.advertisingReport
            }
        }
    }
}

/// What the far side does with an ATT PDU its captured peripheral sends: keeps it, or, for the
/// first one its editor picks, changes it, drops it, or ends the link in its place.
enum ATTEdit {
    case keep
    case replace([UInt8])
    case drop, disconnect
    /// Keeps it, and ends the link straight behind it.
    case thenDisconnect
}
typealias ATTEditor = @Sendable ([UInt8]) -> ATTEdit

/// The far controller's transport, editing the first ATT PDU `edit` picks on its way to blecap.
final class EditingTransport: HCITransport {
    let inner: FileDescriptorTransport
    let edit: ATTEditor?
    var edited = false
    /// Links ended in place of a PDU: nothing more goes out on them.
    var gone: Set<UInt16> = []

    init(_ inner: FileDescriptorTransport, edit: ATTEditor?) {
        self.inner = inner
        self.edit = edit
    }

    func receive(into buffer: UnsafeMutableRawBufferPointer, timeoutMicros: Int64) throws(TransportError) -> Int? {
        try inner.receive(into: buffer, timeoutMicros: timeoutMicros)
    }

    func close() { inner.close() }

    func send(_ packet: [UInt8]) throws(TransportError) {
        guard let edit, packet.first == H4PacketType.acl,
            let acl = packet.withByteView({ $0.suffix(from: 1).flatMap(HCIACLPacket.init) })
        else { return try inner.send(packet) }
        if gone.contains(acl.handle) { return }
        guard !edited, let frame = L2CAPBasicFrame(acl.data), frame.channel == L2CAPChannel.att else {
            return try inner.send(packet)
        }
        switch edit(frame.payload.toArray()) {
        case .keep:
            try inner.send(packet)
        case .replace(let pdu):
            edited = true
            let packets = pdu.withByteView {
                L2CAPBasicFrame(channel: L2CAPChannel.att, payload: $0).aclPackets(
                    handle: acl.handle, first: .firstFlushable, bufferSize: 251)
            }
            for p in packets { try inner.send(p) }
        case .drop:
            edited = true
        case .disconnect, .thenDisconnect:
            let keep = edit(frame.payload.toArray())
            edited = true
            gone.insert(acl.handle)
            var packets = [
                HCISynthesis.disconnectionComplete(handle: acl.handle, reason: HCIError.remoteUserTerminatedConnection)
            ]
            if case .thenDisconnect = keep { packets.insert(packet, at: 0) }
            // One write: the host reads them together.
            try inner.send(packets.flatMap { $0 })
        }
    }
}
