/// Writes an `Encodable` value as compact JSON into a `PageStream` while it is being encoded:
/// the same text as `JSONDocumentEncoder(style: .compact)` (keys in the order `encode(to:)`
/// writes them, numbers as Swift prints them), with strings script-safe
/// (`PageStream.scriptSafeJSONString`), but without building the document's tree and text first.
/// The report page's data went through both, which made a page's memory several times its size.
///
/// Streaming asks one thing of `encode(to:)` that a tree does not: values are written in order.
/// A nested container must be filled before its parent's next value (synthesized conformances
/// and every model here do so); a key written twice appears twice. An `encode(to:)` that writes
/// nothing is `{}`, as with `JSONDocumentEncoder`.
///
/// A NaN or infinity, which JSON cannot represent, is written as `null`: the text before it is
/// already out, so refusing the value (as `JSONDocumentEncoder` does) would leave the document
/// cut short. The report's models hold none.
struct JSONStreamEncoder {
    let state: JSONStreamState

    init(into stream: PageStream) { state = JSONStreamState(stream) }

    func encode(_ value: some Encodable) throws {
        try state.value(value, codingPath: [])
    }
}

/// The containers open in the text, innermost last, and the value slots being filled.
final class JSONStreamState {
    struct Container {
        let closer: UInt8
        /// The value slot the container is the value of.
        let slot: Int
        var members = 0
    }

    let stream: PageStream
    @exclusivity(unchecked) var open: [Container] = []
    @exclusivity(unchecked) var slots = 0
    /// The last slot given a scalar (to tell an `encode(to:)` that wrote nothing, `{}`).
    @exclusivity(unchecked) var lastScalarSlot = -1

    init(_ stream: PageStream) { self.stream = stream }

    /// Writes `value` in the slot just opened (a key, a comma, or the document's start).
    /// `key` is the value's key in its object, added to `codingPath` only when the value is not a
    /// scalar (the path is only read by encoders that nest).
    func value(_ value: some Encodable, codingPath: [any CodingKey], key: (any CodingKey)? = nil) throws {
        if scalar(value) { return }
        slots += 1
        let slot = slots
        let depth = open.count
        let path = key.map { codingPath + [$0] } ?? codingPath
        try value.encode(to: StreamEncoder(state: self, slot: slot, depth: depth, codingPath: path))
        if open.count > depth {
            close(to: depth)
        } else if lastScalarSlot != slot {
            stream.write("{}")
        }
    }

    /// Writes the value itself when it is a number, string or Bool; false for anything else.
    /// Told apart by comparing metatypes, not by `as?` casts: a cast that fails asks the runtime
    /// whether the type conforms to the protocols a cast may bridge through, which was most of
    /// the time encoding the page took. (Synthesized conformances reach the containers' typed
    /// `encode` overloads directly; this is for generic elements such as an `[Int]`'s.)
    @inline(__always) func scalar<T: Encodable>(_ value: T) -> Bool {
        if T.self == Int.self {
            stream.decimal(Int64(value as! Int))
        } else if T.self == String.self {
            stream.scriptSafeJSONString(value as! String)
        } else if T.self == Int64.self {
            stream.decimal(value as! Int64)
        } else if T.self == Double.self {
            double(value as! Double)
        } else if T.self == Bool.self {
            stream.write((value as! Bool) ? "true" : "false")
        } else if T.self == Int32.self {
            stream.decimal(Int64(value as! Int32))
        } else if T.self == Int16.self {
            stream.decimal(Int64(value as! Int16))
        } else if T.self == Int8.self {
            stream.decimal(Int64(value as! Int8))
        } else if T.self == UInt.self {
            stream.decimal(UInt64(value as! UInt))
        } else if T.self == UInt64.self {
            stream.decimal(value as! UInt64)
        } else if T.self == UInt32.self {
            stream.decimal(UInt64(value as! UInt32))
        } else if T.self == UInt16.self {
            stream.decimal(UInt64(value as! UInt16))
        } else if T.self == UInt8.self {
            stream.decimal(UInt64(value as! UInt8))
        } else if T.self == Float.self {
            double(Double(value as! Float))
        } else {
            return false
        }
        return true
    }

    func double(_ d: Double) {
        if d.isFinite { stream.write(d.description) } else { stream.write("null") }
    }

    /// Closes the containers opened past `depth` (nested ones whose parent moved on).
    func close(to depth: Int) {
        while open.count > depth { stream.byte(open.removeLast().closer) }
    }

