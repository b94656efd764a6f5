import Foundation
import Logbook
import LogbookCRDT
import LogbookData
import LogbookTesting
import LogbookWorkloads
import Testing

// Indexes kept incrementally equal a rebuild: seeded saves, updates (key columns moved,
// optional key columns set to nil), deletes on two replicas that merge each other's changes;
// then each index's digest is the same kept as changes arrived, rebuilt by replay on reopen,
// and restored from its checkpoint; and every seeded query (equality, ranges, prefixes, both
// orders, limits, pages followed by cursor) answers what filtering and sorting all models
// answers.
@Suite struct ModelIndexTests {
    struct Post: LogbookModel, Equatable {
        var id: String
        var thread: String
        var postedAt: Date
        var score: Int
        var title: String?
    }

    /// The three indexes of a replica: a compound one, one on an optional column, one on
    /// an integer.
    static func indexes() -> [ModelIndex<Post>] {
        [
            ModelIndex(Post.self, on: ["thread", "postedAt"]),
            ModelIndex(Post.self, on: ["title"]),
            ModelIndex(Post.self, on: ["score"]),
        ]
    }

    static func open(_ path: String, nodeId: UInt64? = nil, _ indexes: [ModelIndex<Post>])
        throws -> Logbook
    {
        var options = LogbookOptions()
        options.durability = .buffered
        options.views = indexes
        options.viewCheckpoints = true
        return try Logbook.open(directory: path, nodeId: nodeId, options: options)
    }

