import Foundation
import LogbookCRDT
import LogbookHub
import Testing

// The version rule under concurrency: writers push into one stream at once through their own
// connections while readers page from their cursors. Every cell is written once, so a reader
// that skipped a version (saw V, later missed a change committed with a version ≤ V) would
// end without it.
@Suite(.enabled(if: HubTestDatabase.enabled)) struct HubVersionTests {
    @Test func aReaderNeverMissesAChangeCommittedAtOrBelowAVersionItSaw() async throws {
        let writers = 6
        let pushes = 30
        let cellsPerPush = 4
        try await HubTestDatabase.withStore(poolMax: 12) { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let writersDone = DoneFlag()
            let written = try await withThrowingTaskGroup(of: Set<String>?.self) { group in
                for reader in 0..<3 {
                    group.addTask {
                        var seen: Set<String> = []
                        var since: UInt64 = 0
                        // Pushes that arrive together share a version, so the last version
                        // is not known ahead: a reader stops at the first complete page read
                        // after every writer was answered (or after a minute, failing).
                        let deadline = ContinuousClock.now + .seconds(60)
                        while ContinuousClock.now < deadline {
                            let finished = writersDone.isSet
                            let page = try await store.changes(
                                in: stream, since: since, limit: 3 + reader)
                            #expect(page.nextSince >= since, "the cursor went back")
                            seen.formUnion(page.changes.map(\.recordId))
                            since = page.nextSince
                            if page.isComplete {
                                if finished { break }
                                try await Task.sleep(for: .milliseconds(1))
                            }
                        }
                        return seen
                    }
                }
                for writer in 0..<writers {
                    group.addTask {
                        let replica = CRDT<String, String, Value>(nodeId: UInt64(writer + 1))
                        for push in 0..<pushes {
                            let changes = (0..<cellsPerPush).flatMap { cell in
                                replica.insertOrUpdate(
                                    "w\(writer)-p\(push)-c\(cell)",
                                    fields: [("value", .int(Int64(cell)))])
                            }
                            _ = try await store.merge(changes, into: stream)
                        }
                        return nil
                    }
                }
                var readers: [Set<String>] = []
                var writersLeft = writers
                for try await result in group {
                    if let result {
                        readers.append(result)
                    } else {
                        writersLeft -= 1
                        if writersLeft == 0 { writersDone.set() }
                    }
                }
                return readers
            }
            let all = Set(
                (0..<writers).flatMap { writer in
                    (0..<pushes).flatMap { push in
                        (0..<cellsPerPush).map { "w\(writer)-p\(push)-c\($0)" }
                    }
                })
            #expect(written.count == 3)
            for seen in written {
                let missed = all.subtracting(seen)
                #expect(missed.count == 0, "missed \(missed.sorted().prefix(5)) and more")
            }
        }
    }
}

extension HubVersionTests {
    /// Deletions and writes of the same records from many connections at once: whatever the
    /// interleaving, a deleted record ends with its tombstone and no column, as merging the
    /// pushes one after another would leave it.
    @Test func concurrentDeletionsAndWritesNeverLeaveColumnsBesideATombstone() async throws {
        try await HubTestDatabase.withStore(poolMax: 10) { store in
            let stream = try await store.stream(named: HubTestDatabase.freshStream(), create: true)
            let records = (0..<20).map { "record-\($0)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        let replica = CRDT<String, String, Value>(nodeId: UInt64(task + 1))
                        for round in 0..<10 {
                            for record in records.shuffled() {
                                let changes =
                                    task % 4 == 0 && round > 3
                                    ? replica.deleteRecord(record).map { [$0] } ?? []
                                    : replica.insertOrUpdate(
                                        record, fields: [("c\(round % 3)", .int(Int64(round)))])
                                _ = try await store.merge(changes, into: stream)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let held = try await HubMergeTests.allChanges(store, stream)
            let deleted = Set(held.filter { $0.colName == nil }.map(\.recordId))
            #expect(deleted.count == records.count, "every record was deleted by someone")
            let beside = held.filter { $0.colName != nil && deleted.contains($0.recordId) }
            #expect(
                beside.count == 0, "columns beside a tombstone: \(beside.prefix(3).map(\.recordId))"
            )
        }
    }
}

/// Set once, read by many tasks.
private final class DoneFlag: @unchecked Sendable {
    // @unchecked: `done` is guarded by `lock`.
    private let lock = NSLock()
    private var done = false

    var isSet: Bool { lock.withLock { done } }
    func set() { lock.withLock { done = true } }
}
