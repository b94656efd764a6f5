import LogbookCRDT
import Testing

// The Lamport clock rules crdt-lite relies on: tick adds one, update always lands one past
// the larger of the two times, and both report the new time.
@Suite struct LogicalClockTests {
    @Test func tickAddsOneAndReturnsTheNewTime() {
        var clock = LogicalClock()
        #expect(clock.tick() == 1)
        #expect(clock.tick() == 2)
        #expect(clock.currentTime() == 2)
    }

    @Test func updateGoesOnePastTheLargerTime() {
        var clock = LogicalClock()
        #expect(clock.update(10) == 11)
        #expect(clock.update(3) == 12)
        #expect(clock.update(12) == 13)
    }

    @Test func setTimeReplacesTheTime() {
        var clock = LogicalClock()
        clock.setTime(41)
        #expect(clock.currentTime() == 41)
        #expect(clock.tick() == 42)
    }
}
