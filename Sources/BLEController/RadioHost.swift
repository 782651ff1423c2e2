import BLEBytes
import BLEPackets
import BLEReplay
import CaptureIO

#if canImport(Glibc)
    import Glibc
#endif

/// Why the radio host stopped before the session could run: a controller that does not
/// answer, refuses a command, or never gets a connection. Says what to do where it can.
public struct RadioHostError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// blecap as the host of a real controller (`blecap replay CAPTURE --controller C`): it
/// initialises the controller over H4, advertises as the captured peripheral, and when a real
/// central connects, plays the captured connection to it. The captured peripheral's side is
/// the virtual controller's (`VirtualController`, role peripheral), the one `blecap serve`
/// plays to a host: the remote central's ACL data goes into it as a host's would, and what it
/// sends back goes out through the real controller with the real connection's handle. So the
/// answers (the replay model's ATT server: values in captured order, captured errors,
/// notifications timed from the subscription, the captured MTU and the faults) and the report
/// (`ServeReport`: the central's operations against the captured central's) are that one
/// implementation's.
///
/// Single-threaded; every wait for the controller is bounded (`commandTimeoutMicros`,
/// `acceptTimeoutMicros`, the run's own limit): a controller that never answers is an error,
/// never a hang.
public final class RadioHost {
    /// `acl`'s data as host-to-controller packets on `handle` of at most `size` bytes each, H4
    /// encoded: First Non-Automatically-Flushable, then Continuing (Vol 4 Part E 5.4.2).
    static func fragments(of acl: HCIACLPacket, handle: UInt16, size: Int, _ emit: ([UInt8]) -> Void) {
        var offset = 0
        repeat {
            let part = acl.data.slice(offset, min(size, acl.data.count - offset)) ?? .empty
            let boundary: HCIACLPacket.BoundaryFlag =
                offset == 0 && acl.boundary.isStart ? .firstNonFlushable : .continuing
            emit(HCIACLPacket(handle: handle, boundary: boundary, data: part).h4Encoded())
            offset += size
        } while offset < acl.data.count
    }

    public struct Configuration: Sendable {
        /// How long a command may go without Command Complete or Command Status.
        public var commandTimeoutMicros: Int64 = 5_000_000
        /// How long advertising waits for a central to connect.
        public var acceptTimeoutMicros: Int64 = 60_000_000
        /// Advertising interval when the capture shows none (Vol 4 Part E 7.8.5: 20 ms … 10.24 s).
        public var advertisingIntervalMicros: Int64 = 100_000
        /// How long ACL packets may wait in the controller without Number of Completed Packets:
        /// longer than the longest supervision timeout (32 s, Vol 6 Part B 4.5.2), after which
        /// the link would have ended had the air lost them.
        public var completedPacketsTimeoutMicros: Int64 = 40_000_000
        public init() {}
    }

    /// How the session ended.
    public enum End: Sendable, Equatable, CustomStringConvertible {
        /// Every captured connection was played and has ended.
        case sessionOver
        case timeout
        case interrupted
        /// The controller went away (the transport closed).
        case controllerClosed

        public var description: String {
            switch self {
            case .sessionOver: "every captured connection was played"
            case .timeout: "time limit reached"
            case .interrupted: "interrupted"
            case .controllerClosed: "the controller closed the transport"
            }
        }
    }

    public let virtual: VirtualController
    public let transport: any HCITransport
    public let configuration: Configuration
    /// Progress and the controller's oddities, for the user.
    public var log: (String) -> Void = { _ in }
    /// What crossed the real HCI (with `record: true`), for `--out`.
    public private(set) var capture: BTSnoopWriter?
    /// Read Local Supported Commands' Supported_Commands (nil: not answered): which of the
    /// extended commands the controller has (RadioHost+Extended.swift).
    public private(set) var supportedCommands: [UInt8]?
    /// Advertising runs on the extended commands (set 0), not the legacy ones.
    var advertisingExtended = false
    /// Read BD_ADDR's answer: the controller's public address.
    public private(set) var controllerAddress: BDAddr?
    /// LE ACL buffers of the controller (LE Read Buffer Size, else Read Buffer Size).
    public private(set) var aclPacketLength = 27
    public private(set) var aclPackets = 1
    /// Packets from the controller that made no sense (unknown handles, truncated events).
    public private(set) var rejectedControllerInput = 0
    /// What the controller did wrong without ending the run, the first `maximumOddities`
    /// (the user sees them after the report, not only with --verbose).
    public private(set) var oddities: [String] = []
    public static let maximumOddities = 20
    /// Set from a signal handler to stop the loop.
    nonisolated(unsafe) public static var interrupt = false
    /// Microseconds on a monotonic clock: the wall's by default, a virtual one in tests and
    /// the fuzz target (whose transport moves it while it "waits").
    public var clock: () -> Int64 = ServeRunner.monotonicMicros

