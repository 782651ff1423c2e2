import BLEBytes
import FoundationEssentials

/// Stable identity of a finding across runs and re-captures: rule, peer, handle and the
/// message with its decimal quantities (durations) masked. Frame numbers and times are not in
/// it, so the same problem recorded again keeps its fingerprint.
public enum Fingerprint {
    public static func compute(_ f: Finding) -> String {
        var text = f.ruleID + "|" + (f.peer ?? "-") + "|" + (f.handle.map { String($0) } ?? "-") + "|"
        text += normalize(f.message)
        // FNV-1a 64: tiny, stable across platforms and Swift versions (unlike Hasher).
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// Lower-cased, whitespace collapsed, numbers with a decimal point replaced by `#`.
    static func normalize(_ message: String) -> String {
        normalizeASCII(message) ?? normalizeCharacters(message)
    }

    /// `normalize` by `Character`, for any text.
    static func normalizeCharacters(_ message: String) -> String {
        var out = ""
        var pendingSpace = false
        let chars = Array(message.lowercased())
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace {
                pendingSpace = !out.isEmpty
                i += 1
                continue
            }
            if pendingSpace {
                out.append(" ")
                pendingSpace = false
            }
            if c.isNumber {
                var j = i
                while j < chars.count, chars[j].isNumber { j += 1 }
                if j + 1 < chars.count, chars[j] == ".", chars[j + 1].isNumber {
                    j += 1
                    while j < chars.count, chars[j].isNumber { j += 1 }
                    out.append("#")
                } else {
                    out.append(contentsOf: chars[i..<j])
                }
                i = j
                continue
            }
            out.append(c)
            i += 1
        }
        return out
    }

    /// `normalize` of a message that is all ASCII (nearly every one), on its bytes; nil for any
    /// other. `normalizeCharacters`, walking `Character`s with Unicode's whitespace and number properties cost some
    /// 440,000 instructions a finding. For ASCII the two agree: the only letters to lower are
    /// A–Z, the only whitespace is U+0009–U+000D and the space (`\r\n`, one `Character`, is
    /// whitespace twice here, which collapses the same), the only numbers are 0–9.
    static func normalizeASCII(_ message: String) -> String? {
        var bytes = Array(message.utf8)
        for i in bytes.indices {
            let b = bytes[i]
            if b >= 0x80 { return nil }
            if b >= 0x41 && b <= 0x5A { bytes[i] = b | 0x20 }
        }
        func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var pendingSpace = false
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if isWhitespace(c) {
                pendingSpace = !out.isEmpty
                i += 1
                continue
            }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            if isDigit(c) {
                var j = i
                while j < bytes.count, isDigit(bytes[j]) { j += 1 }
                if j + 1 < bytes.count, bytes[j] == 0x2E, isDigit(bytes[j + 1]) {
                    j += 1
                    while j < bytes.count, isDigit(bytes[j]) { j += 1 }
                    out.append(0x23)
                } else {
                    out.append(contentsOf: bytes[i..<j])
                }
                i = j
                continue
            }
            out.append(c)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Accepted findings: a JSON file of fingerprints. Findings in it are reported as baselined and
/// never fail the run, so CI fails only on new ones.
///
/// `{"version": 1, "fingerprints": ["3f2a…", …]}`
public struct Baseline: Sendable {
    public var fingerprints: Set<String>

    public init(fingerprints: Set<String> = []) { self.fingerprints = fingerprints }

    public static func load(path: String) throws(LintConfiguration.ConfigError) -> Baseline {
        guard let data = FileManager.default.contents(atPath: path),
            let file = try? JSONDecoder().decode(File.self, from: data)
        else {
            throw LintConfiguration.ConfigError(
                "\(path): not a blecap baseline (expected {\"version\": 1, \"fingerprints\": [...]})")
        }
        return Baseline(fingerprints: Set(file.fingerprints))
    }

    /// The baseline file for `findings` (sorted, deduplicated).
    public static func render(_ findings: [Finding]) -> String {
        JSONDocument.render(File(version: 1, fingerprints: Set(findings.map(\.fingerprint)).sorted()), style: .pretty)
    }

    /// The file's model. `version` is written as 1; a file without it is read as version 1.
    public struct File: Codable, Sendable, Equatable {
        public var version: Int?
        public var fingerprints: [String]
    }
}
