import Foundation
import LogbookTesting
import Synchronization
import Testing

@testable import LogbookStorage

// The group committer resumes a waiter only after a sync covering its offset finished, syncs
// through handles of its own (never the writer's), fails every waiter once a sync failed,
// and with two syncs allowed lets a later sync finish first. Method: a scripted file whose
// syncs count, block or fail on command, and a flush that reports a settable offset.
@Suite struct GroupCommitterTests {
    /// A file that only counts; its sync handles are `ScriptedFile`s too, sharing its
    /// `onSync` and the count of syncs through any of them.
    final class ScriptedFile: StorageFile, @unchecked Sendable {
        // @unchecked: every field is guarded by `lock`.
        let path: String
        private let lock = NSLock()
        private var syncs = 0
        private var handles: [ScriptedFile] = []
        private var closed = false
        /// Syncs through this file and every handle made from it.
        private let allSyncs: SyncNumbers
        /// Runs inside each sync with its number among `allSyncs`; may block it or throw.
        let onSync: @Sendable (Int) throws(StorageError) -> Void

        init(
            path: String, allSyncs: SyncNumbers = SyncNumbers(),
            onSync: @escaping @Sendable (Int) throws(StorageError) -> Void = { _ in }
        ) {
            self.path = path
            self.allSyncs = allSyncs
            self.onSync = onSync
        }

        var syncCount: Int { lock.withLock { syncs } }
        var madeHandles: [ScriptedFile] { lock.withLock { handles } }
        var isClosed: Bool { lock.withLock { closed } }

        func read(at offset: Int64, count: Int) throws(StorageError) -> [UInt8] { [] }
        func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(StorageError) {}
        func sync() throws(StorageError) {
            lock.withLock { syncs += 1 }
            let number = allSyncs.next()
            try onSync(number)
        }
        func syncHandle() throws(StorageError) -> any StorageFile {
            let handle = ScriptedFile(path: path + " (handle)", allSyncs: allSyncs, onSync: onSync)
            lock.withLock { handles.append(handle) }
            return handle
        }
        func truncate(to size: Int64) throws(StorageError) {}
        func size() throws(StorageError) -> Int64 { 0 }
        func close() throws(StorageError) { lock.withLock { closed = true } }
    }

    /// Numbers syncs in the order they start, across a file and its handles.
    final class SyncNumbers: Sendable {
        private let count = Mutex(0)
        func next() -> Int {
            count.withLock {
                $0 += 1
                return $0
            }
        }
    }

    /// What the flush reports: the file written and the offset written so far.
    final class Written: Sendable {
        let state: Mutex<(file: ScriptedFile, offset: UInt64)>
        init(_ file: ScriptedFile) { state = Mutex((file, 0)) }
        func append(_ bytes: UInt64) -> UInt64 {
            state.withLock {
                $0.offset += bytes
                return $0.offset
            }
        }
        func switchTo(_ file: ScriptedFile) { state.withLock { $0.file = file } }
    }

    /// A scripted file whose first sync (through any handle) blocks until released. The sync
    /// blocks the committer's own thread; the test awaits it without holding a thread of the
    /// pool (two threads on a 2-core machine, shared by every test running at once).
    final class HeldFirstSync: Sendable {
        private let started = OneTimeSignal()
        private let released = DispatchSemaphore(value: 0)
        let file: ScriptedFile

        init() {
            let (started, released) = (started, released)
            file = ScriptedFile(path: "held") { number in
                guard number == 1 else { return }
                started.send()
                released.wait()
            }
        }

        /// Returns once the first sync has started (and is held).
        func running() async { await started.received() }

        /// Lets the first sync finish.
        func release() { released.signal() }
    }

    private func committer(_ written: Written, syncsInFlightMax: Int = 1) -> GroupCommitter {
        GroupCommitter(
            durableOffset: 0, syncsInFlightMax: syncsInFlightMax,
            flushForSync: {
                let (file, offset) = written.state.withLock { ($0.file, $0.offset) }
                return .sync(file: file, offset: offset)
            },
            noteDurable: { _ in })
    }

