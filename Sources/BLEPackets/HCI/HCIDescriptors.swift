import BLEBytes

/// Describes one parameter block into a sink. Table entries hold these; calling one allocates
/// nothing (layout-based ones captured their static layout when the table was built).
public typealias HCIDescribeFunction = @Sendable (ByteView, FieldSink) -> Void

/// What blecap knows about one HCI command opcode (Core 5.4 Vol 4 Part E 7).
public struct HCICommandDescriptor: Sendable {
    public let opcode: UInt16
    /// Wireshark's name for the command, so `packets` output lines up with tshark's Info column.
    public let name: StaticString
    /// Describes the command's parameters; nil when they are not decoded (shown raw).
    public let describeParameters: HCIDescribeFunction?
    /// Describes the return parameters carried by Command Complete (status included).
    public let describeReturn: HCIDescribeFunction?

    public init(
        _ opcode: UInt16, _ name: StaticString,
        describeParameters: HCIDescribeFunction?, describeReturn: HCIDescribeFunction?
    ) {
        self.opcode = opcode
        self.name = name
        self.describeParameters = describeParameters
        self.describeReturn = describeReturn
    }

    /// A command whose parameters and return parameters are fixed layouts; nil means "not
    /// decoded", `[]` means "none expected" (so stray bytes are noted).
    init(
        _ opcode: UInt16, _ name: StaticString, _ parameters: [HCIParameter]? = nil,
        returns: [HCIParameter]? = nil
    ) {
        self.init(
            opcode, name,
            describeParameters: HCIFields.describer(parameters), describeReturn: HCIFields.returnDescriber(returns))
    }

    /// A command whose fixed fields `header` end in a count of repeated blocks.
    init(
        _ opcode: UInt16, _ name: StaticString, _ header: [HCIParameter], repeating blocks: HCIRepeatedBlocks,
        returns: [HCIParameter]? = nil
    ) {
        self.init(
            opcode, name, describeParameters: { HCIFields.describe(header, repeating: blocks, $0, into: $1) },
            describeReturn: HCIFields.returnDescriber(returns))
    }

    /// A command with hand-written parameter decoding.
    init(
        _ opcode: UInt16, _ name: StaticString, custom: @escaping HCIDescribeFunction,
        returns: [HCIParameter]? = nil
    ) {
        self.init(
            opcode, name, describeParameters: custom,
            describeReturn: HCIFields.returnDescriber(returns))
    }
}

/// What blecap knows about one event code (Vol 4 Part E 7.7) or LE Meta subevent (7.7.65).
public struct HCIEventDescriptor: Sendable {
    public let code: UInt8
    public let name: StaticString
    public let describe: HCIDescribeFunction?

    public init(_ code: UInt8, _ name: StaticString, describe: HCIDescribeFunction?) {
        self.code = code
        self.name = name
        self.describe = describe
    }

    init(_ code: UInt8, _ name: StaticString, _ layout: [HCIParameter]? = nil) {
        self.init(code, name, describe: HCIFields.describer(layout))
    }

    init(_ code: UInt8, _ name: StaticString, custom: @escaping HCIDescribeFunction) {
        self.init(code, name, describe: custom)
    }
}

extension HCIFields {
    /// Wraps a fixed layout as a table entry's describer (allocated once, when the table is built).
    static func describer(_ layout: [HCIParameter]?) -> HCIDescribeFunction? {
        guard let layout else { return nil }
        return { (view: ByteView, sink: FieldSink) in HCIFields.describe(layout, view, into: sink) }
    }

    /// Same for return parameters (status first).
    static func returnDescriber(_ layout: [HCIParameter]?) -> HCIDescribeFunction? {
        guard let layout else { return nil }
        return { (view: ByteView, sink: FieldSink) in HCIFields.describeReturn(layout, view, into: sink) }
    }
}

/// Binary search over a table sorted by key (checked by a test); no per-call allocation.
@inline(__always)
func binarySearch<T>(_ table: [T], _ key: UInt16, _ keyOf: (T) -> UInt16) -> T? {
    var low = 0
    var high = table.count - 1
    while low <= high {
        let mid = (low &+ high) >> 1
        let k = keyOf(table[mid])
        if k == key { return table[mid] }
        if k < key { low = mid + 1 } else { high = mid - 1 }
    }
    return nil
}
