import BLEBytes

/// Why a server PDU cannot be the answer to the request outstanding before it (Core 5.4 Vol 3
/// Part F 3.3.2, 3.4): a capture that lost frames (a sniffer that missed the request the PDU
/// really answers) pairs a response with the wrong request.
public enum ATTResponseMismatch: Sendable, Equatable {
    /// The response belongs to another request: its opcode is not the request's response
    /// opcode, or an Error Response names another Request Opcode In Error.
    case otherRequest(answered: ATTOpcode)
    /// A Read By Type Response whose entries are not of the size the requested declaration
    /// type has (include 6 or 8 octets, characteristic 7 or 21 with their handle: Vol 3
    /// Part G 3.2, 3.3.1).
    case entrySize(UInt8)
    /// A discovery response that lists a handle outside the requested range.
    case outsideRange(UInt16)
}

extension ATTPDU {
    /// Why `response` cannot answer `request`, or nil when it can (as far as its opcode, the
    /// request it names and the handles and entry sizes of a discovery list show).
    public static func mismatch(request: ByteView, response: ByteView) -> ATTResponseMismatch? {
        guard let requestOpcode = request.u8(0).map(ATTOpcode.init(_:)),
            let responseOpcode = response.u8(0).map(ATTOpcode.init(_:))
        else { return nil }
        if responseOpcode == .errorResponse {
            guard let e = ATTErrorResponse(pdu: response) else { return nil }
            return e.requestOpcode == requestOpcode ? nil : .otherRequest(answered: e.requestOpcode)
        }
        guard let expected = requestOpcode.responseOpcode else { return nil }
        if responseOpcode != expected {
            return .otherRequest(answered: ATTOpcode(responseOpcode.rawValue &- 1))
        }
        switch (ATTPDU(request), ATTPDU(response)) {
        case (.readByTypeRequest(let q), .readByTypeResponse(let r)):
            let sizes: [UInt8]
            switch q.attributeType.flatMap({ $0.width == 2 ? $0.uuid16 : nil }) {
            case GATTDeclaration.include?: sizes = [6, 8]
            case GATTDeclaration.characteristic?: sizes = [7, 21]
            default: sizes = []
            }
            if !sizes.isEmpty, !sizes.contains(r.length) { return .entrySize(r.length) }
            for e in r.attributeData
            where !(q.startingHandle...max(q.startingHandle, q.endingHandle)).contains(e.handle) {
                return .outsideRange(e.handle)
            }
        case (.readByGroupTypeRequest(let q), .readByGroupTypeResponse(let r)):
            for e in r.attributeData
            where !(q.startingHandle...max(q.startingHandle, q.endingHandle)).contains(e.handle) {
                return .outsideRange(e.handle)
            }
        case (.findInformationRequest(let q), .findInformationResponse(let r)):
            for e in r.information where !(q.startingHandle...max(q.startingHandle, q.endingHandle)).contains(e.handle)
            {
                return .outsideRange(e.handle)
            }
        default: break
        }
        return nil
    }
}
