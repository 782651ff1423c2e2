import BLEAir
import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline

/// The device blecap as central may connect to (`blecap replay --role central --peer`): an
/// address, a local name (Complete or Shortened Local Name, Core Supplement Part A 1.2) or a
/// service UUID its advertising or scan response lists (Part A 1.1). blecap connects to
/// nothing else.
public enum RadioPeer: Sendable, Equatable, CustomStringConvertible {
    case address(BDAddr)
    case name(String)
    case service(BluetoothUUID)

    /// AA:BB:CC:DD:EE:FF is an address; 180D, 0x180D, a 32-bit or a 128-bit UUID a service;
    /// anything else a local name.
    public init(_ text: String) {
        if text.contains(":"), let a = BDAddr(text) {
            self = .address(a)
        } else if let u = BluetoothUUID(text) {
            self = .service(u)
        } else {
            self = .name(text)
        }
    }

    public var description: String {
        switch self {
        case .address(let a): "\(a)"
        case .name(let n): "the device named \"\(n)\""
        case .service(let u): "the device advertising service \(u)"
        }
    }

    /// Whether this report (advertising data or scan response) from `address` shows the peer.
    func matches(address: BDAddr, data: ByteView) -> Bool {
        switch self {
        case .address(let a): return a == address
        case .name(let n):
            guard let name = AdvertisingData(data).localName else { return false }
            return String(decoding: name.toArray(), as: UTF8.self) == n
        case .service(let u): return AdvertisingData(data).advertises(service: u)
        }
    }
}

/// Role central's state inside `RadioHost`: the scan, the connection attempt, the link, and
/// what differed from the capture beyond the ATT exchange.
struct CentralState {
    /// At most this many advertisers are remembered (and logged once) while scanning.
    static let maximumAdvertisers = 256
    var scanning = false
    var target: RadioPeer?
    /// Advertisers whose data showed the target, and the connectable ones with their address type.
    var matched: Set<BDAddr> = []
    var connectable: [BDAddr: UInt8] = [:]
    var ignored: Set<BDAddr> = []
    var found: (address: BDAddr, type: UInt8)?
    /// Own_Address_Type of the scan and the connection: 1 with the captured central's random address.
    var ownAddressType: UInt8 = 0
    var ownRandomAddress: BDAddr?
    /// Scanning and initiating with the extended commands (RadioHost+Extended.swift).
    var extended = false
    var connecting = false
    var connected: UInt16?
    /// LE Connection Complete's status when the attempt failed.
    var failed: UInt8?
    /// The reason of the last Disconnection Complete from the controller, and whether the
    /// captured central still owed requests (or its own end of the link) when it came.
    var linkEndReason: UInt8?
    var endedOwing = false
    var findings: [String] = []
}

extension RadioHost {
    /// How blecap as central finds, connects to and waits for the real peripheral. Every wait
    /// is bounded.
    public struct CentralConfiguration: Sendable {
        /// Who to connect to; nil: the captured peripheral's address.
        public var peer: RadioPeer?
        /// How long the scan looks for the peripheral.
        public var scanTimeoutMicros: Int64 = 30_000_000
        /// How long LE Create Connection may take before it is cancelled.
        public var connectTimeoutMicros: Int64 = 10_000_000
        /// How long a request may go unanswered: ATT's transaction timeout (Core Vol 3 Part F
        /// 3.3.3), after which no more ATT PDUs may be sent on the bearer: the link is ended.
        public var responseTimeoutMicros: Int64 = ATTBearer.transactionTimeoutMicros
        /// When the captured peripheral ended the link, how long after the captured central's
        /// last operation the real one may take to end it too.
        public var lingerMicros: Int64 = 10_000_000
        /// LE scan interval and window while scanning and initiating (units of 0.625 ms:
        /// 60 ms and 30 ms).
        public var scanInterval: UInt16 = 0x0060
        public var scanWindow: UInt16 = 0x0030
        public init() {}
    }

    /// What differed over the radio beyond the ATT exchange (a device that did not answer in
    /// time, that ended the link early or not as captured, that did not send the notifications
    /// the captured central waited for, whose pairing or encryption differed), for the report.
    public var centralFindings: [String] { central.findings + virtual.peerAwaitFindings + virtual.radioFindings }