    private var framer = H4Framer(fromController: true)
    private var buffer = [UInt8](repeating: 0, count: 4096)
    var start: Int64 = 0
    /// The command waiting for its Command Complete or Command Status, and that answer:
    /// status (nil: a Command Complete without one) and return parameters.
    private var awaiting: UInt16?
    private var completion: (status: UInt8?, returned: [UInt8])?
    /// What the controller did that ends the run (a Hardware Error, buffers it never frees).
    private var failure: RadioHostError?
    /// Since when ACL packets have waited in the controller without any being completed.
    private var stalledSince: Int64?
    /// Links blecap disconnected whose Disconnection Complete has not come yet.
    private var closing: Set<UInt16> = []
    private var closed = false
    /// Real connection handle ↔ the virtual controller's handle for the same captured connection.
    var toVirtual: [UInt16: UInt16] = [:]
    var toReal: [UInt16: UInt16] = [:]
    /// LE Connection Complete seen while advertising: the real handle.
    private var accepted: UInt16?
    /// The advertising on now: the address a central connects to (SMP's ra).
    private var advertised: CapturedAdvertising?
    /// ACL packets waiting for a free controller buffer (Vol 4 Part E 4.1.1).
    private var queue: [[UInt8]] = []
    private var inFlight = 0
    /// Role central: the scan, the connection attempt and the link (RadioCentral.swift).
    var central = CentralState()

    public init(
        virtual: VirtualController, transport: any HCITransport, configuration: Configuration = .init(), record: Bool
    ) {
        self.virtual = virtual
        self.transport = transport
        self.configuration = configuration
        if record { capture = BTSnoopWriter() }
    }

    // MARK: running

    /// Initialises the controller, then plays every captured connection in turn: advertise,
    /// accept, serve until either side ends it. `timeoutMicros` bounds the whole run.
    public func run(timeoutMicros: Int64? = nil) throws(RadioHostError) -> End {
        start = clock()
        virtual.clock = { [unowned self] in clock() - start }
        virtual.output = { [unowned self] packet in fromVirtual(packet) }
        // Pairing over the air: nonces and the LE Secure Connections key pair fresh each run.
        virtual.securityRandom = { UInt64.random(in: .min ... .max) }
        try initialise()
        while let ad = virtual.nextCapturedAdvertising {
            try advertise(ad)
            let deadline = now + configuration.acceptTimeoutMicros
            while accepted == nil {
                if let end = try pump(until: min(deadline, limit(timeoutMicros))) {
                    // The run's own limit, or the end of the wait for a central.
                    guard end == .timeout, now >= deadline else { return end }
                    stopAdvertising()
                    throw RadioHostError(
                        "no central connected within \(configuration.acceptTimeoutMicros / 1_000_000) s while "
                            + "advertising as \(ad.address) (captured connection #\(ad.connection))")
                }
            }
            let real = accepted!
            accepted = nil
            log(
                "a central connected (handle 0x\(String(real, radix: 16))): playing captured connection #\(ad.connection)"
            )
            while toVirtual[real] != nil {
                if let end = try pump(until: limit(timeoutMicros)) { return end }
            }
        }
        return .sessionOver
    }

    var now: Int64 { clock() - start }

    func limit(_ timeout: Int64?) -> Int64 { timeout ?? .max }

