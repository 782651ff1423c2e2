/// What a GATT server answers to one operation on an attribute value: the value, or the ATT
/// Error Code of its Error Response (Core 5.4 Vol 3 Part F 3.4.1.1).
public enum GATTAnswer: Sendable, Equatable {
    case value([UInt8])
    case error(UInt8)
}

/// How a client wrote a value: a Write Request, a long write (Prepare Write … Execute Write,
/// one value, Vol 3 Part G 4.9.4) or a Write Command (no response, 4.9.1).
public enum GATTWriteKind: Sendable, Equatable {
    case request, longWrite, command
}

/// The answer operations of a GATT server's attribute values, whatever backs them: the
/// simulator's declared characteristics (a stored value or the app's handlers) or a capture's
/// recorded answers (BLEReplay's `RecordedGATTValues`, which the replay engine's and the virtual
/// controller's ATT server answer from too). The front that owns the bearer decodes requests
/// and checks what it checks (handles, properties, permissions) before it asks; the backing
/// only answers.
public protocol GATTValueBacking {
    /// A read of the whole value at `handle`, as a client's Read Characteristic Value (or Read
    /// Long) procedure delivers it.
    mutating func readValue(_ handle: UInt16) -> GATTAnswer
    /// A write of `value` to `handle`: nil when accepted, else the ATT Error Code (a command's
    /// error goes nowhere: it has no response).
    mutating func writeValue(_ handle: UInt16, _ value: [UInt8], kind: GATTWriteKind) -> UInt8?
}