    /// Role central (the virtual controller plays the captured central of a capture recorded
    /// on the peripheral): initialises the controller, then per captured connection scans for
    /// the peripheral (`configuration.peer`, else the captured peripheral's address), connects
    /// with the captured connection parameters and plays the captured central's ATT script to
    /// it until the link ends. `timeoutMicros` bounds the whole run.
    public func runCentral(_ configuration: CentralConfiguration, timeoutMicros: Int64? = nil)
        throws(RadioHostError) -> End
    {
        start = clock()
        virtual.clock = { [unowned self] in clock() - start }
        virtual.output = { [unowned self] packet in fromVirtual(packet) }
        // Pairing over the air: nonces and the LE Secure Connections key pair fresh each run;
        // the real controller encrypts where the captured central did.
        virtual.securityRandom = { UInt64.random(in: .min ... .max) }
        virtual.radioEncrypt = { [unowned self] v, rand, ediv, key in
            guard let real = toReal[v] else { return }
            log("LE Enable Encryption (EDIV 0x\(String(ediv, radix: 16)))")
            send(
                HCILEEnableEncryption(handle: real, randomNumber: rand, encryptedDiversifier: ediv, longTermKey: key)
                    .h4Encoded())
        }
        try initialise()
        while let next = virtual.nextCapturedCentralConnection {
            guard let peer = configuration.peer ?? next.peripheral.map(RadioPeer.address) else {
                throw RadioHostError(
                    "the capture does not show the peripheral's address (its controller's power-on sequence is not "
                        + "in it): name the device with --peer ADDRESS|NAME|SERVICE-UUID")
            }
            // The captured central's random address is taken as the peripheral saw it (as the
            // peripheral role advertises from the captured one); a public one cannot be.
            (central.ownAddressType, central.ownRandomAddress) = (0, nil)
            if next.centralAddressType == 1, let address = next.central {
                try command(HCILESetRandomAddress(address: address))
                central.ownAddressType = 1
                central.ownRandomAddress = address
            }
            central.extended = usesExtendedScanning(next)
            if let end = try scan(for: peer, connection: next.connection, configuration, limit(timeoutMicros)) {
                return end
            }
            let found = central.found!
            if let end = try connect(to: found, next, configuration, limit(timeoutMicros)) { return end }
            let real = central.connected!
            log(
                "connected to \(found.address) (handle 0x\(String(real, radix: 16))): playing captured connection #\(next.connection)"
            )
            if let end = try play(real, next, configuration, limit(timeoutMicros)) { return end }
        }
        return .sessionOver
    }

    // MARK: scanning

    /// Active scanning (Vol 4 Part E 7.8.10–11, or the extended 7.8.64–65) until a connectable
    /// advertiser shows the peer. Every other advertiser is ignored (logged once).
    private func scan(for peer: RadioPeer, connection: Int, _ c: CentralConfiguration, _ runLimit: Int64)
        throws(RadioHostError) -> End?
    {
        central.target = peer
        central.found = nil
        central.matched = []
        central.connectable = [:]
        try startScanning(
            extended: central.extended, interval: c.scanInterval, window: c.scanWindow,
            ownAddressType: central.ownAddressType)
        central.scanning = true
        log("scanning\(central.extended ? " (extended)" : "") for \(peer) (captured connection #\(connection))")
        let deadline = now + c.scanTimeoutMicros
        while central.found == nil {
            if let end = try pump(until: min(deadline, runLimit)) {
                central.scanning = false
                _ = try? stopScanning(extended: central.extended)
                guard end == .timeout, now >= deadline else { return end }
                throw RadioHostError(
                    "\(peer) was not found within \(c.scanTimeoutMicros / 1_000_000) s of scanning "
                        + "(captured connection #\(connection)); blecap connects to no other device")
            }
        }
        central.scanning = false
        try stopScanning(extended: central.extended)
        return nil
    }

    /// LE Advertising Report while scanning: remembers which advertisers show the target and
    /// which are connectable (ADV_IND, ADV_DIRECT_IND: Vol 4 Part E 7.7.65.2). A controller
    /// may answer legacy scanning with LE Extended Advertising Reports (7.7.65.13; Bumble's
    /// does): those count the same, by their connectable bit.
    func advertisingReport(_ e: HCIEventPacket) {
        guard central.scanning, central.found == nil else { return }
        let p = e.subeventParameters
        if e.subeventCode == HCILESubeventCode.extendedAdvertisingReport {
            guard let list = HCILEExtendedAdvertisingReport(parameters: p) else { return }
            for r in list.reports
            where heard(r.address, type: r.addressType, data: r.data, connectable: r.isConnectable) {
                return
            }
        } else {
            guard let list = HCILEAdvertisingReport(parameters: p) else { return }
            for r in list.reports {
                let connectable =
                    r.eventType == HCILEAdvertisingReportEntry.advInd
                    || r.eventType == HCILEAdvertisingReportEntry.advDirectInd
                if heard(r.address, type: r.addressType, data: r.data, connectable: connectable) { return }
            }
        }
    }

