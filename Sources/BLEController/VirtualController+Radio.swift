import BLEAir
import BLEBytes
import BLEPackets
import BLEReplay
import BLETimeline

/// What a real controller advertises for the next captured connection the radio host plays
/// (`blecap replay --controller`): the captured peripheral's address, advertising data, scan
/// response and advertising type, as the virtual air would show them to a scanner.
public struct CapturedAdvertising: Sendable, Equatable {
    /// The captured connection (its number in `blecap timeline`).
    public var connection: Int
    public var address: BDAddr
    /// 0 public, 1 random: a random address is set with LE Set Random Address; a public one is
    /// the controller's own and cannot be changed over standard HCI.
    public var addressType: UInt8
    /// Advertising_Type of LE Set Advertising Parameters: connectable undirected (ADV_IND,
    /// 0x00) whatever the capture's last report said, since the captured central connected.
    public var advertisingType: UInt8
    public var data: [UInt8]
    public var scanResponse: [UInt8]
    /// The captured advertising interval, when the capture shows two reports of it.
    public var intervalMicros: Int64?
    /// The capture showed extended advertising (LE Extended Advertising Reports).
    public var capturedExtended: Bool
    /// The captured kind's spec name (ADV_IND, extended connectable …).
    public var capturedKind: String
    /// What the extended advertising commands take when the captured advertising used extended
    /// (non-legacy) PDUs; nil when it was legacy.
    public var extended: ExtendedAdvertising?
}

/// Captured extended advertising as LE Set Extended Advertising Parameters and Data take it
/// (Vol 4 Part E 7.8.53–55): connectable and undirected (the captured central connected), on the
/// captured PHYs. 7.8.53 allows no connectable and scannable extended PDUs: a captured scan
/// response is played with legacy ones where it fits (`RadioHost.advertiseExtended`).
public struct ExtendedAdvertising: Sendable, Equatable {
    /// Advertising_Event_Properties.
    public var eventProperties: UInt16
    /// The captured primary PHY (1 LE 1M, 3 LE Coded) and secondary PHY (1, 2 LE 2M, 3), nil
    /// when the capture does not show them.
    public var primaryPHY: UInt8?
    public var secondaryPHY: UInt8?
    /// The captured advertising data, whole.
    public var data: [UInt8]
    /// The captured scan response, and whether it answered scannable advertising
    /// (`CapturedAdvertisement.scanResponseScannable`): only then is it played.
    public var scanResponse: [UInt8]
    public var scanResponseScannable = false
}

extension VirtualController {
    /// The advertising of the next captured connection to play, nil when every one was.
    public var nextCapturedAdvertising: CapturedAdvertising? {
        guard let a = advertisers().first(where: { $0.model != nil }), let m = a.model else { return nil }
        let ad = a.advertisement
        return CapturedAdvertising(
            connection: replay.models[m].number, address: a.address, addressType: a.addressType & 0x01,
            advertisingType: HCILEAdvertisingReportEntry.advInd,
            data: Array((ad?.data ?? []).prefix(HCILESetAdvertisingData.maximumLength)),
            scanResponse: Array((ad?.scanResponse ?? []).prefix(HCILESetAdvertisingData.maximumLength)),
            intervalMicros: ad?.intervalMicros, capturedExtended: ad?.extended ?? false, capturedKind: a.kind.name,
            extended: a.kind.legacy
                ? nil
                : ExtendedAdvertising(
                    eventProperties: HCILESetExtendedAdvertisingParameters.connectableBit,
                    primaryPHY: ad?.primaryPHY.flatMap { $0 == 1 || $0 == 3 ? $0 : nil },
                    secondaryPHY: ad?.secondaryPHY.flatMap { (1...3).contains($0) ? $0 : nil },
                    data: ad?.data ?? [], scanResponse: ad?.scanResponse ?? [],
                    scanResponseScannable: ad?.scanResponseScannable ?? false))
    }

    /// A real central connected to the real controller the radio host drives: the next captured
    /// connection comes up here at once, as if the host had connected to its peer, and from now
    /// on the remote central's ACL data is fed in as the host's. Its handle here; nil when
    /// every captured connection was played. `central` and `peripheral` are the real link's
    /// addresses (type 0 public, 1 random), what SMP computes with (ia and ra); nil: this
    /// controller's own view of them.
    public func acceptRadioConnection(
        central: (type: UInt8, address: BDAddr)? = nil, peripheral: (type: UInt8, address: BDAddr)? = nil
    ) -> UInt16? {
        guard pendingConnection == nil, let a = advertisers().first(where: { $0.model != nil }), let m = a.model
        else { return nil }
        pendingConnection = PendingConnection(
            extended: false, useAcceptList: false, peerType: a.addressType, peer: a.address, model: m)
        establish()
        guard let c = connections.values.first(where: { $0.model == m }) else { return nil }
        c.overRadio = true
        if let central { c.initiator = (central.type & 1, central.address) }
        if let peripheral { c.responder = (peripheral.type & 1, peripheral.address) }
        scheduleSecurityRequest(c)
        return c.handle
    }

