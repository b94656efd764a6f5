import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

/// Counts the changes applied to it since it was last reset, and checkpoints the count.
/// (Not a function of the state — compaction changes the count — so it serves only to see
/// how much was replayed.)
final class CountingView: CheckpointableView, @unchecked Sendable {
    // @unchecked: tests touch it from one task at a time.
    let name = "counting"
    var total: UInt64 = 0
    var appliedSinceOpen = 0

    func reset() {
        total = 0
        appliedSinceOpen = 0
    }

    func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        total += 1
        appliedSinceOpen += 1
    }

    func digest() -> StateDigest {
        var builder = StateDigestBuilder()
        builder.combine("\(total)")
        return builder.finalize()
    }

    func checkpointState() -> [UInt8] {
        var writer = CheckpointWriter()
        writer.write(total)
        return writer.bytes
    }

    func restoreCheckpoint(_ state: [UInt8]) throws(CheckpointReader.Malformed) {
        var reader = CheckpointReader(state)
        total = try reader.readNumber()
        try reader.expectEnd()
    }
}

// Checkpoints make a reopen replay only the tail into the views, and are trusted only when
// they prove themselves: a damaged file, one from another log, or one ahead of the log is
// discarded and the view rebuilt, always ending at the digest a full rebuild gives.
@Suite struct ViewCheckpointTests {
    static func views() -> [any MaterializedView] {
        [GraphIndex(), SearchIndex(), BridgeStatsView(), CountingView()]
    }

    static func options(_ views: [any MaterializedView], checkpoints: Bool = true) -> LogbookOptions
    {
        var options = ViewRebuildPropertyTests.options(views)
        options.viewCheckpoints = checkpoints
        return options
    }

