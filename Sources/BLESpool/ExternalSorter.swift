/// Sorts more elements than a pass keeps in memory: runs of `runLength` are sorted in memory
/// and spooled (`Spool`), then merged. Memory: one run plus a block per run while merging.
public struct ExternalSorter<Element: BitwiseCopyable & Sendable & Comparable> {
    public let runLength: Int
    @usableFromInline var buffer: [Element] = []
    @usableFromInline var runs: [SpooledArray<Element>] = []

    /// Runs of 4 MiB: a run's array doubles up to it and is sorted in place, so about
    /// 6 MiB at the peak; ten million instants make 20 runs, a block each while merged.
    public static var defaultRunBytes: Int { 4 << 20 }

    @inlinable public init(runBytes: Int = defaultRunBytes) {
        runLength = Swift.max(1, runBytes / MemoryLayout<Element>.stride)
    }

    @inlinable public var isEmpty: Bool { buffer.isEmpty && runs.isEmpty }

    @inlinable public mutating func append(_ e: Element) {
        buffer.append(e)
        if buffer.count >= runLength { spillRun() }
    }

    @usableFromInline mutating func spillRun() {
        buffer.sort()
        var run = SpooledArray<Element>(memoryLimit: 0)
        run.append(contentsOf: buffer)
        run.seal(minimumBytes: 0)
        runs.append(run)
        buffer = []
    }

    /// Hands every element to `body` in ascending order (equal ones in no particular order),
    /// and empties the sorter.
    @inlinable public mutating func drain(_ body: (Element) -> Void) {
        buffer.sort()
        if runs.isEmpty {
            for e in buffer { body(e) }
            buffer = []
            return
        }
        if !buffer.isEmpty { spillRun() }
        // A binary min-heap of the runs' next elements.
        var heap: [(value: Element, reader: SpooledArray<Element>.Reader)] = []
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1
                let r = l + 1
                var m = i
                if l < heap.count, heap[l].value < heap[m].value { m = l }
                if r < heap.count, heap[r].value < heap[m].value { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        for run in runs {
            var reader = SpooledArray<Element>.Reader(run)
            if let v = reader.next() { heap.append((v, reader)) }
        }
        runs = []
        for i in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(i) }
        while !heap.isEmpty {
            body(heap[0].value)
            if let v = heap[0].reader.next() {
                heap[0].value = v
            } else {
                heap.swapAt(0, heap.count - 1)
                heap.removeLast()
            }
            siftDown(0)
        }
    }
}
