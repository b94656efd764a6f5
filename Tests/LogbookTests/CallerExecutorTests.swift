import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Where a write runs: on the caller's executor (`nonisolated(nonsending)`), so an app's
// main-actor code pays no hop to another thread and back per call. The caller is an actor
// whose executor runs its jobs on one thread of its own; a view notes whether each change
// reached it on that thread, which is the thread that made the write under the lock. (The
// main actor is not the main thread under `swift test` on Linux, so it cannot be the probe.)
@Suite struct CallerExecutorTests {
    /// A serial executor that runs every job on one thread of its own, which it marks.
    final class OneThreadExecutor: SerialExecutor, @unchecked Sendable {
        // @unchecked: `jobs` is guarded by `condition`.
        static let marker = "logbook.tests.one-thread-executor"
        /// The one every `Caller` runs on: its thread runs for the rest of the process, so
        /// one is made, not one per caller.
        static let shared = OneThreadExecutor()
        private let condition = NSCondition()
        private var jobs: [UnownedJob] = []

        private init() {
            let thread = Thread { [self] in run() }
            thread.threadDictionary[Self.marker] = true
            thread.start()
        }

        static var isCurrent: Bool { Thread.current.threadDictionary[marker] != nil }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            condition.withLock {
                jobs.append(job)
                condition.signal()
            }
        }

        private func run() {
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }

    /// A caller isolated to its own thread, as an app's main actor is to the main thread.
    actor Caller {
        nonisolated var unownedExecutor: UnownedSerialExecutor {
            OneThreadExecutor.shared.asUnownedSerialExecutor()
        }

        func writeOfEveryKind(to logbook: Logbook) async throws -> Int {
            #expect(OneThreadExecutor.isCurrent)
            return try await CallerExecutorTests.writeOfEveryKind(to: logbook)
        }
    }

    /// Notes, per change applied, whether it was applied on the caller's thread.
    final class ThreadNotingView: MaterializedView, @unchecked Sendable {
        // @unchecked: mutated by the Logbook under its lock; read after the writes returned.
        let name = "thread-noting"
        private(set) var appliedOnCallersThread: [Bool] = []

        func reset() { appliedOnCallersThread = [] }
        func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
            appliedOnCallersThread.append(OneThreadExecutor.isCurrent)
        }
        func digest() -> StateDigest { StateDigest(of: CRDT<String, String, Value>(nodeId: 0)) }
    }

    /// Every kind of write, one call each; returns how many changes they made.
    nonisolated(nonsending) static func writeOfEveryKind(to logbook: Logbook) async throws
        -> Int
    {
        var made = try await logbook.insertOrUpdate("a", fields: [("x", 1), ("y", 2)]).count
        made += try await logbook.deleteField("a", fieldName: "y") == nil ? 0 : 1
        made += try await logbook.deleteRecord("a") == nil ? 0 : 1
        made += try await logbook.write([.insertOrUpdate("b", fields: [("x", 3)])]).count
        let peer = CRDT<String, String, Value>(nodeId: 9)
        made += try await logbook.merge(peer.insertOrUpdate("c", fields: [("x", 4)])).count
        return made
    }

    nonisolated(nonsending) static func withLogbook(
        _ durability: Durability, _ body: (Logbook, ThreadNotingView) async throws -> Void
    ) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let view = ThreadNotingView()
        let logbook = try Logbook.open(
            directory: directory.path, nodeId: 1,
            options: smallLogOptions(durability, views: [view]))
        defer { try? logbook.close() }
        try await body(logbook, view)
    }

    @Test(arguments: [Durability.buffered, .groupCommit, .fsyncEachAppend])
    func writesCalledOnAnActorRunOnItsExecutor(durability: Durability) async throws {
        try await Self.withLogbook(durability) { logbook, view in
            let made = try await Caller().writeOfEveryKind(to: logbook)
            #expect(made == 6)
            #expect(view.appliedOnCallersThread == Array(repeating: true, count: made))
        }
    }

    @Test func writesCalledOffTheActorStayOffIt() async throws {
        try await Self.withLogbook(.buffered) { logbook, view in
            let made = try await Self.writeOfEveryKind(to: logbook)
            #expect(made == 6)
            #expect(view.appliedOnCallersThread == Array(repeating: false, count: made))
        }
    }
}
