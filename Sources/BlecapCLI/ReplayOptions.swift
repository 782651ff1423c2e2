import ArgumentParser
import BLEReplay

/// Parsing shared by `blecap replay` and `blecap serve`, which take the same speed and fault
/// options (the faults as one `FaultOptions` group; `--speed` each declares itself, so that its
/// help reads in its own order).
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
}

/// Who the fault options' `--power-off-at` turns off: the side the command plays the capture to.
protocol FaultSide {
    static var poweredOff: String { get }
}
/// `replay`: the captured central's adapter.
enum CentralAdapter: FaultSide { static var poweredOff: String { "the central's adapter" } }
/// `serve`: the captured peripheral.
enum ServedPeripheral: FaultSide { static var poweredOff: String { "the peripheral" } }

/// The faults `replay` and `serve` inject, declared once; times are seconds from the capture's
/// start.
struct FaultOptions<Side: FaultSide>: ParsableArguments {
    @Option(
        name: .customLong("drop-link-at"),
        help: "Seconds (capture clock) at which the link goes silent; it ends after the supervision timeout.")
    var dropLinkAt: Double?

    @Option(
        name: .customLong("power-off-at"), help: "Seconds (capture clock) at which \(Side.poweredOff) powers off.")
    var powerOffAt: Double?

    @Option(name: .customLong("delay-responses"), help: "Milliseconds added to every response's captured latency.")
    var delayResponses: Double?

    @Option(name: .long, help: "Server Rx MTU the peripheral answers instead of the captured one.")
    var mtu: UInt16?

    @Option(name: .long, help: "HANDLE=ATT_ERROR: requests on HANDLE fail with this ATT error code (repeatable).")
    var error: [String] = []

    @Option(
        name: .customLong("drop-notifications"), help: "Probability (0-1) of dropping each notification/indication.")
    var dropNotifications: Double?

    @Option(name: .long, help: "Seed of --drop-notifications.")
    var seed: UInt64 = 1

    init() {}

    /// `--error`; `check` and `checkMTU` the rest: called from the command's `validate` in the
    /// order its messages always came (a group's own `validate` would run first).
    func checkErrors() throws { _ = try ReplayOptions.errors(error) }

    func check() throws {
        if let p = dropNotifications, !(0...1).contains(p) { throw ValidationError("--drop-notifications takes 0…1") }
        try ReplayOptions.checkNonNegative([
            ("--drop-link-at", dropLinkAt), ("--power-off-at", powerOffAt), ("--delay-responses", delayResponses),
        ])
    }

    /// `--mtu`, checked last as the commands always did.
    func checkMTU() throws {
        if let mtu, mtu < 23 { throw ValidationError("--mtu: ATT_MTU is at least 23 (Core Vol 3 Part F 3.2.8)") }
    }

    /// The faults the options ask for.
    func faults() throws -> ReplayFaults {
        ReplayFaults(
            dropLinkAtMicros: dropLinkAt.map { Int64(($0 * 1e6).rounded()) },
            powerOffAtMicros: powerOffAt.map { Int64(($0 * 1e6).rounded()) },
            responseDelayMicros: Int64(((delayResponses ?? 0) * 1000).rounded()),
            serverMTU: mtu, errors: try ReplayOptions.errors(error),
            notificationDropProbability: dropNotifications ?? 0,
            seed: seed, timesFromCaptureStart: true)
    }
}
