/// A value that can be accumulated into a time bucket and merged with its neighbour when the
/// series coarsens.
public protocol BucketValue: Sendable, Encodable {
    init()
    mutating func merge(_ other: Self)
}

/// A time series with a fixed maximum number of equal-width buckets, filled in one pass
/// without knowing the capture's length in advance: when a sample falls past the last
/// bucket the width doubles and neighbouring buckets merge, so memory stays at `capacity`
/// buckets whatever the number of frames, and the resolution ends between span/capacity and
/// 2·span/capacity.
public struct BucketSeries<Value: BucketValue>: Sendable, Encodable {
    /// Microseconds since the capture's first frame of bucket 0's start.
    public private(set) var start: Int64
    /// Bucket width, µs.
    public private(set) var width: Int64
    public private(set) var buckets: [Value] = []
    public let capacity: Int

    public init(start: Int64, width: Int64, capacity: Int) {
        self.start = start
        self.width = max(1, width)
        self.capacity = max(2, capacity)
    }

    /// Updates the bucket holding time `t` (µs since the capture's first frame). Times before
    /// `start` (a clock that steps backwards) count in bucket 0.
    @inline(__always)
    public mutating func add(at t: Int64, _ update: (inout Value) -> Void) {
        update(&buckets[index(of: t)])
    }

    /// The bucket holding `t`. Inlined for the usual case (a bucket that exists: the series is
    /// fed once per notification), so the caller's update is inlined too.
    @inline(__always)
    mutating func index(of t: Int64) -> Int {
        if t > start {
            let index = (t &- start) / width
            if index < Int64(buckets.count) { return Int(index) }
        } else if !buckets.isEmpty {
            return 0
        }
        return place(t)
    }

    /// The bucket holding `t` once the series is coarsened until `t` fits and extended to it.
    @inline(never)
    mutating func place(_ t: Int64) -> Int {
        var index = t <= start ? 0 : (t &- start) / width
        while index >= Int64(capacity) {
            coarsen()
            index = (t &- start) / width
        }
        let i = Int(index)
        if i >= buckets.count {
            buckets.reserveCapacity(capacity)
            buckets.append(contentsOf: repeatElement(Value(), count: i - buckets.count + 1))
        }
        return i
    }

    /// Doubles the width: bucket i of the new series is buckets 2i and 2i+1 of the old.
    mutating func coarsen() {
        var merged: [Value] = []
        merged.reserveCapacity(capacity)
        var i = 0
        while i < buckets.count {
            var v = buckets[i]
            if i + 1 < buckets.count { v.merge(buckets[i + 1]) }
            merged.append(v)
            i += 2
        }
        buckets = merged
        width = width > Int64.max / 2 ? Int64.max : width * 2
    }

    enum CodingKeys: String, CodingKey { case start, width, buckets }
}

/// A plain count per bucket (notification density).
public struct CountBucket: BucketValue {
    public var count = 0
    public init() {}
    public mutating func merge(_ o: CountBucket) { count += o.count }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(count)
    }
}

/// Notification/indication and write traffic in one bucket: ATT value bytes and PDUs.
/// Encoded as `[notifyBytes, notifyPDUs, writeBytes, writePDUs]` to keep the page small.
public struct ThroughputBucket: BucketValue {
    public var notifyBytes = 0
    public var notifyPDUs = 0
    public var writeBytes = 0
    public var writePDUs = 0
    public init() {}
    public mutating func merge(_ o: ThroughputBucket) {
        notifyBytes += o.notifyBytes
        notifyPDUs += o.notifyPDUs
        writeBytes += o.writeBytes
        writePDUs += o.writePDUs
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(notifyBytes)
        try c.encode(notifyPDUs)
        try c.encode(writeBytes)
        try c.encode(writePDUs)
    }
}

/// RSSI reports in one bucket: count, minimum, maximum and sum (dBm). Encoded as
/// `[min, max, mean]`, or null for an empty bucket.
public struct RSSIBucket: BucketValue {
    public var count = 0
    public var minimum = Int.max
    public var maximum = Int.min
    public var sum = 0
    public init() {}
    public mutating func add(_ rssi: Int) {
        count += 1
        minimum = min(minimum, rssi)
        maximum = max(maximum, rssi)
        sum += rssi
    }
    public mutating func merge(_ o: RSSIBucket) {
        count += o.count
        minimum = min(minimum, o.minimum)
        maximum = max(maximum, o.maximum)
        sum += o.sum
    }
    public func encode(to encoder: any Encoder) throws {
        if count == 0 {
            var c = encoder.singleValueContainer()
            try c.encodeNil()
            return
        }
        var c = encoder.unkeyedContainer()
        try c.encode(minimum)
        try c.encode(maximum)
        try c.encode((Double(sum) / Double(count) * 10).rounded() / 10)
    }
}