    /// Moves the virtual controller's clock and reads the controller until `deadline` or the
    /// next timer (at most 50 ms at a time). Non-nil: the run is over.
    func pump(until deadline: Int64) throws(RadioHostError) -> End? {
        virtual.advance(to: now)
        if let failure { throw failure }
        if closed { return .controllerClosed }
        if Self.interrupt { return .interrupted }
        let t = now
        if let since = stalledSince, t - since >= configuration.completedPacketsTimeoutMicros {
            throw RadioHostError(
                "the controller completed none of \(inFlight) ACL data packet\(inFlight == 1 ? "" : "s") for "
                    + "\(configuration.completedPacketsTimeoutMicros / 1_000_000) s (no Number of Completed Packets "
                    + "event), with \(queue.count) more waiting: its buffers never free")
        }
        if deadline != .max, t >= deadline { return .timeout }
        let next = min(deadline, virtual.nextDeadline ?? .max)
        let wait = max(0, min(50_000, next == .max ? 50_000 : next - t))
        let n: Int?
        do {
            n = try buffer.withUnsafeMutableBytes { b in try transport.receive(into: b, timeoutMicros: wait) }
        } catch {
            throw RadioHostError("controller transport: \(error)")
        }
        guard let n else {
            closed = true
            return .controllerClosed
        }
        if n > 0 { buffer.withUnsafeBytes { received(UnsafeRawBufferPointer(rebasing: $0[0..<n])) } }
        virtual.advance(to: now)
        if let failure { throw failure }
        return closed ? .controllerClosed : nil
    }

    // MARK: initialisation

    /// Reset, what the controller supports, its address and buffers, the events the host
    /// needs (Vol 4 Part E 7.3.2, 7.4.2–3, 7.4.6, 7.8.2, 7.3.1, 7.8.1).
    func initialise() throws(RadioHostError) {
        try command(HCIParameterlessCommand(opcode: HCIOpcode.reset))
        let features = try command(HCIParameterlessCommand(opcode: HCIOpcode.readLocalSupportedFeatures))
        // LMP feature bit 38: LE Supported (Controller) (Vol 2 Part C 3.3).
        if features.count >= 9, features[5] & 0x40 == 0 {
            throw RadioHostError("the controller does not support Bluetooth LE (LMP feature bit 38 is clear)")
        }
        if let c = try? command(HCIParameterlessCommand(opcode: HCIOpcode.readLocalSupportedCommands)), c.count >= 65 {
            supportedCommands = Array(c[1..<65])
        }
        if let a = try? command(HCIParameterlessCommand(opcode: HCIOpcode.readBDADDR)) {
            controllerAddress = a.withByteView { BDAddr(littleEndian: $0, at: 1) }
        }
        let le = try command(HCIParameterlessCommand(opcode: HCILEReadBufferSize.opcodeV1))
        let buffers = le.withByteView { HCILEReadBufferSize(returnParameters: $0) }
        if let b = buffers, b.leACLDataPacketLength > 0, b.totalNumLEACLDataPackets > 0 {
            (aclPacketLength, aclPackets) = (Int(b.leACLDataPacketLength), Int(b.totalNumLEACLDataPackets))
        } else {
            if let b = buffers, (b.leACLDataPacketLength == 0) != (b.totalNumLEACLDataPackets == 0) {
                odd(
                    "the controller's LE Read Buffer Size answers \(b.leACLDataPacketLength) octets in "
                        + "\(b.totalNumLEACLDataPackets) buffers (only both 0 means shared): using Read Buffer Size")
            }
            // 0: LE shares the BR/EDR buffers (7.8.2).
            let shared = try command(HCIParameterlessCommand(opcode: HCIOpcode.readBufferSize))
            guard let b = shared.withByteView({ HCIReadBufferSize(returnParameters: $0) }),
                b.aclDataPacketLength > 0, b.totalNumACLDataPackets > 0
            else {
                throw RadioHostError("the controller reports no ACL buffers (LE Read Buffer Size and Read Buffer Size)")
            }
            (aclPacketLength, aclPackets) = (Int(b.aclDataPacketLength), Int(b.totalNumACLDataPackets))
        }
        // A lie about buffers would make every packet too big or none fit: kept within what
        // the spec allows (27…251 octets of LE data in one PDU, at most 255 buffers).
        let reported = (aclPacketLength, aclPackets)
        aclPacketLength = min(max(aclPacketLength, 27), 251)
        aclPackets = min(max(aclPackets, 1), 255)
        if reported != (aclPacketLength, aclPackets) {
            odd(
                "the controller reports \(reported.1) ACL buffers of \(reported.0) octets: "
                    + "used as \(aclPackets) of \(aclPacketLength) (LE takes 27…251 octets a packet)")
        }
        // Disconnection Complete (bit 4), Encryption Change (7), Command Complete/Status and
        // Hardware Error (always), LE Meta (61); LE: Connection Complete, Advertising Report,
        // Connection Update Complete, Read Remote Features Complete, Long Term Key Request (the
        // captured peripheral's host gives the key a pairing made, `VirtualController.radioLongTermKey`),
        // Data Length Change, and with the extended commands Enhanced Connection Complete and
        // Extended Advertising Report.
        try command(HCISetEventMask(opcode: HCIOpcode.setEventMask, mask: 0x2000_0000_0000_8090))
        try command(HCISetEventMask(opcode: HCIOpcode.leSetEventMask, mask: 0x5F | extendedEventMask))
        log(
            "controller ready: \(controllerAddress.map { "\($0)" } ?? "address unknown"), "
                + "\(aclPackets) LE ACL buffers of \(aclPacketLength) octets")
    }

