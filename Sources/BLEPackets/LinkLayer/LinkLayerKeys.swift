import BLEBytes

/// Long Term Keys a user gave for an over-the-air capture (`--ltk`), each for every connection,
/// for the connections of one device address, or for one access address.
///
/// Which key a link uses is not guessed: every candidate is tried on the first encrypted PDU and
/// the one whose MIC verifies wins (`LinkSecurity`), so a key given for all connections costs
/// nothing on the links it does not fit.
public struct LinkLayerKeys: Sendable, Equatable {
    public enum Scope: Sendable, Hashable {
        case anyConnection
        /// The central's or the peripheral's address (CONNECT_IND's InitA or AdvA).
        case address(BDAddr)
        case accessAddress(UInt32)
    }

    public struct Key: Sendable, Hashable {
        public var scope: Scope
        public var ltk: UInt128

        public init(scope: Scope, ltk: UInt128) {
            self.scope = scope
            self.ltk = ltk
        }
    }

    public private(set) var keys: [Key] = []

    public init(_ keys: [Key] = []) { self.keys = keys }

    public var isEmpty: Bool { keys.isEmpty }

    public mutating func add(_ key: Key) {
        if !keys.contains(key) { keys.append(key) }
    }

    /// Parses one `--ltk` argument: `HEX` (all connections), `AA:BB:CC:DD:EE:FF=HEX` (a device)
    /// or `0x8E89BED6=HEX` (an access address). HEX is the key most significant octet first,
    /// as the specification, crackle and Wireshark's key table write it (32 hex digits, an
    /// optional 0x and spaces allowed).
    public static func parse(_ text: String) -> Key? {
        guard let eq = text.firstIndex(of: "=") else {
            return UInt128(hexMSBFirst: text).map { Key(scope: .anyConnection, ltk: $0) }
        }
        let target = String(text[..<eq]).trimmingSpaces
        guard let ltk = UInt128(hexMSBFirst: String(text[text.index(after: eq)...]).trimmingSpaces) else { return nil }
        if let address = BDAddr(target) { return Key(scope: .address(address), ltk: ltk) }
        var digits = Substring(target)
        guard digits.hasPrefix("0x") || digits.hasPrefix("0X") else { return nil }
        digits = digits.dropFirst(2)
        guard digits.count == 8, let aa = UInt32(digits, radix: 16) else { return nil }
        return Key(scope: .accessAddress(aa), ltk: ltk)
    }

    /// The keys that may fit a link, the most specific first (an access address, then a device,
    /// then the ones for every connection).
    func candidates(accessAddress: UInt32, central: BDAddr?, peripheral: BDAddr?) -> [UInt128] {
        var out: [UInt128] = []
        for k in keys {
            if case .accessAddress(let aa) = k.scope, aa == accessAddress { out.append(k.ltk) }
        }
        for k in keys {
            if case .address(let a) = k.scope, a == central || a == peripheral, !out.contains(k.ltk) {
                out.append(k.ltk)
            }
        }
        for k in keys where k.scope == .anyConnection && !out.contains(k.ltk) { out.append(k.ltk) }
        return out
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