    // MARK: encryption over a real radio (the real controller encrypts; Vol 4 Part E 7.7.65.5)

    /// The real controller's LE Long Term Key Request on the link this controller plays as
    /// `handle`: the key the captured peripheral's host answers with (EDIV and Rand 0: phase
    /// 2's key of the pairing in progress, else the LTK of an LE Secure Connections pairing
    /// this run; otherwise the LTK this run distributed with that EDIV and Rand), nil when it
    /// holds none (a Negative Reply).
    public func radioLongTermKey(handle: UInt16, rand: UInt64, ediv: UInt16) -> UInt128? {
        guard let c = connections[handle] else { return nil }
        if rand == 0, ediv == 0, let key = c.responderSMP?.pairing?.key {
            c.responderSMP?.keyInUse = true
            return key
        }
        if let held = bonds[c.responder.address], held.ediv == ediv, held.rand == rand { return held.ltk }
        note(
            c,
            "the central encrypted with a key the captured peripheral does not hold this run (EDIV 0x"
                + "\(String(ediv, radix: 16))): negative reply")
        return nil
    }

    /// Encryption Change from the real controller on the link played as `handle`: once the
    /// pairing's key is in use, phase 3 (the captured peripheral's keys) follows.
    public func radioEncryptionChanged(handle: UInt16, status: UInt8, enabled: Bool) {
        guard let c = connections[handle] else { return }
        guard status == HCIError.success else {
            note(c, "encryption failed on the real link (status 0x\(String(status, radix: 16)))")
            if configuration.role == .central { radioEncryptionFailed(c, status: status) }
            return
        }
        c.encrypted = enabled
        if configuration.role == .central { return radioEncryptionChangedAsCentral(c, enabled: enabled) }
        if enabled, c.responderSMP?.keyInUse == true { distributeKeys(c) }
    }

    /// The keys the captured peripherals hold this run (distributed or derived), by address:
    /// in memory only, for the report.
    public var keysThisRun: [(peripheral: BDAddr, ltk: UInt128, ediv: UInt16, rand: UInt64)] {
        bonds.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value.ltk, $0.value.ediv, $0.value.rand) }
    }
}

/// What blecap as a real controller's central (`blecap replay --role central --controller`)
/// looks for and connects with for the next captured connection: the captured peripheral (the
/// capture's own host when it was recorded on the peripheral; the LE Connection Complete's
/// peer when recorded on the central) and the captured connection's parameters.
public struct CapturedCentralConnection: Sendable, Equatable {
    /// The captured connection (its number in `blecap timeline`).
    public var connection: Int
    /// The captured peripheral's address: recorded on the peripheral, as its controller's
    /// power-on sequence set it (the random address when it set one, else its public one);
    /// recorded on the central, the LE Connection Complete's Peer_Address. Nil when the
    /// capture does not show it (then the user names the device with --peer).
    public var peripheral: BDAddr?
    /// 0 public, 1 random (2 and 3, resolved identities, count as 0 and 1).
    public var peripheralAddressType: UInt8
    /// The captured central's address (the capture's peer, or its own host's as its
    /// power-on sequence showed it) and its type (0 public, 1 random; 2 and 3, resolved
    /// identities, count as 0 and 1).
    public var central: BDAddr?
    public var centralAddressType: UInt8?
    /// Connection interval (1.25 ms), peripheral latency and supervision timeout (10 ms) as
    /// captured; nil when the capture does not show the connection's start.
    public var timing: ConnectionTiming?
    /// How the captured link ended (side from the captured peripheral's view: local is the
    /// peripheral, remote the central), nil when the capture does not show it.
    public var capturedEnd: ReplayLinkEnd?
    /// The capture shows extended scanning or initiating (recorded on the central), or the
    /// captured peripheral's advertising in extended (non-legacy) PDUs, which only extended
    /// scanning receives (Vol 6 Part B 4.4.2).
    public var capturedExtended: Bool = false
}