    /// Advertising parameters, data and scan response as captured, then advertising on.
    private func advertise(_ ad: CapturedAdvertising) throws(RadioHostError) {
        if ad.addressType != 1, let own = controllerAddress, own != ad.address {
            log(
                "the captured peripheral's public address \(ad.address) is not this controller's (\(own)): "
                    + "a central must look for \(own)")
        }
        if let extended = ad.extended {
            guard let missing = missingExtendedAdvertisingCommand(random: ad.addressType == 1) else {
                return try advertiseExtended(ad, extended)
            }
            log(
                "captured extended advertising (\(ad.capturedKind)) is played as legacy ADV_IND: "
                    + "the controller's Supported Commands lack \(missing)")
        }
        advertisingExtended = false
        if ad.addressType == 1 { try command(HCILESetRandomAddress(address: ad.address)) }
        // Units of 0.625 ms, within 0x0020…0x4000 (7.8.5).
        let micros = ad.intervalMicros ?? configuration.advertisingIntervalMicros
        let units = UInt16(clamping: min(max(micros / 625, 0x20), 0x4000))
        try command(
            HCILESetAdvertisingParameters(
                intervalMin: units, intervalMax: units, advertisingType: ad.advertisingType,
                ownAddressType: ad.addressType))
        try command(HCILESetAdvertisingData(opcode: HCIOpcode.leSetAdvertisingData, data: ad.data))
        try command(HCILESetAdvertisingData(opcode: HCIOpcode.leSetScanResponseData, data: ad.scanResponse))
        // Before enabling: a central may connect before the command's Command Complete is read.
        advertised = ad
        try command(HCILESetAdvertisingEnable(enable: 1))
        log(
            "advertising as \(ad.address) (\(ad.addressType == 1 ? "random" : "public")) for captured connection #\(ad.connection)"
        )
    }

    /// Sends a command and waits (bounded) for its Command Complete or Status: the return
    /// parameters, status first. A status other than Success is an error naming it.
    @discardableResult
    func command(_ c: some HCICommandEncodable) throws(RadioHostError) -> [UInt8] {
        try command(opcode: c.commandOpcode, c.h4Encoded())
    }

    /// `command(_:)` for a command BLEPackets encodes whole (`packet`: its H4 bytes).
    @discardableResult
    func command(opcode: UInt16, _ packet: [UInt8]) throws(RadioHostError) -> [UInt8] {
        let name = "HCI \(HCICommands.name(for: opcode))"
        completion = nil
        awaiting = opcode
        defer { awaiting = nil }
        send(packet)
        let deadline = now + configuration.commandTimeoutMicros
        while completion == nil {
            if let end = try pump(until: deadline) {
                switch end {
                case .timeout:
                    let partial =
                        framer.pending > 0
                        ? "; \(framer.pending) octet\(framer.pending == 1 ? "" : "s") of an unfinished H4 packet came, then nothing"
                        : ""
                    throw RadioHostError(
                        "the controller did not answer \(name) within \(configuration.commandTimeoutMicros / 1000) ms "
                            + "(is it an H4 controller, at this speed, and not held by another host?)\(partial)")
                default: throw RadioHostError("\(end) while waiting for \(name)")
                }
            }
        }
        let done = completion!
        guard let status = done.status else {
            throw RadioHostError("the controller answered \(name) with a Command Complete without a status")
        }
        guard status == HCIError.success else {
            throw RadioHostError(
                "the controller refused \(name): \(HCIError.name(status).map { "\($0)" } ?? "error") "
                    + "(0x\(String(status, radix: 16)))")
        }
        return done.returned
    }

