import LogbookNode
import Testing

/// A serving node's compaction checks read the whole log, so they are paced: none while
/// nothing was appended, and never more than a tenth of the time.
@Suite struct CompactionCheckPacingTests {
    let start = ContinuousClock.now

    @Test func aCheckIsSkippedUntilSomethingIsAppended() {
        var pacing = CompactionCheckPacing(every: .seconds(2))
        #expect(pacing.isNeeded(nextOffset: 500))
        _ = pacing.checked(nextOffset: 500, due: start, took: .milliseconds(10), now: start)
        #expect(!pacing.isNeeded(nextOffset: 500))
        #expect(pacing.isNeeded(nextOffset: 501))
    }

    @Test func aFailedCheckIsRepeated() {
        var pacing = CompactionCheckPacing(every: .seconds(2))
        _ = pacing.checked(nextOffset: 500, due: start, took: .milliseconds(10), now: start)
        pacing.failed()
        #expect(pacing.isNeeded(nextOffset: 500))
    }

    @Test func aShortCheckKeepsTheSchedule() {
        var pacing = CompactionCheckPacing(every: .seconds(2))
        let next = pacing.checked(
            nextOffset: 1, due: start, took: .milliseconds(100), now: start + .milliseconds(100))
        #expect(next == start + .seconds(2))
    }

    @Test func aLongCheckWaitsNineTimesItsLength() {
        var pacing = CompactionCheckPacing(every: .seconds(2))
        let finished = start + .seconds(3)
        let next = pacing.checked(nextOffset: 1, due: start, took: .seconds(3), now: finished)
        #expect(next == finished + .seconds(27))
    }
}
