import BLEAir
import BLEBytes
import BLECodes
import BLEPackets
import Testing

/// `ATTBearerState` on real PDUs from BLEPackets' encoders: one outstanding request per client
/// and one unconfirmed indication to it (Core 5.4 Vol 3 Part F 3.3.2), which response answers
/// a request and which PDU confirms an indication, the Exchange MTU (3.4.2) and the 30 s
/// transaction timeout of either (3.3.3).
@Suite struct ATTBearerStateTests {
    /// Runs `body` with `bytes` decoded as a typed ATT PDU.
    func decoded<R>(_ bytes: [UInt8], _ body: (ATTPDU) -> R) -> R { bytes.withByteView { body(ATTPDU($0)) } }

    /// The opcode of an encoded request, read back through the typed decoder.
    func opcode(_ bytes: [UInt8]) -> ATTOpcode { decoded(bytes) { $0.opcode! } }

    @Test func aSecondRequestWhileOneIsOutstandingIsARuleBroken() {
        var bearer = ATTBearerState()
        let read = ATTReadRequest(handle: 0x0003).encoded()
        #expect(bearer.maySendRequest(.host))
        #expect(bearer.requestSent(opcode(read), by: .host, at: 1_000, tag: 7) == nil)
        #expect(bearer.outstanding(.host) == .init(opcode: .readRequest, sentAt: 1_000, tag: 7))
        // The host's client waits; the peer's client is another client with its own request.
        #expect(!bearer.maySendRequest(.host))
        #expect(bearer.maySendRequest(.peer))
        // A client that did not wait (as a capture may show): the later one is outstanding, and
        // the displaced one is handed back.
        let write = [0xAA, 0xBB].withByteView { ATTWriteRequest(handle: 0x0005, value: $0).encoded() }
        let displaced = bearer.requestSent(opcode(write), by: .host, at: 2_000, tag: 8)
        #expect(displaced?.tag == 7)
        #expect(bearer.outstanding(.host)?.opcode == .writeRequest)
        #expect(bearer.responseReceived(by: .host)?.tag == 8)
        #expect(bearer.maySendRequest(.host))
    }

    @Test func onlyTheOutstandingRequestsResponseOrErrorAnswersIt() {
        var bearer = ATTBearerState()
        bearer.requestSent(opcode(ATTReadRequest(handle: 0x0003).encoded()), by: .host, at: 0)
        let readResponse = [0x01].withByteView { ATTReadResponse(value: $0).encoded() }
        let writeResponse = ATTWriteResponse().encoded()
        let readError = ATTErrorResponse(
            requestOpcode: .readRequest, handle: 3, errorCode: ATTErrorCode.readNotPermitted
        )
        .encoded()
        let writeError = ATTErrorResponse(
            requestOpcode: .writeRequest, handle: 3, errorCode: ATTErrorCode.invalidHandle
        )
        .encoded()
        #expect(decoded(readResponse) { bearer.answersOutstanding($0, of: .host) })
        #expect(decoded(readError) { bearer.answersOutstanding($0, of: .host) })
        // A response or an error that names another request answers another transaction.
        #expect(!decoded(writeResponse) { bearer.answersOutstanding($0, of: .host) })
        #expect(!decoded(writeError) { bearer.answersOutstanding($0, of: .host) })
        // Nothing the peer's client sent is outstanding.
        #expect(!decoded(readResponse) { bearer.answersOutstanding($0, of: .peer) })
        // A notification answers nothing.
        let notification = [0x01].withByteView { ATTHandleValueNotification(handle: 3, value: $0).encoded() }
        #expect(!decoded(notification) { bearer.answersOutstanding($0, of: .host) })
    }