    // MARK: from the controller

    private func received(_ bytes: UnsafeRawBufferPointer) {
        framer.feed(bytes) { item in
            switch item {
            case .packet(let type, let body): packet(type, body)
            case .dropped(let why): reject(why)
            }
        }
    }

    private func reject(_ why: String) {
        rejectedControllerInput += 1
        odd(why)
    }

    private func odd(_ what: String) {
        if oddities.count < Self.maximumOddities { oddities.append(what) }
        log("controller input: \(what)")
    }

    private func packet(_ type: UInt8, _ body: ByteView) {
        capture?.append([type] + body.toArray(), received: true, unixMicros: ServeRunner.wallMicros())
        switch type {
        case H4PacketType.event:
            guard let e = HCIEventPacket(body), !e.lengthMismatch else { return reject("truncated HCI event") }
            event(e)
        case H4PacketType.acl:
            guard let acl = HCIACLPacket(body), !acl.lengthMismatch else { return reject("truncated ACL data") }
            guard let v = toVirtual[acl.handle] else {
                return reject("ACL data for handle 0x\(String(acl.handle, radix: 16)), no such connection: dropped")
            }
            // Fed to the virtual controller as its host's, in pieces its buffers take.
            Self.fragments(of: acl, handle: v, size: virtual.configuration.aclPacketLength) { virtual.receive($0) }
        default:
            reject("H4 packet type \(type) from the controller: dropped")
        }
    }

    private func event(_ e: HCIEventPacket) {
        switch e.code {
        case HCIEventCode.commandComplete:
            guard let c = HCICommandComplete(parameters: e.parameters) else { return reject("short Command Complete") }
            // Only the answer to the command waited for (opcode 0 only frees a command slot).
            guard c.opcode != 0, c.opcode == awaiting else { return }
            completion = (c.status, c.returnParameters.toArray())
        case HCIEventCode.commandStatus:
            guard let c = HCICommandStatus(parameters: e.parameters) else { return reject("short Command Status") }
            if c.opcode == HCIOpcode.leEnableEncryption, c.status != HCIError.success, awaiting != c.opcode {
                // Sent without waiting (role central's pairing): the controller refused it.
                for v in toVirtual.values {
                    virtual.radioEncryptionChanged(handle: v, status: c.status, enabled: false)
                }
                return
            }
            guard c.opcode != 0, c.opcode == awaiting else { return }
            completion = (c.status, [c.status])
        case HCIEventCode.numberOfCompletedPackets:
            guard let n = HCINumberOfCompletedPackets(parameters: e.parameters) else {
                return reject("short Number of Completed Packets")
            }
            for entry in n.entries where entry.count > 0 {
                // Only packets blecap sent on a link it has free buffers: a count for
                // another handle, or more than are in flight, is the controller's error.
                guard toVirtual[entry.handle] != nil else {
                    if closing.contains(entry.handle) { continue }
                    reject(
                        "Number of Completed Packets for handle 0x\(String(entry.handle, radix: 16)), no such connection"
                    )
                    continue
                }
                if Int(entry.count) > inFlight {
                    reject("Number of Completed Packets counts \(entry.count), only \(inFlight) in flight")
                }
                inFlight = max(0, inFlight - Int(entry.count))
                stalledSince = inFlight > 0 ? now : nil
            }
            flush()
        case HCIEventCode.disconnectionComplete:
            guard let d = HCIDisconnectionComplete(parameters: e.parameters) else {
                return reject("short Disconnection Complete")
            }
            guard d.status == HCIError.success else { return }
            if closing.remove(d.handle) != nil {
                // A link blecap ended: its packets in the controller are gone with it (4.3).
                (inFlight, stalledSince) = (0, nil)
                return
            }
            guard toVirtual[d.handle] != nil else {
                return reject("Disconnection Complete for handle 0x\(String(d.handle, radix: 16)), no such connection")
            }
            linkEnded(real: d.handle, reason: d.reason)
        case HCIEventCode.encryptionChange, HCIEventCode.encryptionChangeV2:
            let version = e.code == HCIEventCode.encryptionChangeV2 ? 2 : 1
            guard let c = HCIEncryptionChange(parameters: e.parameters, version: version) else {
                return reject("short Encryption Change")
            }
            guard let v = toVirtual[c.handle] else { return }
            log(
                c.status == HCIError.success
                    ? "the link is \(c.encryptionEnabled != 0 ? "encrypted" : "no longer encrypted")"
                    : "encryption failed: \(HCIError.name(c.status).map { "\($0)" } ?? "status 0x\(String(c.status, radix: 16))")"
            )
            virtual.radioEncryptionChanged(handle: v, status: c.status, enabled: c.encryptionEnabled != 0)
        case HCIHardwareError.code:
            // The controller needs a reset (Vol 4 Part E 7.7.16): nothing it says can be trusted.
            let code =
                HCIHardwareError(parameters: e.parameters).map { "0x\(String($0.hardwareCode, radix: 16))" }
                ?? "no code"
            failure = failure ?? RadioHostError("the controller reported a Hardware Error (\(code))")
        case HCIEventCode.leMeta:
            leEvent(e)
        default:
            break
        }
    }

