import CaptureIO
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a `VirtualController` over a transport on the wall clock: the host's bytes in as they
/// come, the controller's timers at their times, until the host goes away, the session is over
/// or time runs out.
public final class ServeRunner {
    public enum End: Sendable, Equatable, CustomStringConvertible {
        /// The host closed the transport.
        case hostClosed
        /// Every captured connection was served and ended, and the host stayed quiet
        /// `lingerMicros` after.
        case sessionOver
        case timeout
        case interrupted
        case transportFailed(String)

        public var description: String {
            switch self {
            case .hostClosed: "the host closed the transport"
            case .sessionOver: "every captured connection was served"
            case .timeout: "time limit reached"
            case .interrupted: "interrupted"
            case .transportFailed(let why): "transport failed: \(why)"
            }
        }
    }

    public let controller: VirtualController
    public let transport: any HCITransport
    /// The btsnoop of what crossed the virtual HCI (with `record: true`).
    public private(set) var capture: BTSnoopWriter?
    /// After the last captured connection ended, how long a quiet host is given before the
    /// session ends (nil: wait for the host to close).
    public var lingerMicros: Int64? = nil
    /// Set from a signal handler to stop the loop.
    nonisolated(unsafe) public static var interrupt = false

    public init(controller: VirtualController, transport: any HCITransport, record: Bool) {
        self.controller = controller
        self.transport = transport
        if record {
            capture = BTSnoopWriter()
            controller.tap = { [unowned self] packet, fromHost in
                capture?.append(packet, received: !fromHost, unixMicros: Self.wallMicros())
            }
        }
    }

    static func wallMicros() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_nsec) / 1000
    }

    static func monotonicMicros() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_nsec) / 1000
    }

    /// Within this of a deadline the runner sleeps to it instead of waiting for the host.
    static let fineSleepMicros: Int64 = 1_500

    /// How long to wait for the host's bytes when the next deadline is `untilDeadline` µs away:
    /// whole milliseconds (the transport's poll counts in them, rounding up), ending at least
    /// `fineSleepMicros` before the deadline; 0 when it is closer than that (then the runner
    /// sleeps to it, `sleep(untilMonotonic:)`, and reads what the host sent meanwhile without
    /// waiting). Each deadline is an absolute time from the session's start, so no error adds
    /// up from one event to the next.
    static func pollWait(untilDeadline d: Int64) -> Int64 {
        guard d > fineSleepMicros else { return 0 }
        return min(50_000, (d - fineSleepMicros) / 1000 * 1000)
    }

    /// Sleeps until the monotonic clock reads `deadline` µs (clock_nanosleep, TIMER_ABSTIME:
    /// microsecond resolution, no drift from the time spent before the call).
    static func sleep(untilMonotonic deadline: Int64) {
        var t = timespec(tv_sec: Int(deadline / 1_000_000), tv_nsec: Int(deadline % 1_000_000) * 1000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, nil) == EINTR {}
    }

    /// Runs until the session ends; `timeoutMicros` bounds the whole run.
    public func run(timeoutMicros: Int64? = nil) -> End {
        var failure: String?
        var closed = false
        controller.output = { [transport] packet in
            guard failure == nil, !closed else { return }
            do { try transport.send(packet) } catch let e as TransportError {
                if e.hostClosed { closed = true } else { failure = e.description }
            } catch {
                failure = "\(error)"
            }
        }
        let start = Self.monotonicMicros()
        controller.clock = { Self.monotonicMicros() - start }
        var buffer = [UInt8](repeating: 0, count: 65536)
        var quietSince: Int64?
        while true {
            let now = Self.monotonicMicros() - start
            controller.advance(to: now)
            if let failure { return .transportFailed(failure) }
            if closed { return .hostClosed }
            if Self.interrupt { return .interrupted }
            if let t = timeoutMicros, now >= t { return .timeout }
            if controller.isFinished, let linger = lingerMicros {
                let since = quietSince ?? now
                quietSince = since
                if now - since >= linger { return .sessionOver }
            } else {
                quietSince = nil
            }
            // Wait for the host until shortly before the next deadline (at most 50 ms, so
            // interrupts and limits are seen); the last stretch is slept on the absolute clock.
            let wait = Self.pollWait(untilDeadline: (controller.nextDeadline ?? .max) - now)
            if wait == 0, let next = controller.nextDeadline, next > now {
                Self.sleep(untilMonotonic: start + next)
            }
            let n: Int?
            do {
                n = try buffer.withUnsafeMutableBytes { b in try transport.receive(into: b, timeoutMicros: wait) }
            } catch {
                return .transportFailed("\(error)")
            }
            guard let n else { return .hostClosed }
            if n > 0 {
                quietSince = nil
                controller.advance(to: Self.monotonicMicros() - start)
                buffer.withUnsafeBytes { controller.receive(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
        }
    }
}
