import BLEAir
import Testing

@Suite struct TimedQueueTests {
    /// Drains the queue, returning (time, payload) in the order they come out.
    func drain(_ q: inout TimedQueue<Int>) -> [(Int64, Int)] {
        var out: [(Int64, Int)] = []
        while let e = q.pop() { out.append((e.time, e.payload)) }
        return out
    }

    @Test func earliestFirstAndOneMicrosecondInSchedulingOrder() {
        var q = TimedQueue<Int>()
        q.schedule(at: 30, 0)
        q.schedule(at: 10, 1)
        q.schedule(at: 30, 2)
        q.schedule(at: 10, 3)
        q.schedule(at: 20, 4)
        q.schedule(at: 30, 5)
        #expect(q.count == 6)
        #expect(q.nextTime == 10)
        let out = drain(&q)
        #expect(out.map(\.1) == [1, 3, 4, 0, 2, 5])
        #expect(out.map(\.0) == [10, 10, 20, 30, 30, 30])
        #expect(q.isEmpty)
        #expect(q.nextTime == nil)
    }

    /// Against a stable sort on time, over a few thousand pseudo-random times with many ties and
    /// pops in between (the clients pop while they schedule).
    @Test func sameOrderAsAStableSortOnTime() {
        var q = TimedQueue<Int>()
        var reference: [(Int64, Int)] = []
        var popped: [(Int64, Int)] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var now: Int64 = 0
        for n in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let time = now + Int64(state >> 59)  // 0…31 µs ahead: many ties
            q.schedule(at: time, n)
            reference.append((time, n))
            if state & 3 == 0, let e = q.pop() {
                popped.append((e.time, e.payload))
                now = e.time
                let i = reference.indices.min {
                    reference[$0].0 != reference[$1].0 ? reference[$0].0 < reference[$1].0 : $0 < $1
                }!
                #expect(reference[i] == (e.time, e.payload))
                reference.remove(at: i)
            }
        }
        let rest = drain(&q)
        let sorted = reference.enumerated().sorted {
            $0.element.0 != $1.element.0 ? $0.element.0 < $1.element.0 : $0.offset < $1.offset
        }
        #expect(rest.map(\.1) == sorted.map(\.element.1))
        #expect(popped.count + rest.count == 5000)
    }

    @Test func callersOrderRanksEntriesOfOneMicrosecond() {
        var q = TimedQueue<Int>()
        q.schedule(at: 5, order: 7, 0)
        q.schedule(at: 5, order: -3, 1)
        q.schedule(at: 4, order: 100, 2)
        q.schedule(at: 5, order: 2, 3)
        #expect(drain(&q).map(\.1) == [2, 1, 3, 0])
    }

    @Test func popNotAfterLeavesLaterEntries() {
        var q = TimedQueue<Int>()
        q.schedule(at: 100, 0)
        q.schedule(at: 50, 1)
        #expect(q.pop(notAfter: 49) == nil)
        #expect(q.pop(notAfter: 50)?.payload == 1)
        #expect(q.pop(notAfter: 99) == nil)
        #expect(q.count == 1)
        #expect(q.pop(notAfter: .max)?.payload == 0)
    }

    @Test func removeAllWhereKeepsTheOthersInOrder() {
        var q = TimedQueue<Int>()
        for (i, t) in [40, 10, 40, 20, 10, 30].enumerated() { q.schedule(at: Int64(t), i) }
        q.removeAll { $0 % 2 == 0 }
        q.schedule(at: 10, 6)
        #expect(drain(&q).map(\.1) == [1, 6, 3, 5])
    }

    @Test func drainHandsBackEveryEntry() {
        var q = TimedQueue<Int>()
        for i in 0..<10 { q.schedule(at: Int64(10 - i), i) }
        var seen: [Int] = []
        q.drain { seen.append($0.payload) }
        #expect(seen.sorted() == Array(0..<10))
        #expect(q.isEmpty)
    }

    /// A trivially copyable payload keeps entries trivially copyable: sifting moves plain bytes.
    @Test func entriesOfAPlainPayloadArePlainData() {
        #expect(_isPOD(TimedQueue<Int>.Entry.self))
        #expect(!_isPOD(TimedQueue<[UInt8]>.Entry.self))
    }
}