    private func leEvent(_ e: HCIEventPacket) {
        let p = e.subeventParameters
        switch e.subeventCode {
        case HCILESubeventCode.advertisingReport?, HCILESubeventCode.extendedAdvertisingReport?:
            advertisingReport(e)
        case HCILESubeventCode.connectionComplete?:
            guard let c = HCILEConnectionComplete(parameters: p) else { return reject("short LE Connection Complete") }
            connected(
                status: c.status, handle: c.handle, role: c.role, peerType: c.peerAddressType, peer: c.peerAddress)
        case HCILESubeventCode.enhancedConnectionComplete?, HCILESubeventCode.enhancedConnectionCompleteV2?:
            let v = e.subeventCode == HCILESubeventCode.enhancedConnectionCompleteV2 ? 2 : 1
            guard let c = HCILEEnhancedConnectionComplete(parameters: p, version: v) else {
                return reject("short LE Enhanced Connection Complete")
            }
            connected(
                status: c.status, handle: c.handle, role: c.role, peerType: c.peerAddressType, peer: c.peerAddress)
        case HCILESubeventCode.longTermKeyRequest?:
            guard let r = HCILELongTermKeyRequest(parameters: p) else {
                return reject("short LE Long Term Key Request")
            }
            longTermKeyRequest(r)
        default:
            break
        }
    }

    /// The central starts encryption (Vol 4 Part E 7.7.65.5): the captured peripheral's host
    /// answers with the key it holds (7.8.25), or has none (7.8.26: the link stays unencrypted).
    private func longTermKeyRequest(_ r: HCILELongTermKeyRequest) {
        guard let v = toVirtual[r.handle] else {
            reject("LE Long Term Key Request for handle 0x\(String(r.handle, radix: 16)), no such connection")
            return send(
                HCIConnectionHandleCommand(opcode: HCIOpcode.leLongTermKeyRequestNegativeReply, handle: r.handle)
                    .h4Encoded())
        }
        let what = "LE Long Term Key Request (EDIV 0x\(String(r.encryptedDiversifier, radix: 16)))"
        if let key = virtual.radioLongTermKey(handle: v, rand: r.randomNumber, ediv: r.encryptedDiversifier) {
            log("\(what): the captured peripheral's key given")
            send(HCILELongTermKeyRequestReply(handle: r.handle, longTermKey: key).h4Encoded())
        } else {
            log("\(what): the captured peripheral holds no such key (negative reply)")
            send(
                HCIConnectionHandleCommand(opcode: HCIOpcode.leLongTermKeyRequestNegativeReply, handle: r.handle)
                    .h4Encoded())
        }
    }

