import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// The view contract: a view maintained incrementally through writes, the same view rebuilt
// from zero when the Logbook is reopened, and the view rebuilt from a compacted log all have
// one digest, equal to the digest of the replica's visible state, for random workloads with
// updates, field deletions, record deletions and remote merges.
@Suite struct MaterializedViewTests {
    /// Visible fields per record, kept from accepted changes: a state-based view.
    final class VisibleFieldsView: MaterializedView, @unchecked Sendable {
        // @unchecked: mutated only by the Logbook, under its lock; read after it is closed.
        let name = "visible-fields"
        private(set) var records: [String: [String: Value]] = [:]

        func reset() { records = [:] }

        func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
            guard let column = change.colName else {
                records[change.recordId] = nil
                return
            }
            if let value = change.value {
                records[change.recordId, default: [:]][column] = value
            } else {
                records[change.recordId]?[column] = nil
            }
        }

        func digest() -> StateDigest { Self.digest(of: records) }

        static func digest(of records: [String: [String: Value]]) -> StateDigest {
            let replica = CRDT<String, String, Value>(nodeId: 0)
            for (recordId, fields) in records where !fields.isEmpty {
                replica.insertOrUpdate(
                    recordId, fields: fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            }
            return StateDigest(of: replica)
        }
    }

    private func options(_ view: VisibleFieldsView) -> LogbookOptions {
        smallLogOptions(views: [view])
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func rebuiltViewEqualsIncrementalViewAndTheReplicaState(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let incremental = VisibleFieldsView()
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: options(incremental))
        var workload = Workload(seed: seed, recordCount: 15)
        for _ in 0..<800 { _ = try await workload.step(logbook) }
        let visible = logbook.records().mapValues(\.fields).filter { !$0.value.isEmpty }
        #expect(incremental.records.filter { !$0.value.isEmpty } == visible, "seed=\(seed)")
        try logbook.close()

        let rebuilt = VisibleFieldsView()
        let reopened = try Logbook.open(directory: directory.path, options: options(rebuilt))
        #expect(rebuilt.digest() == incremental.digest(), "seed=\(seed)")

        var compaction = CompactionOptions()
        compaction.dirtyRatioMin = 0
        _ = try reopened.compact(compaction)
        try reopened.close()
        let fromCompacted = VisibleFieldsView()
        let compacted = try Logbook.open(directory: directory.path, options: options(fromCompacted))
        #expect(
            fromCompacted.digest() == incremental.digest(),
            "seed=\(seed): compaction changed a view")
        try compacted.close()
    }

    @Test func viewNamesMustBeUnique() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var settings = options(VisibleFieldsView())
        settings.views.append(VisibleFieldsView())
        let error = #expect(throws: LogbookError.self) {
            _ = try Logbook.open(directory: directory.path, nodeId: 1, options: settings)
        }
        #expect(error?.message.contains("unique") == true)
    }
}