    @Test func anExchangeBelowTheDefaultLeavesATTMTUAt23() {
        var bearer = ATTBearerState()
        #expect(bearer.mtu == 23 && !bearer.mtuExchanged)
        let request = ATTExchangeMTURequest(clientRxMTU: 517).encoded()
        // A server announcing 20 (less than allowed): ATT_MTU stays 23 (Vol 3 Part F 3.4.2.2).
        let low = ATTExchangeMTUResponse(serverRxMTU: 20).encoded()
        #expect(
            request.withByteView { q in
                low.withByteView { bearer.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0)) }
            })
        #expect(bearer.mtu == 23 && bearer.mtuExchanged)
        var other = ATTBearerState()
        let high = ATTExchangeMTUResponse(serverRxMTU: 247).encoded()
        #expect(
            request.withByteView { q in
                high.withByteView { other.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0)) }
            })
        #expect(other.mtu == 247)
        // A request too short for its Client Rx MTU counts as the default.
        var short = ATTBearerState()
        let truncated = Array(request.prefix(1))
        #expect(
            truncated.withByteView { q in
                high.withByteView { short.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0)) }
            })
        #expect(short.mtu == 23 && short.mtuExchanged)
        // A read and its response are no exchange.
        var none = ATTBearerState()
        let read = ATTReadRequest(handle: 3).encoded()
        let readResponse = [0x01].withByteView { ATTReadResponse(value: $0).encoded() }
        #expect(
            !read.withByteView { q in
                readResponse.withByteView { none.exchangeCompleted(request: ATTPDU(q), response: ATTPDU($0)) }
            })
        #expect(none.mtu == 23 && !none.mtuExchanged)
        // Evidence of a larger ATT_MTU raises it and never lowers it.
        none.adoptEvidence(185)
        none.adoptEvidence(100)
        none.adoptEvidence(nil)
        #expect(none.mtu == 185 && !none.mtuExchanged)
    }

    @Test func aRequestUnansweredFor30SecondsTimesTheBearerOut() {
        var bearer = ATTBearerState()
        let sent: Int64 = 5_000
        bearer.requestSent(opcode(ATTReadRequest(handle: 3).encoded()), by: .host, at: sent, tag: 42)
        #expect(bearer.timeoutDue(.host) == sent + 30_000_000)
        #expect(bearer.timeOut(.host, now: sent + 29_999_999) == nil)
        #expect(!bearer.timedOut)
        #expect(bearer.timeOut(.host, now: sent + 30_000_000)?.tag == 42)
        #expect(bearer.timedOut)
        // No more ATT on the bearer: no request may go, none is recorded, nothing is outstanding.
        #expect(!bearer.maySendRequest(.host) && !bearer.maySendRequest(.peer))
        #expect(bearer.outstanding(.host) == nil)
        bearer.requestSent(opcode(ATTReadRequest(handle: 3).encoded()), by: .peer, at: sent + 30_000_001)
        #expect(bearer.outstanding(.peer) == nil)
        #expect(bearer.timeOut(.host, now: sent + 60_000_000) == nil)
    }

    /// The handle of an encoded indication, read back through the typed decoder.
    func indicatedHandle(_ bytes: [UInt8]) -> UInt16? {
        decoded(bytes) { if case .handleValueIndication(let i) = $0 { i.handle } else { nil } }
    }

    static let indication = ATTHandleValueIndication.encoded(handle: 0x002A, value: [0x01, 0x02])
    static let confirmation = ATTHandleValueConfirmation().encoded()

    @Test func aSecondIndicationBeforeTheConfirmationIsARuleBroken() throws {
        var bearer = ATTBearerState()
        let h = try #require(indicatedHandle(Self.indication))
        #expect(bearer.maySendIndication(to: .host))
        #expect(bearer.indicationSent(handle: h, to: .host, at: 1_000, tag: 3) == nil)
        #expect(bearer.outstandingIndication(to: .host) == .init(handle: 0x002A, sentAt: 1_000, tag: 3))
        // The peer's server waits for the host's client; the host's server indicates to another
        // client; requests are another transaction.
        #expect(!bearer.maySendIndication(to: .host))
        #expect(bearer.maySendIndication(to: .peer))
        #expect(bearer.maySendRequest(.host) && bearer.outstanding(.host) == nil)
        // A server that did not wait: the later indication is the outstanding one.
        #expect(bearer.indicationSent(handle: h, to: .host, at: 2_000, tag: 4)?.tag == 3)
        // Only a Handle Value Confirmation confirms (a notification, a response do not).
        let notification = [0x01].withByteView { ATTHandleValueNotification(handle: h, value: $0).encoded() }
        #expect(decoded(Self.confirmation) { ATTBearerState.Indication.isConfirmed(by: $0) })
        #expect(!decoded(notification) { ATTBearerState.Indication.isConfirmed(by: $0) })
        #expect(!decoded(ATTWriteResponse().encoded()) { ATTBearerState.Indication.isConfirmed(by: $0) })
        #expect(bearer.confirmationReceived(from: .host)?.tag == 4)
        #expect(bearer.maySendIndication(to: .host))
        // A confirmation nothing asked for confirms nothing.
        #expect(bearer.confirmationReceived(from: .host) == nil)
        // The link's end leaves nothing unconfirmed.
        bearer.indicationSent(handle: h, to: .peer, at: 3_000)
        bearer.closed()
        #expect(bearer.outstandingIndication(to: .peer) == nil)
    }

    @Test func anIndicationUnconfirmedFor30SecondsTimesTheBearerOut() throws {
        var bearer = ATTBearerState()
        let sent: Int64 = 7_000
        let h = try #require(indicatedHandle(Self.indication))
        bearer.indicationSent(handle: h, to: .peer, at: sent, tag: 9)
        // The indication's client is the one whose transaction is open.
        #expect(bearer.timeoutDue(.peer) == sent + 30_000_000)
        #expect(bearer.timeoutDue(.host) == nil)
        #expect(bearer.timeOut(.host, now: sent + 30_000_000) == nil)
        #expect(bearer.timeOut(.peer, now: sent + 29_999_999) == nil)
        #expect(!bearer.timedOut)
        let t = bearer.timeOut(.peer, now: sent + 30_000_000)
        #expect(t == .indication(.init(handle: 0x002A, sentAt: sent, tag: 9)))
        #expect(t?.tag == 9 && t?.sentAt == sent)
        #expect(bearer.timedOut)
        // No more ATT on the bearer: no indication may go, none is recorded.
        #expect(!bearer.maySendIndication(to: .peer) && !bearer.maySendIndication(to: .host))
        #expect(bearer.outstandingIndication(to: .peer) == nil)
        #expect(bearer.indicationSent(handle: h, to: .host, at: sent + 30_000_001) == nil)
        #expect(bearer.outstandingIndication(to: .host) == nil)
    }

    @Test func aClientsOlderTransactionTimesOutFirst() {
        let read = opcode(ATTReadRequest(handle: 3).encoded())
        // An indication to the host's client, then the host's own request: the indication is due first.
        var bearer = ATTBearerState()
        bearer.indicationSent(handle: 0x002A, to: .host, at: 5_000_000, tag: 1)
        bearer.requestSent(read, by: .host, at: 10_000_000, tag: 2)
        #expect(bearer.timeoutDue(.host) == 35_000_000)
        #expect(bearer.timeOut(.host, now: 35_000_000)?.tag == 1)
        #expect(bearer.outstanding(.host) == nil)
        // The request first: it is.
        var other = ATTBearerState()
        other.requestSent(read, by: .host, at: 5_000_000, tag: 2)
        other.indicationSent(handle: 0x002A, to: .host, at: 10_000_000, tag: 1)
        #expect(other.timeoutDue(.host) == 35_000_000)
        #expect(
            other.timeOut(.host, now: 35_000_000) == .request(.init(opcode: .readRequest, sentAt: 5_000_000, tag: 2)))
        #expect(other.outstandingIndication(to: .host) == nil)
    }
}
