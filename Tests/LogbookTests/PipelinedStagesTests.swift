import Foundation
import LogbookCRDT
import LogbookTesting
import Testing

@testable import Logbook

// The two-stage pipeline under replay: order kept, errors from either side stop both
// without a hang, and a log big enough to be replayed on two threads reopens to the state
// that wrote it, or fails the way a one-thread replay fails.
@Suite struct PipelinedStagesTests {
    struct Stop: Error, Equatable { var at: Int }

    @Test(arguments: [true, false])
    func itemsArriveInOrderAndAProducerErrorComesAfterThem(inline: Bool) {
        var seen: [Int] = []
        #expect(throws: Stop(at: 500)) {
            try PipelinedStages.run(
                inline: inline, depth: 3,
                produce: { emit in
                    for item in 0..<500 { guard emit(item) else { return } }
                    throw Stop(at: 500)
                },
                consume: { seen.append($0) })
        }
        #expect(seen == Array(0..<500))
    }

    @Test(arguments: [true, false])
    func aConsumerErrorStopsTheProducer(inline: Bool) {
        let produced = Counter()
        #expect(throws: Stop(at: 10)) {
            try PipelinedStages.run(
                inline: inline, depth: 2,
                produce: { emit in
                    for item in 0..<1_000_000 {
                        produced.increment()
                        guard emit(item) else { return }
                    }
                },
                consume: { item in if item == 10 { throw Stop(at: 10) } })
        }
        #expect(produced.value < 100, "the producer ran on: \(produced.value)")
    }

    /// An item that counts whether the producer's thread destroyed it.
    final class Tracked: Sendable {
        let producer: ProducerThread
        init(_ producer: ProducerThread) { self.producer = producer }
        deinit { producer.countIfCurrent() }
    }

    /// The producer's thread, as it names itself (thread names are not reliable on Linux:
    /// a new thread inherits its creator's).
    final class ProducerThread: @unchecked Sendable {
        private let lock = NSLock()
        private var thread: Thread?
        private var count = 0
        var destroyedOnIt: Int { lock.withLock { count } }
        func noteCurrent() { lock.withLock { thread = Thread.current } }
        func countIfCurrent() {
            let current = Thread.current
            lock.withLock { if thread === current { count += 1 } }
        }
    }

    /// The consumer hands items back, and the producer drops them: all but the few still
    /// in the queue or handed back after its last item.
    @Test func itemsAreDestroyedOnTheProducersThread() throws {
        let producer = ProducerThread()
        let count = 500
        let depth = 3
        var consumed = 0
        try PipelinedStages.run(
            inline: false, depth: depth,
            produce: { emit in
                producer.noteCurrent()
                for _ in 0..<count { guard emit(Tracked(producer)) else { return } }
            },
            consume: { _ in consumed += 1 })
        #expect(consumed == count)
        #expect(
            producer.destroyedOnIt >= count - depth - 2, "\(producer.destroyedOnIt) of \(count)")
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }

    @Test func aLogOverTheThresholdReplaysOnTwoThreadsToTheSameState() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = smallLogOptions(batchSizeTarget: 16 * 1024)
        options.log.segmentSizeMax = 256 * 1024
        options.snapshots = .off
        let logbook = try Logbook.open(directory: directory.path, nodeId: 4, options: options)
        // Random text, so LZ4 cannot shrink the log under the threshold; some deletions.
        var random = SeededGenerator(seed: 77)
        for step in 0..<16_000 {
            let recordId = "r\(Int.random(in: 0..<3_000, using: &random))"
            if step % 40 == 39 {
                _ = try await logbook.deleteRecord(recordId)
            } else {
                let text = (0..<25).map { _ in
                    String(UInt64.random(in: 0...UInt64.max, using: &random), radix: 36)
                }
                try await logbook.insertOrUpdate(
                    recordId,
                    fields: [("text", .string(text.joined())), ("step", .int(Int64(step)))])
            }
        }
        let expected = logbook.getChangesSince(0)
        let clock = logbook.clock().currentTime()
        try logbook.close()
        let reopened = try Logbook.open(directory: directory.path, options: options)
        #expect(reopened.sizeBytes > Replayer.pipelineBytesMin, "too small to be pipelined")
        #expect(reopened.getChangesSince(0) == expected)
        #expect(reopened.clock().currentTime() == clock)
        try reopened.close()

        // A flipped byte inside a sealed segment in the middle: the reading thread's error
        // reaches the opener, and nothing hangs.
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".seg") }.sorted()
        #expect(segments.count > 2)
        let path = directory.appending(segments[segments.count / 2])
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        options.readOnly = true
        #expect(throws: LogbookError.self) {
            try Logbook.open(directory: directory.path, options: options)
        }
    }
}
