#if canImport(Glibc)
    import Glibc
#endif

/// What fleet rows say in place of device addresses and names.
///
/// A Bluetooth address has 48 bits, most of them fixed by the vendor's prefix: an unkeyed hash
/// of one is reversed by hashing every address of that vendor. Pseudonyms are therefore keyed
/// (HMAC-SHA256 under a secret the fleet's owner keeps), and without a key there are none:
/// the identifying fields are left out (`null`), never hashed without a key.
public enum IdentifierPolicy: Sendable {
    /// `--raw-identifiers`: addresses and names as the capture has them.
    case raw
    /// Keyed pseudonyms: the same identifier gives the same pseudonym under one key.
    case keyed(Pseudonymizer)
    /// No key and no `--raw-identifiers`: identifying fields are `null`.
    case dropped

    /// The value a row carries for identifier `value` of `kind` ("addr", "name").
    public func apply(_ value: String?, kind: String) -> String? {
        guard let value else { return nil }
        switch self {
        case .raw: return value
        case .keyed(let p): return p.pseudonym(value, kind: kind)
        case .dropped: return nil
        }
    }

    /// The name written in each capture row (`identifiers`), so a reader knows which it got.
    public var name: String {
        switch self {
        case .raw: "raw"
        case .keyed: "keyed-pseudonyms"
        case .dropped: "dropped"
        }
    }
}

/// HMAC-SHA256 pseudonyms: `kind:` and the first 16 bytes of HMAC(key, kind ":" value) in hex.
/// The kind is part of the message so that a name and an address that are the same string do
/// not share a pseudonym; addresses are upper-cased first (`aa:bb…` and `AA:BB…` are one device).
public struct Pseudonymizer: Sendable {
    let hmac: HMACSHA256

    /// Refuses keys shorter than 16 bytes: a short key can be searched for.
    public init?(key: [UInt8]) {
        guard key.count >= 16 else { return nil }
        hmac = HMACSHA256(key: key)
    }

    public func pseudonym(_ value: String, kind: String) -> String {
        let normal = kind == "addr" ? value.uppercased() : value
        let mac = hmac.mac(Array("\(kind):\(normal)".utf8))
        return "\(kind):" + Array(mac[0..<16]).hexString
    }

    /// The key from `--pseudonym-key-file` (the file's bytes, one final newline dropped) or else
    /// `BLECAP_PSEUDONYM_KEY` (its UTF-8 bytes). nil when neither is given.
    public static func loadKey(file: String?, environment: String? = nil) throws(PseudonymKeyError) -> [UInt8]? {
        var key: [UInt8]
        if let file {
            guard let bytes = readWholeFile(file, limit: 4096) else { throw .unreadable(file) }
            key = bytes
            if key.last == 0x0A { key.removeLast() }
            if key.last == 0x0D { key.removeLast() }
        } else if let env = environment ?? getenv("BLECAP_PSEUDONYM_KEY").map({ String(cString: $0) }), !env.isEmpty {
            key = Array(env.utf8)
        } else {
            return nil
        }
        guard key.count >= 16 else { throw .tooShort(key.count) }
        return key
    }
}

public enum PseudonymKeyError: Error, CustomStringConvertible, Equatable {
    case unreadable(String)
    case tooShort(Int)

    public var description: String {
        switch self {
        case .unreadable(let f): "cannot read the pseudonym key file \(f) (at most 4096 bytes)"
        case .tooShort(let n): "the pseudonym key has \(n) bytes; it needs at least 16"
        }
    }
}

/// A small file's bytes, or nil when it cannot be read or is longer than `limit`.
func readWholeFile(_ path: String, limit: Int) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return nil }
        if n == 0 { break }
        out += buf[0..<n]
        if out.count > limit { return nil }
    }
    return out
}
