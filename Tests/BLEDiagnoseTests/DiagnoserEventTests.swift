import BLEDiagnose
import BLEPackets
import BLETimeline
import Testing

/// Cause classes no shipped capture shows, held on event sequences as a timeline would emit
/// them (frame numbers and times made up, each event as TimelineBuilder builds it).
@Suite struct DiagnoserEventTests {
    /// A connection's events: 1 LE Connection Complete (this host central), then `body`, then a
    /// Disconnection Complete at `endFrame`.
    static func run(
        role: UInt8 = 0, reason: UInt8, side: DisconnectionSide, endFrame: Int = 100, endTime: Int64 = 10_000_000,
        _ body: [TimelineEvent]
    ) -> [Verdict] {
        let d = Diagnoser()
        d.observe(
            event(
                1, 0,
                .connectionComplete(.make(status: 0, handle: 0x40, role: role, timing: nil, isLE: true))))
        for e in body { d.observe(e) }
        d.observe(event(endFrame, endTime, .disconnection(status: 0, reason: reason, side: side)))
        return d.finish()
    }

    static func event(_ frame: Int, _ time: Int64, _ kind: TimelineEvent.Kind, connection: Int? = 1) -> TimelineEvent {
        TimelineEvent(frame: frame, time: time, connection: connection, kind: kind)
    }

    static func read(_ frame: Int, _ time: Int64, handle: UInt16, outcome: Outcome) -> TimelineEvent {
        var e = event(
            frame, time,
            .read(.make(opcode: 0x0A, handle: handle, attribute: nil, mtu: 23, offset: nil, sent: true), .read))
        e.outcome = outcome
        return e
    }

