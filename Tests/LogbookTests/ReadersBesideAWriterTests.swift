import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting
import Testing

// An app and its extensions at once: read-only opens beside one writer, in this process
// (the multi-process run is `ReadersBesideAWriterProcessTests`). A reader takes no lock,
// serves what the writer made durable, keeps reading the files it opened while the
// writer's compaction and GC replace them, and refreshes on demand.
@Suite struct ReadersBesideAWriterTests {
    private func readOnly() -> LogbookOptions {
        var options = LogbookOptions()
        options.readOnly = true
        return options
    }

    private func writerOptions() -> LogbookOptions {
        var options = LogbookOptions()
        options.log.segmentSizeMax = 4096
        options.log.batchSizeTarget = 256
        return options
    }

    private func write(_ logbook: Logbook, _ range: Range<Int>, keys: Int = 20) async throws {
        for step in range {
            try await logbook.insertOrUpdate(
                "k\(step % keys)", fields: [("step", .int(Int64(step))), ("pad", "0123456789")])
        }
    }

    @Test func aRefreshMovesAReaderToWhatTheWriterAcknowledged() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let writer = try Logbook.open(
            directory: directory.path, nodeId: 1, options: writerOptions())
        try await write(writer, 0..<100)
        let reader = try Logbook.open(directory: directory.path, options: readOnly())
        #expect(reader.stateDigest() == writer.stateDigest())
        try await write(writer, 100..<400)
        #expect(reader.getRecord("k0")?.fields["step"] == .int(80), "still the state it opened")
        let refresh = try reader.refresh()
        #expect(!refresh.historyChanged)
        #expect(refresh.end > refresh.previousEnd)
        #expect(reader.stateDigest() == writer.stateDigest())
        #expect(reader.getRecord("k0")?.fields["step"] == .int(380))
        #expect(try reader.refresh().end == refresh.end, "nothing new: nothing read")
        try reader.close()
        try writer.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aReadersObserversHearWhatEachRefreshApplied() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let writer = try Logbook.open(
            directory: directory.path, nodeId: 1, options: writerOptions())
        try await write(writer, 0..<10)
        let reader = try Logbook.open(directory: directory.path, options: readOnly())
        var commits = reader.committedChanges().makeAsyncIterator()
        try await write(writer, 10..<40)
        let first = try reader.refresh()
        try reader.refresh()  // nothing new: nothing delivered
        try await write(writer, 40..<41)
        try reader.refresh()
        let heard = await commits.next()
        #expect(heard?.changes.count == 60, "30 writes of two columns")
        #expect(heard?.offsets == first.previousEnd..<first.end)
        #expect(Set(heard?.recordIds ?? []) == Set((0..<20).map { "k\($0)" }))
        let next = await commits.next()
        #expect(next?.changes.map(\.recordId) == ["k0", "k0"], "the one write after")
        try reader.close()
        #expect(await commits.next() == nil, "closing ends the stream")
        try writer.close()
    }

    @Test func aReaderKeepsItsFilesWhileTheWriterCompactsThemAway() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let writer = try Logbook.open(
            directory: directory.path, nodeId: 1, options: writerOptions())
        try await write(writer, 0..<600)
        try writer.sealActiveSegment()
        let reader = try Logbook.open(directory: directory.path, options: readOnly())
        let opened = reader.stateDigest()
        var compaction = CompactionOptions()
        compaction.dirtyRatioMin = 0
        #expect(try writer.compact(compaction).didRewrite, "the segments the reader read went")
        // Every change the reader serves still comes from the files it opened.
        var changes = 0
        try reader.forEachChange(since: 0) { _, _ in changes += 1 }
        #expect(changes > 0)
        #expect(reader.stateDigest() == opened)
        try await write(writer, 600..<700)
        try reader.refresh()
        #expect(reader.stateDigest() == writer.stateDigest())
        try reader.close()
        try writer.close()
    }

    @Test func aRefreshAfterATombstoneGCReplaysTheNewHistory() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let writer = try Logbook.open(
            directory: directory.path, nodeId: 1, options: writerOptions())
        try await write(writer, 0..<200)
        try await writer.deleteRecord("k3")
        try writer.sync()
        let reader = try Logbook.open(directory: directory.path, options: readOnly())
        #expect(reader.stateDigest() == writer.stateDigest())
        var options = TombstoneCollectionOptions()
        options.retentionSeconds = 0
        options.now = Date(timeIntervalSince1970: 1_000)
        #expect(
            try writer.collectTombstones(peers: PeerLedger(for: writer), options).collected == 1)
        #expect(
            reader.stateDigest() != writer.stateDigest(), "the reader still holds k3's tombstone")
        let refresh = try reader.refresh()
        #expect(refresh.historyChanged)
        #expect(reader.stateDigest() == writer.stateDigest())
        try reader.close()
        try writer.close()
    }

    @Test func aWriterStartingBesideReadersIsNotBlockedAndAReaderWritesNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = try Logbook.open(directory: directory.path, nodeId: 1, options: writerOptions())
        try await write(first, 0..<50)
        try first.close()
        let before = try directoryContents(directory.path)
        let readers = try (0..<3).map { _ in
            try Logbook.open(directory: directory.path, options: readOnly())
        }
        for reader in readers { try reader.refresh() }
        #expect(try directoryContents(directory.path) == before, "readers change no byte")
        let writer = try Logbook.open(directory: directory.path, options: writerOptions())
        try await write(writer, 50..<60)
        for reader in readers {
            try reader.refresh()
            #expect(reader.stateDigest() == writer.stateDigest())
            try reader.close()
        }
        try writer.close()
    }

    private func directoryContents(_ path: String) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            contents[name] = FileManager.default.contents(atPath: path + "/" + name)
        }
        return contents
    }
}