    private func connected(status: UInt8, handle: UInt16, role: UInt8, peerType: UInt8, peer: BDAddr) {
        if virtual.configuration.role == .central {
            return centralConnected(status: status, handle: handle, role: role)
        }
        guard status == HCIError.success else {
            return log("advertising ended without a connection: \(HCIError.name(status).map { "\($0)" } ?? "error")")
        }
        guard toVirtual[handle] == nil, !closing.contains(handle) else {
            return reject("LE Connection Complete for handle 0x\(String(handle, radix: 16)), already in use")
        }
        guard role == HCIRole.peripheral, accepted == nil, toVirtual.isEmpty else {
            // Not the connection blecap advertised for: it is not served (and not kept).
            log("a connection blecap did not ask for (handle 0x\(String(handle, radix: 16))): disconnecting it")
            disconnect(handle, reason: HCIError.remoteUserTerminatedConnection)
            return
        }
        // Mapped at once: the central's first ACL data may come in the same read.
        // SMP's addresses (ia, ra): the central's as the controller saw it, the peripheral's as
        // advertised (the random address set, else the controller's public one).
        let own: (type: UInt8, address: BDAddr)? =
            advertised.map { ad in ad.addressType == 1 ? (1, ad.address) : (0, controllerAddress ?? ad.address) }
        guard let v = virtual.acceptRadioConnection(central: (peerType & 1, peer), peripheral: own) else {
            disconnect(handle, reason: HCIError.remoteUserTerminatedConnection)
            return
        }
        toVirtual[handle] = v
        toReal[v] = handle
        log("connected from \(peer)")
        accepted = handle
    }

    /// The real link ended: the virtual controller hears it as its host disconnecting.
    func linkEnded(real: UInt16, reason: UInt8) {
        queue.removeAll()
        inFlight = 0
        stalledSince = nil
        guard let v = toVirtual.removeValue(forKey: real) else { return }
        central.linkEndReason = reason
        // Judged now, before the virtual controller hears it (then nothing is owed), not from
        // before the pump that brought it with the last answer.
        central.endedOwing = virtual.peerOwes(handle: v)
        toReal[v] = nil
        log("the link ended: \(HCIError.name(reason).map { "\($0)" } ?? "reason 0x\(String(reason, radix: 16))")")
        virtual.receive(HCIDisconnect(handle: v, reason: reason).h4Encoded())
    }

    // MARK: from the virtual controller

    /// The captured peripheral's side: ACL data for the remote central, and its end of a link.
    func fromVirtual(_ packet: [UInt8]) {
        guard let type = packet.first else { return }
        packet.withByteView { view in
            guard let body = view.suffix(from: 1) else { return }
            switch type {
            case H4PacketType.acl:
                guard let acl = HCIACLPacket(body), let real = toReal[acl.handle] else { return }
                // In pieces the controller's LE buffers hold.
                RadioHost.fragments(of: acl, handle: real, size: aclPacketLength) { queue.append($0) }
                flush()
            case H4PacketType.event:
                guard let e = HCIEventPacket(body), e.code == HCIEventCode.disconnectionComplete,
                    let d = HCIDisconnectionComplete(parameters: e.parameters), let real = toReal[d.handle]
                else { return }
                // The captured peripheral ended the link: so does this one, with the captured
                // reason when HCI_Disconnect allows it (7.1.6), else Remote User Terminated.
                let allowed: Set<UInt8> = [0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B]
                let reason = allowed.contains(d.reason) ? d.reason : HCIError.remoteUserTerminatedConnection
                toReal[d.handle] = nil
                toVirtual[real] = nil
                queue.removeAll()
                disconnect(real, reason: reason)
                log("the captured peripheral ends the link (\(HCIError.name(d.reason).map { "\($0)" } ?? "reason"))")
            default:
                break
            }
        }
    }

    /// Ends a link (HCI_Disconnect, 7.1.6); its Disconnection Complete is expected.
    private func disconnect(_ handle: UInt16, reason: UInt8) {
        closing.insert(handle)
        send(HCIDisconnect(handle: handle, reason: reason).h4Encoded())
    }

    /// Sends queued ACL packets while the controller has buffers for them.
    private func flush() {
        while inFlight < aclPackets, !queue.isEmpty {
            if inFlight == 0 { stalledSince = now }
            inFlight += 1
            send(queue.removeFirst())
        }
    }

    func send(_ packet: [UInt8]) {
        guard !closed else { return }
        capture?.append(packet, received: false, unixMicros: ServeRunner.wallMicros())
        do { try transport.send(packet) } catch { closed = true }
    }
}
