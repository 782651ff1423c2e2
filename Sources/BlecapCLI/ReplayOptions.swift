import ArgumentParser
import BLEReplay

/// Parsing shared by `blecap replay` and `blecap serve`, which take the same speed and fault
/// options (each declares them itself, so that its help reads in its own order).
enum ReplayOptions {
    /// `realtime`, `max` or a positive factor (`4`, `4x`).
    static func speed(_ text: String) throws -> ReplaySpeed {
        switch text {
        case "realtime": return .realtime
        case "max": return .max
        default:
            let factor = text.hasSuffix("x") ? String(text.dropLast()) : text
            guard let f = Double(factor), f.isFinite, f > 0 else {
                throw ValidationError("--speed takes realtime, max or a positive factor")
            }
            return f == 1 ? .realtime : .factor(f)
        }
    }

    /// `--error HANDLE=ATT_ERROR` specs, decimal or 0x-hex.
    static func errors(_ specs: [String]) throws -> [UInt16: UInt8] {
        var out: [UInt16: UInt8] = [:]
        for spec in specs {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let h = number(parts[0]), h <= 0xFFFF, let c = number(parts[1]), c <= 0xFF
            else { throw ValidationError("--error takes HANDLE=ATT_ERROR, e.g. 0x0013=0x02") }
            out[UInt16(h)] = UInt8(c)
        }
        return out
    }

    static func number(_ s: String) -> UInt64? {
        s.lowercased().hasPrefix("0x") ? UInt64(s.dropFirst(2), radix: 16) : UInt64(s)
    }

    /// Options in seconds (or milliseconds) that must be finite and non-negative.
    static func checkNonNegative(_ options: [(name: String, value: Double?)]) throws {
        for (name, v) in options {
            if let v, !(v.isFinite && v >= 0 && v < 1e9) {
                throw ValidationError("\(name) takes a non-negative number")
            }
        }
    }

    /// The faults the options ask for; times are seconds from the capture's start.
    static func faults(
        dropLinkAt: Double?, powerOffAt: Double?, delayResponses: Double?, mtu: UInt16?, errors: [String],
        dropNotifications: Double?, seed: UInt64
    ) throws -> ReplayFaults {
        ReplayFaults(
            dropLinkAtMicros: dropLinkAt.map { Int64(($0 * 1e6).rounded()) },
            powerOffAtMicros: powerOffAt.map { Int64(($0 * 1e6).rounded()) },
            responseDelayMicros: Int64(((delayResponses ?? 0) * 1000).rounded()),
            serverMTU: mtu, errors: try Self.errors(errors), notificationDropProbability: dropNotifications ?? 0,
            seed: seed, timesFromCaptureStart: true)
    }
}
