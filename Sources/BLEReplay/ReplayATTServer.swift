import BLEAir
import BLEBytes
import BLEPackets

/// A GATT server answering ATT requests from a `ReplayServerModel`: discovery from its
/// attribute table by the rules of Core 5.4 Vol 3 Part F 3.4.3–3.4.4 (so a different request
/// gets the answer the captured server would have given), reads and writes from the recorded
/// answers in order (the n-th read of a handle gets the n-th captured answer, later ones the
/// last), errors as captured or as injected. `blecap replay`'s engine and the virtual HCI
/// controller (BLEController) answer from this one type; the recorded answers themselves come
/// from its `RecordedGATTValues`, which a replayed peer in the simulator answers from too.
package struct ReplayATTServer {
    private let model: ReplayServerModel
    private let faults: ReplayFaults
    /// Reads and writes: the recorded backing.
    private var values: RecordedGATTValues
    private var verbatimCursor: [[UInt8]: Int] = [:]

    package init(model: ReplayServerModel, faults: ReplayFaults) {
        self.model = model
        self.faults = faults
        values = RecordedGATTValues(servers: [model], faults: faults)
    }

    /// The ATT_MTU the capture shows in force at its index `i` (an exchange the capture does
    /// not contain), for the bearer's `ATTBearerState.adoptEvidence`.
    package func evidencedMTU(at i: Int) -> Int? { model.evidencedMTU(at: i) }

    /// The response to `request` on a bearer whose ATT_MTU is `mtu`, or nil when none is due
    /// (commands, confirmations). An Exchange MTU's response carries the server's Rx MTU; the
    /// bearer takes the exchange's ATT_MTU from the two PDUs once the response is delivered
    /// (`ATTBearerState.exchangeCompleted`).
    package mutating func answer(_ request: [UInt8], mtu: UInt16 = ATTBearer.defaultMTU) -> [UInt8]? {
        guard let first = request.first, ATTRole.isRequest(first) else { return nil }
        return request.withByteView { answer(ATTPDU($0), $0, request, mtu: Int(mtu)) }
    }

    /// The response to a request, decoded by BLEPackets; `request` is its bytes (the recorded
    /// answers of requests the model does not interpret are keyed by them). A request too short
    /// for its opcode is answered from the fields it does hold, the missing ones read as 0.
    private mutating func answer(_ pdu: ATTPDU, _ bytes: ByteView, _ request: [UInt8], mtu: Int) -> [UInt8] {
        switch pdu {
        case .exchangeMTURequest: return exchangeMTU()
        case .findInformationRequest(let r): return findInformation(r.startingHandle, r.endingHandle, mtu: mtu)
        case .findByTypeValueRequest(let r):
            return findByTypeValue(
                r.startingHandle, r.endingHandle, type: r.attributeType, value: r.attributeValue.toArray(), mtu: mtu)
        case .readByTypeRequest(let r):
            return readByType(r.startingHandle, r.endingHandle, type: r.attributeType, request, mtu: mtu)
        case .readByGroupTypeRequest(let r):
            return readByGroupType(r.startingHandle, r.endingHandle, type: r.groupType, mtu: mtu)
        case .readRequest(let r): return read(r.handle, mtu: mtu)
        case .readBlobRequest(let r): return readBlob(r.handle, offset: r.offset, mtu: mtu)
        case .writeRequest(let r): return write(r.handle, r.value.toArray())
        case .prepareWriteRequest(let r):
            // The response echoes handle, offset and part (Vol 3 Part F 3.4.6.2).
            return prepareWrite(
                r.handle,
                echo: ATTPrepareWriteResponse(handle: r.handle, offset: r.offset, partValue: r.partValue).encoded())
        case .readMultipleRequest(let r):
            return other(.readMultipleRequest, r.handles.first { _ in true }?.handle, request)
        case .readMultipleVariableRequest(let r):
            return other(.readMultipleVariableRequest, r.handles.first { _ in true }?.handle, request)
        case .malformed(let op?, let raw, _):
            let (a, b) = ATTPDU.leadingHandles(of: raw)
            switch op {
            case .exchangeMTURequest: return exchangeMTU()
            case .findInformationRequest: return findInformation(a ?? 0, b ?? 0, mtu: mtu)
            case .findByTypeValueRequest: return findByTypeValue(a ?? 0, b ?? 0, type: nil, value: [], mtu: mtu)
            case .readByTypeRequest: return readByType(a ?? 0, b ?? 0, type: nil, request, mtu: mtu)
            case .readByGroupTypeRequest: return readByGroupType(a ?? 0, b ?? 0, type: nil, mtu: mtu)
            case .readRequest: return read(a ?? 0, mtu: mtu)
            case .readBlobRequest: return readBlob(a ?? 0, offset: b ?? 0, mtu: mtu)
            case .writeRequest: return write(a ?? 0, [])
            case .prepareWriteRequest:
                // Echoed byte for byte even when the request is too short for its fields.
                return prepareWrite(
                    a ?? 0, echo: [ATTOpcode.prepareWriteResponse.rawValue] + (raw.suffix(from: 1)?.toArray() ?? []))
            default: return other(op, a, request)
            }
        default:  // Execute Write Request
            return other(ATTOpcode(request[0]), ATTPDU.leadingHandles(of: bytes).first, request)
        }
    }

    /// The handle a read or write names, unless the server has no such attribute (Invalid
    /// Handle, 3.4.1.1); an injected error on it is answered even so.
    private func known(_ h: UInt16) -> Bool { model.attribute(h) != nil || values.fault(h) != nil }

    /// Read Request (3.4.4.3): the recorded answer, cut to ATT_MTU − 1.
    private mutating func read(_ h: UInt16, mtu: Int) -> [UInt8] {
        let op = ATTOpcode.readRequest
        guard known(h) else { return error(op, h, ATTErrorCode.invalidHandle) }
        switch values.read(h) {
        case .error(let code): return error(op, h, code)
        case .value(let v): return readResponse(v.prefix(mtu - 1))
        }
    }

    /// Read Blob Request (3.4.4.5): the recorded answer, cut to ATT_MTU − 1.
    private mutating func readBlob(_ h: UInt16, offset: UInt16, mtu: Int) -> [UInt8] {
        let op = ATTOpcode.readBlobRequest
        guard known(h) else { return error(op, h, ATTErrorCode.invalidHandle) }
        switch values.readBlob(h, offset: offset) {
        case .error(let code): return error(op, h, code)
        case .value(let v): return readBlobResponse(v.prefix(mtu - 1))
        }
    }

    /// Write Request (3.4.5.1): the recorded outcome.
    private mutating func write(_ h: UInt16, _ value: [UInt8]) -> [UInt8] {
        let op = ATTOpcode.writeRequest
        guard known(h) else { return error(op, h, ATTErrorCode.invalidHandle) }
        if let code = values.write(h, value) { return error(op, h, code) }
        return ATTWriteResponse().encoded()
    }

    /// Prepare Write Request (3.4.6.1): the recorded outcome, else `echo`, the response that
    /// echoes the request.
    private mutating func prepareWrite(_ h: UInt16, echo: [UInt8]) -> [UInt8] {
        let op = ATTOpcode.prepareWriteRequest
        guard known(h) else { return error(op, h, ATTErrorCode.invalidHandle) }
        if let code = values.prepareWrite(h) { return error(op, h, code) }
        return echo
    }

    /// A request the model does not interpret (Read Multiple, Read Multiple Variable, Execute
    /// Write): its recorded answers by its bytes, in order; an Execute Write nobody refused
    /// succeeds; anything else is not supported (3.4.1.1), naming `handle` (its first, or 0).
    private mutating func other(_ op: ATTOpcode, _ handle: UInt16?, _ request: [UInt8]) -> [UInt8] {
        if let recorded = model.verbatim[request] {
            let i = verbatimCursor[request, default: 0]
            verbatimCursor[request] = i + 1
            return recorded[min(i, recorded.count - 1)]
        }
        return op == .executeWriteRequest
            ? ATTExecuteWriteResponse().encoded()
            : error(op, handle ?? 0, ATTErrorCode.requestNotSupported)
    }

    private func error(_ request: ATTOpcode, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        ATTErrorResponse(requestOpcode: request, handle: handle, errorCode: code).encoded()
    }

    private func readResponse(_ v: ArraySlice<UInt8>) -> [UInt8] {
        Array(v).withByteView { ATTReadResponse(value: $0).encoded() }
    }

    private func readBlobResponse(_ v: ArraySlice<UInt8>) -> [UInt8] {
        Array(v).withByteView { ATTReadBlobResponse(partValue: $0).encoded() }
    }

    /// Exchange MTU (3.4.2): the server's Rx MTU as captured (or injected); the bearer's
    /// ATT_MTU becomes the smaller of the two, at least 23, once this response is delivered.
    private func exchangeMTU() -> [UInt8] {
        let server = faults.serverMTU ?? model.serverRxMTU ?? ATTBearer.defaultMTU
        return ATTExchangeMTUResponse(serverRxMTU: server).encoded()
    }

    /// The range of a discovery request, or the Invalid Handle error it deserves (a zero or
    /// reversed range, 3.4.3.1).
    private func range(_ op: ATTOpcode, _ s: UInt16, _ e: UInt16) -> (ClosedRange<UInt16>?, [UInt8]?) {
        guard s != 0, s <= e else { return (nil, error(op, s, ATTErrorCode.invalidHandle)) }
        return (s...e, nil)
    }

    private func notFound(_ op: ATTOpcode, _ s: UInt16, _ e: UInt16) -> [UInt8] {
        error(op, model.notFoundHandle(opcode: op.rawValue, start: s, end: e), ATTErrorCode.attributeNotFound)
    }

    /// The captured server's habit: how many entries one response of `opcode` lists at most.
    private func entryLimit(_ opcode: ATTOpcode, _ size: Int) -> Int { model.entryLimit(opcode.rawValue, size) }

    /// Find Information (3.4.3.1–2), from the table by `GATTDiscovery`.
    private func findInformation(_ s: UInt16, _ e: UInt16, mtu: Int) -> [UInt8] {
        let op = ATTOpcode.findInformationRequest
        let (r, bad) = range(op, s, e)
        guard let r else { return bad! }
        return GATTDiscovery.findInformation(model.attributes, in: r, mtu: mtu, entryLimit: entryLimit)
            ?? notFound(op, s, e)
    }

    /// Find By Type Value (3.4.3.3–4), from the table by `GATTDiscovery`. `type` nil: the
    /// request ends before its Attribute Type.
    private func findByTypeValue(_ s: UInt16, _ e: UInt16, type: UInt16?, value: [UInt8], mtu: Int) -> [UInt8] {
        let op = ATTOpcode.findByTypeValueRequest
        let (r, bad) = range(op, s, e)
        guard let r else { return bad! }
        guard let type else { return error(op, 0, ATTErrorCode.invalidPDU) }
        return GATTDiscovery.findByTypeValue(
            model.attributes, in: r, type: type, value: value, mtu: mtu, entryLimit: entryLimit)
            ?? notFound(op, s, e)
    }

    /// Read By Type (3.4.4.1–2) for include and characteristic declarations, from the table by
    /// `GATTDiscovery`. `type` nil: not a 16- or 128-bit UUID (or no type at all); other types
    /// are answered as captured.
    private func readByType(_ s: UInt16, _ e: UInt16, type: BluetoothUUID?, _ request: [UInt8], mtu: Int) -> [UInt8] {
        let op = ATTOpcode.readByTypeRequest
        let (r, bad) = range(op, s, e)
        guard let r else { return bad! }
        guard let type else { return error(op, 0, ATTErrorCode.invalidPDU) }
        if type != ReplayAttribute.characteristic && type != ReplayAttribute.include,
            let recorded = model.verbatim[request]
        {
            return recorded[0]
        }
        return GATTDiscovery.readByType(model.attributes, in: r, type: type, mtu: mtu, entryLimit: entryLimit)
            ?? notFound(op, s, e)
    }

    /// Read By Group Type (3.4.4.9–10), from the table by `GATTDiscovery`; group types other
    /// than the service declarations are not grouping types (0x10).
    private func readByGroupType(_ s: UInt16, _ e: UInt16, type: BluetoothUUID?, mtu: Int) -> [UInt8] {
        let op = ATTOpcode.readByGroupTypeRequest
        let (r, bad) = range(op, s, e)
        guard let r else { return bad! }
        guard let type, type == ReplayAttribute.primaryService || type == ReplayAttribute.secondaryService else {
            return error(op, s, ATTErrorCode.unsupportedGroupType)
        }
        return GATTDiscovery.readByGroupType(model.attributes, in: r, type: type, mtu: mtu, entryLimit: entryLimit)
            ?? notFound(op, s, e)
    }
}