    @Test(arguments: [1, 2])
    func everyWaiterResumesAfterASyncThroughAHandleOfItsOwn(syncsInFlightMax: Int) async throws {
        let first = ScriptedFile(path: "first")
        let written = Written(first)
        let committer = committer(written, syncsInFlightMax: syncsInFlightMax)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    for _ in 0..<20 { try await committer.waitUntilDurable(written.append(10)) }
                }
            }
            try await group.waitForAll()
        }
        #expect(first.syncCount == 0, "the writer's own handle is never synced by the committer")
        #expect(first.madeHandles.count == syncsInFlightMax || first.madeHandles.count == 1)
        let handleSyncs = first.madeHandles.map { $0.syncCount }.reduce(0, +)
        #expect(handleSyncs == committer.syncCount && handleSyncs >= 1 && handleSyncs <= 1280)

        // A new segment: a new handle, and the last one closed.
        let second = ScriptedFile(path: "second")
        written.switchTo(second)
        try await committer.waitUntilDurable(written.append(10))
        #expect(second.madeHandles.count == 1 && second.madeHandles[0].syncCount == 1)
        #expect(first.madeHandles.contains { $0.isClosed })
        committer.stop()
        #expect(second.madeHandles[0].isClosed, "stop closes the handles")
    }

    /// Expects waiting for `offset` to throw a `StorageError`.
    private func expectRefusal(_ committer: GroupCommitter, _ offset: UInt64) async {
        do {
            try await committer.waitUntilDurable(offset)
            Issue.record("waiting for \(offset) returned")
        } catch {
            #expect(error is StorageError)
        }
    }

    @Test func aFailedSyncFailsEveryWaiterThenAndLater() async throws {
        let file = ScriptedFile(path: "failing") { number throws(StorageError) in
            if number == 2 { throw StorageError(.io, "the disk went away", path: "failing") }
        }
        let written = Written(file)
        let committer = committer(written)
        try await committer.waitUntilDurable(written.append(10))
        await expectRefusal(committer, written.append(10))
        await expectRefusal(committer, written.append(10))
        committer.stop()
    }

    // The limits below catch a hang. They are wall time, waits for a pool thread included:
    // with every test running at once on two cores, a test that awaited early was resumed
    // 80 s later in one CI run, so a limit of one minute failed tests that did not hang.
    @Test(.timeLimit(.minutes(10))) func aLaterSyncMayFinishFirstAndCoversEverythingBeforeIt()
        async throws
    {
        let firstSync = HeldFirstSync()
        let written = Written(firstSync.file)
        let committer = committer(written, syncsInFlightMax: 2)
        let early = Task { try await committer.waitUntilDurable(written.append(10)) }
        await firstSync.running()
        // The first sync (covering 10) is held; the second (covering 20) finishes, and POSIX
        // makes everything written before it began durable, so both waiters resume.
        try await committer.waitUntilDurable(written.append(10))
        try await early.value
        firstSync.release()
        committer.stop()
        #expect(committer.syncCount == 2)
    }

    @Test(.timeLimit(.minutes(10))) func stopSyncsWhatIsPendingAndResumesEveryWaiter() async throws
    {
        let firstSync = HeldFirstSync()
        let written = Written(firstSync.file)
        let committer = committer(written)
        let first = Task { try await committer.waitUntilDurable(written.append(10)) }
        await firstSync.running()
        // Seven more arrive while the first sync is held, so no started sync covers them.
        let later = (0..<7).map { _ in
            let offset = written.append(10)
            return Task { try await committer.waitUntilDurable(offset) }
        }
        while committer.waitingCount < 8 { await Task.yield() }
        // `stop` blocks until the committer's threads end, so it runs on a thread of its own.
        let stopped = Task { try await onOwnThread { committer.stop() } }
        firstSync.release()
        try await stopped.value
        try await first.value
        for task in later { try await task.value }
        #expect(committer.syncCount == 2, "one more sync for the seven, at stop")
        await expectRefusal(committer, written.append(10))
    }
}

// A sync handle is a second open file description of the same file: it syncs what the
// writer's handle wrote, and refuses a file replaced at its path. Method: real files in a
// temporary directory.
@Suite struct PosixSyncHandleTests {
    private func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "sync-handle-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aHandleIsASecondDescriptionOfTheSameFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fileSystem = PosixFileSystem()
        let file = try fileSystem.open(directory + "/segment", mode: .createNew)
        try file.write([1, 2, 3], at: 0)
        let handle = try file.syncHandle()
        #expect(handle !== file)
        try handle.sync()
        try handle.close()
        try file.write([4], at: 3)
        #expect(try file.size() == 4, "closing the handle leaves the writer's open")
        try file.sync()
        try file.close()
        #expect(try file.syncHandle() === file, "a closed, synced file has nothing to sync")
    }

    @Test func aClosedFileWithUnsyncedWritesRefusesAHandle() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try PosixFileSystem().open(directory + "/segment", mode: .createNew)
        try file.write([1], at: 0)
        try file.close()
        #expect(throws: StorageError.self) { try file.syncHandle() }
    }

    @Test func aFileReplacedAtItsPathRefusesAHandle() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fileSystem = PosixFileSystem()
        let file = try fileSystem.open(directory + "/segment", mode: .createNew)
        let other = try fileSystem.open(directory + "/other", mode: .createNew)
        try other.close()
        try fileSystem.rename(directory + "/other", to: directory + "/segment")
        do {
            _ = try file.syncHandle()
            Issue.record("a handle on the replacement was made")
        } catch {
            #expect(error.code == .io && error.message.contains("replaced"))
        }
        try file.close()
    }
}