    /// Seeded edits of posts on `logbook`.
    static func edit(_ logbook: Logbook, steps: Int, random: inout SeededGenerator) async throws {
        let threads = ["ask", "show", "jobs", "ask/hn"]
        let titles: [String?] = [nil, "lamp", "lamps", "lamp post", "kitchen", "", "Lamp"]
        for _ in 0..<steps {
            let id = "p\(Int.random(in: 0..<150, using: &random))"
            do throws(ModelError) {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5:
                    try await logbook.save(
                        Post(
                            id: id, thread: threads.randomElement(using: &random) ?? "ask",
                            postedAt: Date(
                                timeIntervalSinceReferenceDate: Double(
                                    Int.random(in: 0..<40, using: &random))),
                            score: Int.random(in: -5...5, using: &random),
                            title: titles.randomElement(using: &random) ?? nil))
                case 5..<8:
                    let title = titles.randomElement(using: &random) ?? nil
                    let score = Int.random(in: -5...5, using: &random)
                    try await logbook.update(Post.self, id: id) {
                        $0.title = title
                        $0.score = score
                    }
                default:
                    try await logbook.delete(Post.self, id: id)
                }
            } catch {
                // A deleted post stays deleted; a missing one cannot be updated.
                guard case .deleted = error else {
                    guard case .notFound = error else { throw error }
                    continue
                }
            }
        }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func keptIndexesEqualRebuiltAndRestoredOnesAndAnswerAsAFilterWould(seed: UInt64) async throws {
        let (a, b) = (TemporaryDirectory(), TemporaryDirectory())
        defer {
            a.remove()
            b.remove()
        }
        var random = SeededGenerator(seed: seed)
        let kept = Self.indexes()
        let replica = try Self.open(a.path, nodeId: 1, kept)
        let peer = try Self.open(b.path, nodeId: 2, Self.indexes())
        for _ in 0..<4 {
            try await Self.edit(replica, steps: 150, random: &random)
            try await Self.edit(peer, steps: 150, random: &random)
            try await replica.merge(peer.getChangesSince(0))
            try await peer.merge(replica.getChangesSince(0))
        }
        #expect(replica.stateDigest() == peer.stateDigest())
        let posts = try replica.models(Post.self)
        #expect(posts.count > 20 && kept[0].count == posts.count, "\(posts.count) posts")
        try Self.checkQueries(replica, kept, posts, random: &random)
        let digests = kept.map { $0.digest() }
        try replica.close()
        try peer.close()
        // Restored from the checkpoints written at close.
        let restored = Self.indexes()
        let reopened = try Self.open(a.path, restored)
        for index in restored {
            guard case .restored = reopened.viewCheckpointStatus[index.name] else {
                Issue.record(
                    "\(index.name): \(String(describing: reopened.viewCheckpointStatus[index.name]))"
                )
                continue
            }
        }
        #expect(restored.map { $0.digest() } == digests)
        try Self.checkQueries(reopened, restored, posts, random: &random)
        try reopened.close()
        // Rebuilt by replay: the checkpoints removed.
        for name in try FileManager.default.contentsOfDirectory(atPath: a.path)
        where name.contains("checkpoint") {
            try FileManager.default.removeItem(atPath: a.appending(name))
        }
        let rebuilt = Self.indexes()
        let replayed = try Self.open(a.path, rebuilt)
        #expect(
            rebuilt.map { replayed.viewCheckpointStatus[$0.name] }
                == rebuilt.map { _ in ViewCheckpointStatus.none })
        #expect(rebuilt.map { $0.digest() } == digests)
        try replayed.close()
    }

    /// Seeded queries of every kind, each against the filtered, sorted list of all posts.
    static func checkQueries(
        _ logbook: Logbook, _ indexes: [ModelIndex<Post>], _ posts: [Post],
        random: inout SeededGenerator
    ) throws {
        let (byThread, byTitle, byScore) = (indexes[0], indexes[1], indexes[2])
        for _ in 0..<60 {
            let order: IndexOrder = Bool.random(using: &random) ? .ascending : .descending
            let limit = Int.random(in: 1...12, using: &random)
            let thread =
                ["ask", "show", "jobs", "ask/hn", "none"].randomElement(using: &random) ?? "ask"
            let (from, to) = (
                Double(Int.random(in: 0..<40, using: &random)),
                Double(Int.random(in: 0..<40, using: &random))
            )
            // The newest posts of a thread, within a time range.
            try expectPages(
                logbook, byThread, .equal(.string(thread)).from(.double(from)).before(.double(to)),
                order, limit,
                expected: posts.filter {
                    $0.thread == thread && $0.postedAt.timeIntervalSinceReferenceDate >= from
                        && $0.postedAt.timeIntervalSinceReferenceDate < to
                }.sorted { ($0.postedAt, $0.id) < ($1.postedAt, $1.id) })
            // Threads by prefix, in (thread, postedAt) order.
            try expectPages(
                logbook, byThread, .prefix("ask"), order, limit,
                expected: posts.filter { $0.thread.hasPrefix("ask") }.sorted {
                    ($0.thread, $0.postedAt, $0.id) < ($1.thread, $1.postedAt, $1.id)
                })
            // Titles by prefix: nil titles have no entry in the range.
            let prefix = ["lamp", "", "k", "L"].randomElement(using: &random) ?? ""
            try expectPages(
                logbook, byTitle, .prefix(prefix), order, limit,
                expected: posts.filter { $0.title?.hasPrefix(prefix) ?? false }.sorted {
                    (Array(($0.title ?? "").utf8).lexicographicallyPrecedes(
                        Array(($1.title ?? "").utf8)))
                        || ($0.title == $1.title && $0.id < $1.id)
                })
            // Scores through a bound, and every post with no title (absent sorts first).
            let bound = Int.random(in: -5...5, using: &random)
            try expectPages(
                logbook, byScore, .after(.int(Int64(bound))), order, limit,
                expected: posts.filter { $0.score > bound }.sorted {
                    ($0.score, $0.id) < ($1.score, $1.id)
                })
            try expectPages(
                logbook, byTitle, .before(.null), order, limit,
                expected: posts.filter { $0.title == nil }.sorted { $0.id < $1.id })
        }
    }

    /// Reads every page of `query` and compares their models with `expected` (ascending).
    static func expectPages(
        _ logbook: Logbook, _ index: ModelIndex<Post>, _ query: IndexQuery, _ order: IndexOrder,
        _ limit: Int, expected ascending: [Post]
    ) throws {
        let expected = order == .ascending ? ascending : ascending.reversed()
        var found: [Post] = []
        var cursor: IndexCursor?
        var pages = 0
        repeat {
            let page = try logbook.query(index, query, order: order, limit: limit, after: cursor)
            #expect(page.models.count <= limit)
            found += page.models
            cursor = page.next
            pages += 1
        } while cursor != nil && pages <= expected.count + 1
        #expect(
            found.map(\.id) == expected.map(\.id), "\(index.name) \(query) \(order) limit \(limit)")
    }

    @Test func aQueryTheIndexCannotAnswerIsRefusedWithItsReason() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let registered = ModelIndex(Post.self, on: ["thread"])
        let logbook = try Self.open(directory.path, nodeId: 1, [registered])
        defer { try? logbook.close() }
        let stray = ModelIndex(Post.self, name: "stray", on: ["thread"])
        #expect(
            throws: ModelError.invalidQuery(
                index: "stray", reason: "the index is not in this Logbook's options.views")
        ) {
            try logbook.query(stray)
        }
        #expect(throws: ModelError.self) {
            try logbook.query(registered, .equal("ask").from(.int(1)))
        }
        #expect(throws: ModelError.self) {
            try logbook.query(registered, .from(.int(1)).prefix("a"))
        }
        #expect(try logbook.query(registered, limit: 0).models.isEmpty)
    }
}
