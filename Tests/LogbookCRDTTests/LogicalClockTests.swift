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

    @Test func updateFollowsFullyUpToTheFloorThenOnlyTheLeadPastItsOwnTime() {
        let floor = LogicalClock.followFloor
        let lead = LogicalClock.followLead
        var clock = LogicalClock()
        #expect(clock.update(floor) == floor + 1, "up to the floor a time is followed fully")
        #expect(clock.update(floor + lead + 1) == floor + lead + 2, "within the lead, fully")
        #expect(clock.update(UInt64.max) == floor + 2 * lead + 3, "past it, by the lead")
        #expect(clock.update(floor + 5) == floor + 2 * lead + 4, "an old time ticks by one")
        #expect(clock.tick() == floor + 2 * lead + 5)
        var fresh = LogicalClock()
        #expect(fresh.update(UInt64.max) == floor + lead + 1)
    }

    @Test func theFollowLimitSaturatesAtTheTop() {
        #expect(LogicalClock.followLimit(from: .max - 1) == .max)
        #expect(
            LogicalClock.followLimit(from: 0) == LogicalClock.followFloor + LogicalClock.followLead)
    }

    @Test func arithmeticSaturatesInsteadOfTrapping() {
        var clock = LogicalClock()
        clock.setTime(.max)
        #expect(clock.tick() == .max)
        #expect(clock.update(.max) == .max)
    }

    @Test func aHostileVersionNeitherTrapsNorPinsAReplica() {
        let crdt = CRDT<String, String, Int>(nodeId: 1)
        let hostile = Change<String, String, Int>(
            recordId: "r", colName: "c", value: 1, colVersion: .max, dbVersion: .max, nodeId: 9,
            localDbVersion: 1)
        #expect(crdt.mergeChanges([hostile]).count == 1)
        let followed = LogicalClock.followFloor + LogicalClock.followLead
        #expect(crdt.getClock().currentTime() == followed + 1)
        // The column is at the top: a local write keeps it there instead of trapping.
        let write = crdt.insertOrUpdate("r", fields: [("c", 2), ("d", 3)])
        #expect(write.map(\.colVersion) == [.max, 1])
        #expect(write.map(\.dbVersion) == [followed + 2, followed + 2])
        let rebuilt = CRDT<String, String, Int>(nodeId: 1, changes: [hostile])
        #expect(rebuilt.getClock().currentTime() == followed)
    }
}