    /// One report: true when it completes the target (it matched, and its advertiser is connectable).
    private func heard(_ address: BDAddr, type: UInt8, data: ByteView, connectable: Bool) -> Bool {
        guard let target = central.target else { return false }
        if connectable,
            central.connectable.count < CentralState.maximumAdvertisers || central.connectable[address] != nil
        {
            central.connectable[address] = type
        }
        if target.matches(address: address, data: data), central.matched.count < CentralState.maximumAdvertisers {
            central.matched.insert(address)
        }
        if central.matched.contains(address), let type = central.connectable[address] {
            central.found = (address, type)
            log("found \(target) at \(address) (\(type & 1 == 1 ? "random" : "public"))")
            return true
        }
        if !central.matched.contains(address), central.ignored.count < CentralState.maximumAdvertisers,
            central.ignored.insert(address).inserted
        {
            log("ignoring advertiser \(address): not \(target)")
        }
        return false
    }

    // MARK: connecting

    /// LE (Extended) Create Connection (7.8.12, 7.8.66) with the captured connection's interval, latency and
    /// supervision timeout, bounded by `connectTimeoutMicros` (then LE Create Connection Cancel).
    private func connect(
        to found: (address: BDAddr, type: UInt8), _ next: CapturedCentralConnection, _ c: CentralConfiguration,
        _ runLimit: Int64
    ) throws(RadioHostError) -> End? {
        let parameters = Self.connectionParameters(next.timing)
        if parameters == nil {
            log("the capture shows no usable connection parameters: 30 ms interval, latency 0, 2 s supervision timeout")
        }
        central.connected = nil
        central.failed = nil
        central.connecting = true
        try createConnection(
            extended: central.extended, to: found, scanInterval: c.scanInterval, scanWindow: c.scanWindow,
            ownAddressType: central.ownAddressType,
            connection: parameters
                ?? HCIConnectionParameters(intervalMin: 24, intervalMax: 24, maxLatency: 0, supervisionTimeout: 200))
        let deadline = now + c.connectTimeoutMicros
        while central.connected == nil {
            if let status = central.failed {
                throw RadioHostError(
                    "the connection to \(found.address) failed: \(HCIError.name(status).map { "\($0)" } ?? "error") "
                        + "(0x\(String(status, radix: 16)))")
            }
            if let end = try pump(until: min(deadline, runLimit)) {
                _ = try? command(HCIParameterlessCommand(opcode: HCIOpcode.leCreateConnectionCancel))
                central.connecting = false
                guard end == .timeout, now >= deadline else { return end }
                throw RadioHostError(
                    "\(found.address) did not accept the connection within \(c.connectTimeoutMicros / 1_000_000) s")
            }
        }
        return nil
    }

    /// The captured timing as LE Create Connection parameters, nil when the capture has none or
    /// they are outside what the command takes (7.8.12: interval 6…3200, latency ≤ 499, timeout
    /// 10…3200 and longer than (1 + latency) × interval × 2).
    static func connectionParameters(_ t: ConnectionTiming?) -> HCIConnectionParameters? {
        guard let t, (6...3200).contains(t.interval), t.latency <= 499, (10...3200).contains(t.supervisionTimeout),
            Int(t.supervisionTimeout) * 8 > (1 + Int(t.latency)) * Int(t.interval) * 2
        else { return nil }
        return HCIConnectionParameters(
            intervalMin: t.interval, intervalMax: t.interval, maxLatency: t.latency,
            supervisionTimeout: t.supervisionTimeout)
    }