    /// Opens a container as the value of `slot`, or returns the one already open for it.
    func container(slot: Int, depth: Int, opener: UInt8, closer: UInt8) -> Int {
        if open.count > depth && open[depth].slot == slot {
            close(to: depth + 1)
            return depth
        }
        close(to: depth)
        stream.byte(opener)
        open.append(Container(closer: closer, slot: slot))
        return depth
    }

    /// Starts the next member of the container at `index`: closes what its previous member left
    /// open, then the comma.
    @inline(__always) func member(of index: Int) {
        if open.count > index + 1 { close(to: index + 1) }
        if open[index].members > 0 { stream.byte(UInt8(ascii: ",")) }
        open[index].members += 1
    }

    func key(_ key: some CodingKey, of index: Int) {
        member(of: index)
        stream.scriptSafeJSONString(key.stringValue)
        stream.byte(UInt8(ascii: ":"))
    }

    func nullScalar(slot: Int) {
        stream.write("null")
        lastScalarSlot = slot
    }
}

struct StreamEncoder: Encoder {
    let state: JSONStreamState
    let slot: Int
    let depth: Int
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let index = state.container(
            slot: slot, depth: depth, opener: UInt8(ascii: "{"), closer: UInt8(ascii: "}"))
        return KeyedEncodingContainer(KeyedStream<Key>(state: state, index: index, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = state.container(
            slot: slot, depth: depth, opener: UInt8(ascii: "["), closer: UInt8(ascii: "]"))
        return UnkeyedStream(state: state, index: index, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleStream(state: state, slot: slot, codingPath: codingPath)
    }
}

struct KeyedStream<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: JSONStreamState
    /// The container's place in `state.open`.
    let index: Int
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        state.key(key, of: index)
        state.stream.write("null")
    }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        state.key(key, of: index)
        try state.value(value, codingPath: codingPath, key: key)
    }

    // The types synthesized conformances encode most, written without going through a generic.
    mutating func encode(_ value: String, forKey key: Key) throws {
        state.key(key, of: index)
        state.stream.scriptSafeJSONString(value)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        state.key(key, of: index)
        state.stream.decimal(Int64(value))
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        state.key(key, of: index)
        state.stream.decimal(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        state.key(key, of: index)
        state.double(value)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        state.key(key, of: index)
        state.stream.write(value ? "true" : "false")
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        nestedEncoder(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        nestedEncoder(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { nestedEncoder(AnyStreamKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { nestedEncoder(key) }

    /// An encoder for the value of `key`, closed when this container's next member starts (or
    /// the container closes).
    func nestedEncoder(_ key: some CodingKey) -> StreamEncoder {
        state.key(key, of: index)
        state.slots += 1
        return StreamEncoder(state: state, slot: state.slots, depth: index + 1, codingPath: codingPath + [key])
    }
}

struct UnkeyedStream: UnkeyedEncodingContainer {
    let state: JSONStreamState
    let index: Int
    var codingPath: [any CodingKey]
    var count: Int { state.open.count > index ? state.open[index].members : 0 }

    mutating func encodeNil() throws {
        state.member(of: index)
        state.stream.write("null")
    }

    mutating func encode(_ value: some Encodable) throws {
        state.member(of: index)
        try state.value(value, codingPath: codingPath)
    }

    mutating func encode(_ value: Int) throws {
        state.member(of: index)
        state.stream.decimal(Int64(value))
    }

    mutating func encode(_ value: Int64) throws {
        state.member(of: index)
        state.stream.decimal(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        nestedEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nestedEncoder().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { nestedEncoder() }

    func nestedEncoder() -> StreamEncoder {
        state.member(of: index)
        state.slots += 1
        return StreamEncoder(state: state, slot: state.slots, depth: index + 1, codingPath: codingPath)
    }
}

struct SingleStream: SingleValueEncodingContainer {
    let state: JSONStreamState
    let slot: Int
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { state.nullScalar(slot: slot) }

    mutating func encode(_ value: Int) throws {
        state.stream.decimal(Int64(value))
        state.lastScalarSlot = slot
    }

    mutating func encode(_ value: some Encodable) throws {
        if state.scalar(value) {
            state.lastScalarSlot = slot
            return
        }
        // A value encoding itself through a single-value container is its slot's value; one that
        // writes nothing leaves the slot empty, `{}`.
        try value.encode(to: StreamEncoder(state: state, slot: slot, depth: state.open.count, codingPath: codingPath))
    }
}

struct AnyStreamKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
