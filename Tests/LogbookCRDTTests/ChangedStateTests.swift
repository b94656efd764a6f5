import LogbookTesting
import Testing

@testable import LogbookCRDT

// A ChangedState is what a reader gathers under a lock; built, paged or cut by version, it
// must give exactly getChangesSince's changes. Seeded random replicas with many records,
// field deletions and record deletions; a failure names the seed.
@Suite struct ChangedStateTests {
    static let seeds: [UInt64] = Array(1...25)

    /// A replica after a random history: writes of several columns, field deletions, record
    /// deletions and merges from a second node, so local versions repeat across records.
    private func randomReplica(seed: UInt64) -> TestCRDT {
        var random = SeededGenerator(seed: seed)
        let replica = TestCRDT(nodeId: 1)
        let other = TestCRDT(nodeId: 2)
        for _ in 0..<Int.random(in: 0..<400, using: &random) {
            let writer = random.chance(0.7) ? replica : other
            let recordId = "r\(Int.random(in: 0..<120, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0: writer.deleteRecord(recordId)
            case 1:
                writer.deleteField(recordId, fieldName: "c\(Int.random(in: 0..<3, using: &random))")
            case 2: replica.mergeChanges(other.getChangesSince(0))
            default:
                let fields = (0..<Int.random(in: 0...3, using: &random)).map { column in
                    ("c\(column)", Value.int(Int64.random(in: 0..<9, using: &random)))
                }
                writer.insertOrUpdate(recordId, fields: fields)
            }
        }
        return replica
    }

    @Test(arguments: seeds) func changesEqualGetChangesSince(seed: UInt64) {
        let replica = randomReplica(seed: seed)
        let clock = replica.getClock().currentTime()
        for since in [0, clock / 3, clock / 2, clock, clock + 1] {
            let state = replica.changedState(since: since)
            #expect(
                state.changes() == replica.getChangesSince(since), "seed \(seed) since \(since)")
            #expect(state.changeCount == replica.getChangesSince(since).count, "seed \(seed)")
        }
    }

    @Test(arguments: seeds) func windowsJoinToGetChangesSinceAndNeverSplitAVersion(seed: UInt64) {
        let replica = randomReplica(seed: seed)
        var random = SeededGenerator(seed: seed &+ 2000)
        let changesMax = Int.random(in: 1...40, using: &random)
        let clock = replica.getClock().currentTime()
        for since in [0, clock / 2, clock + 1] {
            let state = replica.changedState(since: since)
            let (ends, count) = state.windowEnds(changesMax: changesMax)
            var joined: [TestChange] = []
            var above = since
            for (index, end) in ends.enumerated() {
                let window = state.changes(above: above, through: end)
                #expect(end > above, "seed \(seed): windows go up")
                // Each but the last holds at least changesMax, more only by its last version.
                let lastVersionCount = window.filter { $0.localDbVersion == end }.count
                if index < ends.count - 1 { #expect(window.count >= changesMax, "seed \(seed)") }
                #expect(window.count < changesMax + lastVersionCount, "seed \(seed)")
                joined += window
                above = end
            }
            #expect(joined == replica.getChangesSince(since), "seed \(seed) since \(since)")
            #expect(count == joined.count, "seed \(seed)")
        }
    }

    @Test(arguments: seeds) func versionPagesJoinToGetChangesSince(seed: UInt64) throws {
        let replica = randomReplica(seed: seed)
        var random = SeededGenerator(seed: seed &+ 1000)
        let changesMax = Int.random(in: 1...40, using: &random)
        var since: UInt64 = 0
        var joined: [TestChange] = []
        var pages = 0
        while true {
            let state = replica.changedState(since: since)
            pages += 1
            try #require(pages < 10_000, "seed \(seed): paging does not end")
            guard let end = state.pageEnd(changesMax: changesMax) else {
                joined += state.changes()
                break
            }
            let page = state.changes(through: end)
            #expect(!page.isEmpty, "seed \(seed): an empty page before the end")
            // A page holds about changesMax: more only by one local version's changes.
            let lastVersionCount = page.filter { $0.localDbVersion == end }.count
            #expect(page.count < changesMax + lastVersionCount, "seed \(seed)")
            #expect(page.allSatisfy { $0.localDbVersion > since && $0.localDbVersion <= end })
            joined += page
            since = end
        }
        #expect(joined == replica.getChangesSince(0), "seed \(seed)")
    }

    @Test(arguments: seeds) func idPagesHoldEveryRecordOnceInIdOrder(seed: UInt64) throws {
        let replica = randomReplica(seed: seed)
        var random = SeededGenerator(seed: seed &+ 2000)
        let changesMax = Int.random(in: 1...30, using: &random)
        var after: String? = nil
        var joined: [TestChange] = []
        var lastId: String? = nil
        var pages = 0
        while true {
            let (page, more) = replica.changedState(since: 0, idsAfter: after)
                .firstById(changesMax: changesMax)
            pages += 1
            try #require(pages < 10_000, "seed \(seed): paging does not end")
            let ids = page.entries.map(\.id)
            #expect(ids == ids.sorted(), "seed \(seed): a page out of id order")
            if let lastId, let first = ids.first { #expect(first > lastId, "seed \(seed)") }
            // Whole records until at least changesMax: dropping the last would fall short.
            if more {
                let withoutLast = ChangedState(since: 0, entries: Array(page.entries.dropLast()))
                #expect(withoutLast.changeCount < changesMax, "seed \(seed): page too long")
            }
            joined += page.changes()
            lastId = ids.last ?? lastId
            guard more, let next = ids.last else { break }
            after = next
        }
        let expected = replica.getChangesSince(0)
        #expect(joined.count == expected.count, "seed \(seed)")
        #expect(Set(joined) == Set(expected), "seed \(seed)")
    }

    @Test(arguments: seeds) func sortPrefixPutsTheSmallestFirstInOrder(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 0..<3000, using: &random)
        // Few distinct values in some seeds, so runs of equal elements cross the cut.
        let spread = seed.isMultiple(of: 3) ? 4 : 1_000_000
        let values = (0..<count).map { _ in Int.random(in: 0..<spread, using: &random) }
        for prefix in [0, 1, count / 7, count / 2, max(count - 1, 0), count, count + 5] {
            var array = values
            array.sortPrefix(prefix, by: <)
            let kept = min(prefix, count)
            #expect(
                Array(array.prefix(kept)) == Array(values.sorted().prefix(kept)), "seed \(seed)")
            #expect(array.sorted() == values.sorted(), "seed \(seed): elements lost")
        }
    }
}