    /// LE (Enhanced) Connection Complete in role central: the link blecap asked for comes up
    /// as the captured connection; any other is ended at once.
    func centralConnected(status: UInt8, handle: UInt16, role: UInt8) {
        guard central.connecting else {
            if status == HCIError.success {
                log("a connection blecap did not ask for (handle 0x\(String(handle, radix: 16))): disconnecting it")
                send(HCIDisconnect(handle: handle, reason: HCIError.remoteUserTerminatedConnection).h4Encoded())
            }
            return
        }
        central.connecting = false
        guard status == HCIError.success else {
            central.failed = status
            return
        }
        // SMP's addresses (ia, ra): this central's as it initiated (the captured random
        // address set, else the controller's public one), the peripheral's as found.
        var own: (type: UInt8, address: BDAddr)?
        if central.ownAddressType == 1, let a = central.ownRandomAddress {
            own = (1, a)
        } else if let a = controllerAddress {
            own = (0, a)
        }
        guard role == HCIRole.central, toVirtual.isEmpty,
            let v = virtual.startRadioCentralConnection(
                central: own, peripheral: central.found.map { ($0.type & 1, $0.address) })
        else {
            send(HCIDisconnect(handle: handle, reason: HCIError.remoteUserTerminatedConnection).h4Encoded())
            central.failed = HCIError.remoteUserTerminatedConnection
            return
        }
        toVirtual[handle] = v
        toReal[v] = handle
        central.connected = handle
    }

    // MARK: playing

    /// Plays the captured central's script on `real` until the link ends. Bounded: a request
    /// unanswered for `responseTimeoutMicros`, and, when the captured peripheral ended the
    /// link, a device that does not within `lingerMicros` after the script, end it here (each
    /// a finding); so does a device that ends it before the script is done.
    private func play(_ real: UInt16, _ next: CapturedCentralConnection, _ c: CentralConfiguration, _ runLimit: Int64)
        throws(RadioHostError) -> End?
    {
        let number = next.connection
        central.linkEndReason = nil
        central.endedOwing = false
        var idleSince: Int64?
        while let v = toVirtual[real] {
            let busy =
                virtual.peerHasWork(handle: v) || virtual.outstandingPeerRequest(handle: v) != nil
                || virtual.outstandingSecurity(handle: v) != nil
            // A wait past the response timeout ends the link with a finding: SMP's own timeout is
            // 30 s too (Core Vol 3 Part H 3.4), as ATT's transaction timeout is.
            let overdue: String? =
                if let since = virtual.outstandingSecurity(handle: v), now - since > c.responseTimeoutMicros {
                    "did not complete the captured central's pairing or encryption within "
                        + "\(c.responseTimeoutMicros / 1000) ms"
                } else if let sent = virtual.outstandingPeerRequest(handle: v), now - sent > c.responseTimeoutMicros {
                    attTimedOut(v, c)
                } else {
                    nil
                }
            if let overdue {
                central.findings.append("#\(number): the device \(overdue): blecap ended the link")
                endLink(real)
                break
            }
            if busy {
                idleSince = nil
            } else if next.capturedEnd?.side == .local {
                let since = idleSince ?? now
                idleSince = since
                if now - since > c.lingerMicros {
                    central.findings.append(
                        "#\(number): the captured peripheral ended the link; the device did not within "
                            + "\(c.lingerMicros / 1000) ms of the captured central's last operation: blecap ended it")
                    endLink(real)
                    break
                }
            } else if next.capturedEnd == nil {
                // A capture cut off while connected: the script is done, so is the link.
                endLink(real)
                break
            }
            let deadline = min(runLimit, now + 50_000)
            if let end = try pump(until: deadline), end != .timeout || now >= runLimit { return end }
            if toVirtual[real] == nil, let reason = central.linkEndReason, central.endedOwing {
                central.findings.append(
                    "#\(number): the device ended the link "
                        + "(\(HCIError.name(reason).map { "\($0)" } ?? "reason 0x\(String(reason, radix: 16))")) "
                        + "before the captured central was done")
            }
        }
        return nil
    }

    /// Ends the real link and tells the virtual controller, as if the device had.
    /// The device left the captured central's request on virtual link `v` unanswered past the
    /// response timeout: the finding. At the spec's 30 s (the default) this is ATT's
    /// transaction timeout (Core Vol 3 Part F 3.3.3), and the virtual controller's bearer says
    /// so (timed out, nothing outstanding) before the link ends; a shorter or longer
    /// `--response-timeout` is blecap's own bound, not the bearer's.
    private func attTimedOut(_ v: UInt16, _ c: CentralConfiguration) -> String {
        if c.responseTimeoutMicros == ATTBearer.transactionTimeoutMicros {
            virtual.attTransactionTimedOut(handle: v, now: now)
        }
        return "did not answer the captured central's request within \(c.responseTimeoutMicros / 1000) ms "
            + "(ATT transaction timeout)"
    }

    private func endLink(_ real: UInt16) {
        send(HCIDisconnect(handle: real, reason: HCIError.remoteUserTerminatedConnection).h4Encoded())
        linkEnded(real: real, reason: HCIError.remoteUserTerminatedConnection)
    }
}
