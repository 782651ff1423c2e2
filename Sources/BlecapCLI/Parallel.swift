import Foundation

/// Runs independent jobs on several threads, at most `width` at once.
enum Parallel {
    /// Calls `body` once for each index in `0..<count`. `width` nil: one thread per core
    /// (`DispatchQueue.concurrentPerform`); otherwise at most `width` threads, each taking the
    /// next index when it is done with one, so a slow capture does not hold up a fixed share.
    static func forEach(_ count: Int, width: Int?, _ body: @Sendable (Int) -> Void) {
        guard let width, width < count else {
            DispatchQueue.concurrentPerform(iterations: count, execute: body)
            return
        }
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: max(1, width)) { _ in
            while let i = next.take(below: count) { body(i) }
        }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0

        func take(below limit: Int) -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard value < limit else { return nil }
            value += 1
            return value - 1
        }
    }
}