    /// Writes `count` random changes across homes and drawbridges.
    static func write(_ count: Int, seed: UInt64, to logbook: Logbook) async throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<count {
            let (recordId, fields) = ViewRebuildPropertyTests.randomWrite(&random)
            try await logbook.insertOrUpdate(recordId, fields: fields)
        }
    }

    /// The digests of the views rebuilt from the whole log, without checkpoints.
    static func fullRebuildDigests(_ directory: String) throws -> [StateDigest] {
        let views = Self.views()
        let logbook = try Logbook.open(
            directory: directory, options: options(views, checkpoints: false))
        defer { try? logbook.close() }
        return views.map { $0.digest() }
    }

    @Test func aReopenRestoresCheckpointsAndReplaysOnlyTheTail() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = Self.views()
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: Self.options(first))
        try await Self.write(300, seed: 1, to: logbook)
        let digests = first.map { $0.digest() }
        let covered = logbook.nextOffset
        try logbook.close()
        #expect(
            FileManager.default.fileExists(atPath: directory.appending("view-graph.checkpoint")))

        let second = Self.views()
        let reopened = try Logbook.open(directory: directory.path, options: Self.options(second))
        for view in second {
            #expect(reopened.viewCheckpointStatus[view.name] == .restored(offset: covered))
        }
        #expect(second.map { $0.digest() } == digests)
        let counter = try #require(second.last as? CountingView)
        #expect(counter.appliedSinceOpen == 0)  // nothing after the checkpoint
        try await Self.write(50, seed: 2, to: reopened)
        try reopened.close()

        let third = Self.views()
        let again = try Logbook.open(directory: directory.path, options: Self.options(third))
        let tailCounter = try #require(third.last as? CountingView)
        #expect(tailCounter.appliedSinceOpen == 0)
        try again.close()
        #expect(third.map { $0.digest() } == (try Self.fullRebuildDigests(directory.path)))
        // The search view restored from a checkpoint answers as the rebuilt one does.
        let restoredSearch = try #require(third[1] as? SearchIndex)
        #expect(!restoredSearch.search("kitchen").isEmpty || !restoredSearch.search("hall").isEmpty)
    }

    @Test func theTailAfterACheckpointIsAppliedOnReopen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = Self.views()
        // Checkpoints on close off: the only checkpoint is the explicit one below.
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: Self.options(first, checkpoints: false))
        try await Self.write(200, seed: 3, to: logbook)
        try logbook.checkpointViews()
        let checkpointed = logbook.nextOffset
        let counter = try #require(first.last as? CountingView)
        let countAtCheckpoint = counter.total
        try await Self.write(40, seed: 4, to: logbook)
        let digests = first.map { $0.digest() }
        try logbook.close()

        let second = Self.views()
        let reopened = try Logbook.open(directory: directory.path, options: Self.options(second))
        defer { try? reopened.close() }
        #expect(reopened.viewCheckpointStatus["graph"] == .restored(offset: checkpointed))
        let tail = try #require(second.last as? CountingView)
        #expect(tail.appliedSinceOpen == Int(counter.total - countAtCheckpoint))
        #expect(tail.appliedSinceOpen > 0)
        #expect(second.map { $0.digest() } == digests)
    }

    @Test func aDamagedCheckpointIsDiscardedAndTheViewRebuilt() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: Self.options(Self.views()))
        try await Self.write(200, seed: 5, to: logbook)
        try logbook.close()
        let path = directory.appending("view-search.checkpoint")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 3] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: path))

        let views = Self.views()
        let reopened = try Logbook.open(directory: directory.path, options: Self.options(views))
        #expect(reopened.viewCheckpointStatus["search"] == .discarded("state checksum mismatch"))
        #expect(reopened.viewCheckpointStatus["graph"] != ViewCheckpointStatus.none)
        try reopened.close()
        #expect(views.map { $0.digest() } == (try Self.fullRebuildDigests(directory.path)))
    }

    @Test func aCheckpointFromAnotherLogOrAheadOfTheLogIsDiscarded() async throws {
        let long = TemporaryDirectory()
        let short = TemporaryDirectory()
        let other = TemporaryDirectory()
        defer {
            long.remove()
            short.remove()
            other.remove()
        }
        for (directory, count, seed) in [
            (long, 300, 6 as UInt64), (short, 100, 6), (other, 500, 7),
        ] {
            let logbook = try Logbook.open(
                directory: directory.path, nodeId: 1, options: Self.options(Self.views()))
            try await Self.write(count, seed: seed, to: logbook)
            try logbook.close()
        }
        // The long log's checkpoint in the short log: ahead of it.
        try expectDiscarded(copying: long, into: short, because: "the log ends at")
        // Another log of another history: its batch at that offset differs.
        try expectDiscarded(copying: long, into: other, because: "not the one it was taken against")
    }

    /// Puts `source`'s graph checkpoint into `target`, reopens, and checks it is discarded
    /// for `reason` and the rebuilt views equal a full rebuild.
    private func expectDiscarded(
        copying source: TemporaryDirectory, into target: TemporaryDirectory, because reason: String
    ) throws {
        let name = "view-graph.checkpoint"
        try FileManager.default.removeItem(atPath: target.appending(name))
        try FileManager.default.copyItem(
            atPath: source.appending(name), toPath: target.appending(name))
        let views = Self.views()
        let reopened = try Logbook.open(directory: target.path, options: Self.options(views))
        guard case .discarded(let found)? = reopened.viewCheckpointStatus["graph"] else {
            Issue.record("expected the copied checkpoint to be discarded")
            return
        }
        #expect(found.contains(reason), "\(found)")
        try reopened.close()
        #expect(views.map { $0.digest() } == (try Self.fullRebuildDigests(target.path)))
    }

    @Test func afterCompactionReopenedViewsStillEqualAFullRebuild() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1, options: Self.options(Self.views()))
        try await Self.write(400, seed: 8, to: logbook)
        var compaction = CompactionOptions()
        compaction.dirtyRatioMin = 0
        _ = try logbook.compact(compaction)
        try logbook.close()
        let views = Self.views()
        let reopened = try Logbook.open(directory: directory.path, options: Self.options(views))
        try reopened.close()
        // The counting view counts changes, not state, so compaction changes its figure:
        // compare the three state views.
        #expect(
            Array(views.prefix(3).map { $0.digest() })
                == Array((try Self.fullRebuildDigests(directory.path)).prefix(3)))
    }
}
