import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

// The invariant every view is held to: rebuilt from zero by replay it has the digest it had
// when maintained incrementally — for random workloads of inserts, updates, field
// deletions and record deletions over homes and drawbridges, and again after compaction
// has dropped the superseded changes (insertion order included).
@Suite struct ViewRebuildPropertyTests {
    static func views() -> [any MaterializedView] {
        [GraphIndex(), SearchIndex(), BridgeStatsView()]
    }

    static func options(_ views: [any MaterializedView]) -> LogbookOptions {
        var options = LogbookOptions()
        options.durability = .buffered
        // Small batches in small segments: many sealed segments for compaction to rewrite.
        options.log.segmentSizeMax = 4096
        options.log.batchSizeTarget = 512
        options.views = views
        return options
    }

    /// A random write to one of a few entities, relationships and bridge events.
    static func randomWrite(_ random: inout SeededGenerator) -> (String, [(String, Value)]) {
        let words = ["kitchen", "light", "hall", "nest", "tv", "door", "caf\u{e9}"]
        func word() -> Value { .string(words.randomElement(using: &random) ?? "") }
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            let columns: [(String, Value)] = [
                (
                    "entity_type",
                    .string(
                        GoodiesEntityType.allCases.randomElement(using: &random)?.rawValue ?? "")
                ),
                ("name", word()), ("content.brand", word()),
                ("content.floor", .int(Int64.random(in: 0...3, using: &random))),
                ("content.tags", .array([word(), word()])),
            ]
            return (
                "entity/e\(Int.random(in: 0..<12, using: &random))",
                Array(
                    columns.shuffled(using: &random).prefix(Int.random(in: 1...5, using: &random)))
            )
        case 1:
            let columns: [(String, Value)] = [
                ("from_entity_id", .string("e\(Int.random(in: 0..<12, using: &random))")),
                ("to_entity_id", .string("e\(Int.random(in: 0..<12, using: &random))")),
                (
                    "relationship_type",
                    .string(
                        GoodiesRelationshipType.allCases.randomElement(using: &random)?.rawValue
                            ?? "")
                ),
                ("properties.weight", .double(Double.random(in: 0..<1, using: &random))),
            ]
            return (
                "relationship/r\(Int.random(in: 0..<16, using: &random))",
                Array(
                    columns.shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random)))
            )
        default:
            let day = Int.random(in: 1...28, using: &random)
            let hour = Int.random(in: 0...22, using: &random)
            let open = String(format: "2025-03-%02dT%02d:10:00.000", day, hour)
            var fields: [(String, Value)] = [
                ("entitytype", "Bridge"),
                (
                    "entityname",
                    .string(["Fremont", "Ballard"].randomElement(using: &random) ?? "")
                ),
                ("entityid", .int(Int64([2, 3].randomElement(using: &random) ?? 2))),
                ("opendatetime", .string(open)),
            ]
            if random.chance(0.7) {
                fields.append(
                    (
                        "closedatetime",
                        .string(String(format: "2025-03-%02dT%02d:25:00.000", day, hour))
                    ))
                fields.append(("minutesopen", .int(15)))
            }
            return ("bridge_event/b\(Int.random(in: 0..<10, using: &random))", fields)
        }
    }

    @Test(arguments: [11, 12, 13, 14, 15, 16] as [UInt64])
    func rebuiltViewsEqualIncrementalOnesBeforeAndAfterCompaction(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let live = Self.views()
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: Self.options(live))
        var deleted: Set<String> = []
        for _ in 0..<400 {
            let (recordId, fields) = Self.randomWrite(&random)
            if deleted.contains(recordId) { continue }  // a tombstoned record stays deleted
            switch Int.random(in: 0..<20, using: &random) {
            case 0:
                try await logbook.deleteRecord(recordId)
                deleted.insert(recordId)
            case 1, 2:
                if logbook.getRecord(recordId) != nil, let column = fields.first?.0 {
                    try await logbook.deleteField(recordId, fieldName: column)
                }
            default:
                try await logbook.insertOrUpdate(recordId, fields: fields)
            }
        }
        let digests = live.map { $0.digest() }
        let graph = try #require(live[0] as? GraphIndex)
        let search = try #require(live[1] as? SearchIndex)
        let statistics = graph.statistics()
        let answers = ["kitchen", "light hall", "tv"].map { search.search($0, limit: 20) }
        try logbook.close()

        let rebuilt = Self.views()
        let reopened = try Logbook.open(directory: directory.path, options: Self.options(rebuilt))
        #expect(rebuilt.map { $0.digest() } == digests, "seed \(seed)")
        var compaction = CompactionOptions()
        compaction.dirtyRatioMin = 0
        let report = try reopened.compact(compaction)
        #expect(
            report.recordsAfter < report.recordsBefore, "seed \(seed): compaction dropped nothing")
        try reopened.close()

        let afterCompaction = Self.views()
        let compacted = try Logbook.open(
            directory: directory.path, options: Self.options(afterCompaction))
        defer { try? compacted.close() }
        #expect(afterCompaction.map { $0.digest() } == digests, "seed \(seed) after compaction")
        let compactedGraph = try #require(afterCompaction[0] as? GraphIndex)
        let compactedSearch = try #require(afterCompaction[1] as? SearchIndex)
        #expect(compactedGraph.statistics() == statistics)
        #expect(
            ["kitchen", "light hall", "tv"].map { compactedSearch.search($0, limit: 20) } == answers
        )
    }
}