extension VirtualController {
    /// Role central: the next captured connection to play, nil when every one was.
    public var nextCapturedCentralConnection: CapturedCentralConnection? {
        guard configuration.role == .central, let m = unserved.first else { return nil }
        let c = replay.models[m].connection
        let session = replay.session
        // Recorded on the central: the peripheral is the recording host's peer.
        let peripheral =
            c.hostAsCaptured.map { ($0.address, ($0.type ?? 0) & 1) }
            ?? (session.hostRandomAddress ?? session.hostPublicAddress, session.hostRandomAddress == nil ? 0 : 1)
        return CapturedCentralConnection(
            connection: c.number, peripheral: peripheral.0, peripheralAddressType: peripheral.1,
            central: c.summary.peer,
            centralAddressType: c.summary.peerAddressType.map { $0 & 1 },
            timing: c.timing, capturedEnd: replay.models[m].linkEnd,
            capturedExtended: session.hostUsedExtendedScanning
                || (c.advertisement.map { $0.extended && !AdvertisingKind(captured: $0).legacy } ?? false))
    }

    /// Role central: the real controller the radio host drives connected to the real
    /// peripheral; the next captured connection comes up here at once, as if the host had been
    /// connected to by the captured central, which from now on plays its requests, writes and
    /// subscriptions at their captured offsets; the real peripheral's ACL data is fed in as
    /// the host's. Its handle here; nil when every captured connection was played.
    /// `central` and `peripheral` are the real link's addresses (type 0 public, 1 random), what
    /// SMP computes with (ia and ra); nil: this controller's own view of them.
    public func startRadioCentralConnection(
        central: (type: UInt8, address: BDAddr)? = nil, peripheral: (type: UInt8, address: BDAddr)? = nil
    ) -> UInt16? {
        guard configuration.role == .central, pendingConnection == nil, let m = unserved.first else { return nil }
        let captured = replay.models[m].connection
        pendingConnection = PendingConnection(
            extended: false, useAcceptList: false, peerType: captured.summary.peerAddressType ?? 0,
            peer: captured.summary.peer ?? BDAddr(rawValue: 0), model: m)
        establish()
        guard let c = connections.values.first(where: { $0.model == m }) else { return nil }
        c.overRadio = true
        if let central { c.initiator = (central.type & 1, central.address) }
        if let peripheral { c.responder = (peripheral.type & 1, peripheral.address) }
        return c.handle
    }

    /// When the captured peer's request still waiting for the host's answer on `handle` went
    /// out (µs on this controller's clock); nil when none waits.
    public func outstandingPeerRequest(handle: UInt16) -> Int64? {
        connections[handle]?.bearer.outstanding(.peer)?.sentAt
    }

    /// The captured peer's request on `handle` has waited for the host's answer 30 s or more at
    /// `now` (this controller's clock): the transaction fails and the bearer is timed out, no
    /// more ATT PDUs on it (Core Vol 3 Part F 3.3.3). Returns whether it was (nil: no such
    /// connection, or no request 30 s old).
    @discardableResult
    public func attTransactionTimedOut(handle: UInt16, now: Int64) -> Bool {
        connections[handle]?.bearer.timeOut(.peer, now: now) != nil
    }

    /// Whether the captured peer on `handle` still has something to do: a request, command,
    /// answer or notification scheduled, or its own end of the link.
    public func peerHasWork(handle: UInt16) -> Bool {
        guard let c = connections[handle] else { return false }
        let model = replay.models[c.model]
        let steps = model.steps[min(c.peerStep, model.steps.count)...].contains {
            !$0.hostIsClient && $0.opcode != ATTOpcode.handleValueConfirmation.rawValue
        }
        return steps || c.peerStepScheduled || c.endScheduled || nextDeadline != nil
    }

    /// Whether the captured peer on `handle` still owes the capture something of its own: a
    /// request or command not sent yet, a request not answered yet, or its own end of the link.
    /// Unlike `peerHasWork`, the controller's pending timers (a completed-packets report) do
    /// not count: a device that ends the link right after its last answer, as the captured
    /// peripheral did, ended it when the captured central was done.
    public func peerOwes(handle: UInt16) -> Bool {
        guard let c = connections[handle] else { return false }
        let model = replay.models[c.model]
        let steps = model.steps[min(c.peerStep, model.steps.count)...].contains {
            !$0.hostIsClient && $0.opcode != ATTOpcode.handleValueConfirmation.rawValue
        }
        return steps || c.peerStepScheduled || c.peerRequestOutstanding || c.endScheduled
    }
}

extension VirtualController {
    /// The captured connections it plays in its role, in the order it plays them: number and
    /// peer (the captured peer of this role's far side), for the user to choose from.
    public var servableConnectionList: [(number: Int, peer: BDAddr?)] {
        unserved.map { (replay.models[$0].number, replay.models[$0].connection.summary.peer) }
    }

    /// Plays captured connection `number` only (`--connection`); false, changing nothing, when
    /// it is not one it plays in its role.
    public func playOnly(connection number: Int) -> Bool {
        guard let m = unserved.first(where: { replay.models[$0].number == number }) else { return false }
        (unserved, chosen) = ([m], m)
        return true
    }
}
