import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

/// Records the offsets applied to it and the thread that applied them.
final class RecordingView: MaterializedView, @unchecked Sendable {
    // @unchecked: applied from one thread at a time (the test checks which), read after.
    let name: String
    let replaysIndependently: Bool
    var offsets: [UInt64] = []
    var threads: Set<UInt> = []

    init(name: String, independent: Bool) {
        self.name = name
        replaysIndependently = independent
    }

    func reset() {
        offsets = []
        threads = []
    }

    func apply(_ change: Change<String, String, Value>, at offset: UInt64) {
        offsets.append(offset)
        threads.insert(UInt(bitPattern: Int(bitPattern: pthread_self())))
    }

    func digest() -> StateDigest {
        var builder = StateDigestBuilder()
        builder.combine("\(offsets.count)")
        return builder.finalize()
    }
}

// A replay of a log large enough to be pipelined applies the views that replay
// independently on two threads, every view still getting every change once, in log order,
// and ending where incremental maintenance ended.
@Suite struct ConcurrentViewReplayTests {
    @Test func aLargeReplaySplitsIndependentViewsAndKeepsEachInOrder() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let incremental: [any MaterializedView] = [GraphIndex(), SearchIndex(), BridgeStatsView()]
        var options = LogbookOptions()
        options.durability = .buffered
        options.snapshots = .off  // the state too is replayed
        options.views = incremental
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
        var random = SeededGenerator(seed: 11)
        // Incompressible content, so the log passes the 1 MiB under which replay runs
        // on one thread.
        while logbook.sizeBytes < 2 << 20 {
            let (recordId, fields) = ViewRebuildPropertyTests.randomWrite(&random)
            let noise = (0..<64).map { _ in
                String(UInt64.random(in: 0...UInt64.max, using: &random), radix: 36)
            }
            try await logbook.insertOrUpdate(
                recordId, fields: fields + [("content.noise", .string(noise.joined()))])
        }
        let digests = incremental.map { $0.digest() }
        let changeCount = logbook.nextOffset
        try logbook.close()

        let first = RecordingView(name: "first", independent: true)
        let second = RecordingView(name: "second", independent: true)
        let shared = RecordingView(name: "shared", independent: false)
        let rebuilt: [any MaterializedView] = [GraphIndex(), SearchIndex(), BridgeStatsView()]
        options.views = [first, second, shared] + rebuilt
        let reopened = try Logbook.open(directory: directory.path, options: options)
        defer { try? reopened.close() }
        #expect(rebuilt.map { $0.digest() } == digests)
        for view in [first, second, shared] {
            #expect(view.offsets == view.offsets.sorted(), "\(view.name): out of order")
            #expect(Set(view.offsets).count == view.offsets.count, "\(view.name): twice")
            #expect(UInt64(view.offsets.count) <= changeCount)
            #expect(view.offsets.count == first.offsets.count, "\(view.name): not every change")
            #expect(view.threads.count == 1, "\(view.name): applied from several threads")
        }
        #expect(first.offsets.count > 1000)
        // The first independent view is applied apart from the second and the shared one.
        #expect(first.threads != second.threads)
        #expect(second.threads == shared.threads)
    }
}