    @Test func attTransactionTimeout() throws {
        let v = try #require(
            Self.run(
                reason: 0x16, side: .local, endTime: 31_000_000,
                [Self.read(10, 1_000_000, handle: 3, outcome: .timeout)]
            )
            .first)
        #expect(v.cause == "att_transaction_timeout" && v.party == "peer")
        #expect(
            v.signature == "att_transaction_timeout request=gatt.read requester=host role=central end=local reason=0x16"
        )
        #expect(v.steps.contains { $0.what == "att_timeout" && $0.frames == [10] && $0.certainty == .observed })
    }

    @Test func pairingFailedByThePeer() throws {
        let v = try #require(
            Self.run(
                reason: 0x13, side: .remote,
                [Self.event(20, 1_000_000, .pairingFailed(reason: 0x05, sent: false))]
            ).first)
        #expect(v.cause == "pairing_failed" && v.party == "peer")
        #expect(v.signature.hasPrefix("pairing_failed smp=0x05 by=peer phase=feature_exchange"))
        #expect(v.signals == ["pairing_failed:0x05:peer"])
    }

    @Test func keyMissingAsCentralBlamesThePeersLostBond() throws {
        let v = try #require(
            Self.run(
                reason: 0x06, side: .remote,
                [Self.event(30, 1_000_000, .encryptionChange(status: 0x06, enabled: 0))]
            ).first)
        #expect(v.cause == "key_missing")
        #expect(v.signature == "key_missing lost_by=peer role=central end=remote reason=0x06")
        #expect(v.steps.contains { $0.what == "key_missing" && $0.frames == [30, 100] && $0.certainty == .inferred })
    }

    @Test func peerLeavesAfterAnUnansweredSecurityRequest() throws {
        let v = try #require(
            Self.run(
                reason: 0x13, side: .remote, endTime: 3_000_000,
                [Self.event(40, 1_000_000, .securityRequest(authReq: 0x0D, sent: false))]
            ).first)
        #expect(v.cause == "disconnect_after_security_request" && v.party == "peer")
        #expect(
            v.signature == "disconnect_after_security_request requested_by=peer role=central end=remote reason=0x13")
    }

    @Test func securityRequestAnsweredByEncryptionIsNoCause() throws {
        let v = try #require(
            Self.run(
                reason: 0x13, side: .remote, endTime: 3_000_000,
                [
                    Self.event(40, 1_000_000, .securityRequest(authReq: 0x0D, sent: false)),
                    Self.event(45, 1_100_000, .encryptionChange(status: 0, enabled: 1)),
                ]
            ).first)
        #expect(v.cause == "remote_user_terminated")
    }

    @Test func hostDisconnectsRightAfterAGATTError() throws {
        let v = try #require(
            Self.run(
                reason: 0x16, side: .local, endTime: 1_500_000,
                [
                    Self.read(
                        50, 1_000_000, handle: 0x2A,
                        outcome: .error(frame: 52, latency: 20_000, code: 0x0E, handle: 0x2A))
                ]
            ).first)
        #expect(v.cause == "host_disconnected_after_gatt_error")
        #expect(v.signals == ["gatt_error:0x0E:gatt.read:host:ended"])
    }

    @Test func retryStormIsNamed() throws {
        var body: [TimelineEvent] = []
        for i in 0..<4 {
            let f = 10 + 4 * i
            body.append(
                Self.read(
                    f, Int64(f) * 100_000, handle: 0x2A,
                    outcome: .error(frame: f + 1, latency: 20_000, code: 0x05, handle: 0x2A)))
        }
        let v = try #require(Self.run(reason: 0x13, side: .remote, body).first)
        #expect(v.signals == ["insufficient_security:0x05:gatt.read:host:retry_storm"])
        // Frames per group are bounded: the first requests and responses, not every one.
        let step = try #require(v.steps.first { $0.what == "insufficient_security" })
        #expect(step.frames.count <= 8)
    }

    @Test func cancelledDirectConnectAfterThirtySecondsIsAConnectTimeout() throws {
        let d = Diagnoser()
        var create = Self.event(
            5, 0,
            .connectionCreate(
                .make(
                    extended: false, filterPolicy: 0, scanInterval: 96, scanWindow: 48, intervalMin: 24,
                    intervalMax: 40,
                    latency: 0, supervisionTimeout: 500)), connection: nil)
        create.outcome = .success(frame: 6, latency: 500)
        d.observe(create)
        var cancel = Self.event(9, 30_000_000, .connectionCancel, connection: nil)
        cancel.outcome = .success(frame: 10, latency: 500)
        d.observe(cancel)
        d.observe(
            Self.event(
                11, 30_001_000, .connectionFailed(.make(status: 0x02, handle: 0, role: 0, timing: nil, isLE: true)),
                connection: nil))
        let v = try #require(d.finish().first)
        #expect(v.kind == .attempt && v.ended == "cancelled")
        #expect(v.signature == "create_connection_cancelled wait=timeout")
        #expect(v.frames == [5, 9, 11])
    }

    @Test func attemptStillOpenAtTheEndIsCauseUnknown() throws {
        let d = Diagnoser()
        d.observe(
            Self.event(
                5, 0,
                .connectionCreate(
                    .make(
                        extended: false, filterPolicy: 1, scanInterval: 96, scanWindow: 48, intervalMin: 24,
                        intervalMax: 40, latency: 0, supervisionTimeout: 500)), connection: nil))
        let v = try #require(d.finish().first)
        #expect(v.cause == "cause_unknown" && v.signature == "cause_unknown attempt=capture_ended target=accept_list")
    }

    @Test func secondDisconnectionRightAfterAnEndIsAContradiction() throws {
        // As BTstack's PacketLogger shows it: Disconnection Complete 0x13 for the link, then
        // 20 µs later another one, 0x16, for no open link.
        let d = Diagnoser()
        d.observe(
            Self.event(1, 0, .connectionComplete(.make(status: 0, handle: 0x4A, role: 1, timing: nil, isLE: true))))
        d.observe(Self.event(10, 5_000_000, .disconnection(status: 0, reason: 0x13, side: .remote)))
        d.observe(Self.event(12, 5_000_020, .disconnection(status: 0, reason: 0x16, side: .local), connection: nil))
        let verdicts = d.finish()
        #expect(verdicts.count == 2)
        let v = try #require(verdicts.last)
        #expect(v.signature == "cause_unknown end=local reason=0x16 contradiction=second_disconnection")
        #expect(v.steps.contains { $0.what == "contradiction" && $0.frames == [10, 12] && $0.certainty == .inferred })
    }
}
