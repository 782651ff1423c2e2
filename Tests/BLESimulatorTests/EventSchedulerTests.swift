import Testing

@testable import BLESimulator

/// The world's queue is BLEAir's `TimedQueue`; what the simulator relies on stays true of it.
@Suite struct EventSchedulerTests {
    /// Sifting moves plain bytes: no retain, release or outlined copy per move.
    @Test func queuedItemsArePlainData() {
        #expect(_isPOD(EventScheduler.Item.self))
    }

    /// Events due at one instant run in the order the script scheduled them, earlier ones first.
    @Test func worldRunsEventsInTimeThenSchedulingOrder() {
        let world = SimulatedWorld()
        var ran: [Int] = []
        world.schedule(after: .milliseconds(20)) { ran.append(0) }
        world.schedule(after: .milliseconds(10)) { ran.append(1) }
        world.schedule(after: .milliseconds(20)) { ran.append(2) }
        world.schedule(after: .milliseconds(10)) {
            ran.append(3)
            // Scheduled later for an instant already queued: after the ones queued before it.
            world.schedule(after: .milliseconds(10)) { ran.append(4) }
        }
        world.run(for: .milliseconds(15))
        #expect(ran == [1, 3])
        #expect(!world.isIdle)
        world.run(for: .seconds(1))
        #expect(ran == [1, 3, 0, 2, 4])
        #expect(world.isIdle)
    }
}
