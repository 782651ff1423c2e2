/// How late the controller's timed events ran against their deadlines, on the clock that drives
/// it (`VirtualController.clock`): the measure of "at captured pace". Each timed event has an
/// absolute deadline (µs since the session started: the host's write that started a stream
/// plus the captured offset, and so on); its lateness is the clock's reading when it runs
/// minus that deadline.
///
/// Fixed memory however long the session: a histogram of 10 µs buckets up to 100 ms (the 99th
/// percentile is read from it to within a bucket), the worst and the sum exactly.
public struct PaceMeasure: Sendable, Equatable {
    public static let bucketMicros: Int64 = 10
    static let buckets = 10_000

    /// Timed events measured.
    public private(set) var events = 0
    public private(set) var worstMicros: Int64 = 0
    public private(set) var totalMicros: Int64 = 0
    /// Events late by at least `bucketMicros · i` and less than `bucketMicros · (i + 1)`; the
    /// last bucket holds everything later. Allocated on the first event.
    private var histogram: [UInt32] = []

    public init() {}

    mutating func record(latenessMicros l: Int64) {
        let late = max(0, l)  // early (a clock read just before the deadline) counts as on time
        if histogram.isEmpty { histogram = Array(repeating: 0, count: Self.buckets) }
        events += 1
        totalMicros &+= late
        worstMicros = max(worstMicros, late)
        histogram[Int(min(late / Self.bucketMicros, Int64(Self.buckets - 1)))] &+= 1
    }

    public var meanMicros: Int64 { events == 0 ? 0 : totalMicros / Int64(events) }

    /// The lateness `p` (0…1) of the events were at or under: the upper edge of the bucket the
    /// percentile falls in, never more than the worst.
    public func percentileMicros(_ p: Double) -> Int64 {
        guard events > 0 else { return 0 }
        let rank = max(1, Int((Double(events) * min(1, max(0, p))).rounded(.up)))
        var seen = 0
        for (i, n) in histogram.enumerated() {
            seen += Int(n)
            guard seen >= rank else { continue }
            // The last bucket has no upper edge: what falls there is told by the worst.
            return i == Self.buckets - 1 ? worstMicros : min(worstMicros, Int64(i + 1) * Self.bucketMicros)
        }
        return worstMicros
    }
}
