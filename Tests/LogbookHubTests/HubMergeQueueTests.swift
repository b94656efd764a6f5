import Foundation
import LogbookCRDT
import LogbookTesting
import Testing

@testable import LogbookHub

// The hub's group commit without a database: `run` records each group it is given and, when
// asked, holds the first merge until the test opens a gate, so pushes are known to arrive
// while a merge is under way.
@Suite(.timeLimit(.minutes(10))) struct HubMergeQueueTests {
    typealias Changes = HubMergeQueue.Changes

    /// A push of `count` changes to cells of `label`.
    static func push(_ label: String, _ count: Int) -> Changes {
        (0..<count).map {
            Change(
                recordId: label, colName: "c\($0)", value: .int(Int64($0)), colVersion: 1,
                dbVersion: 1, nodeId: 1, localDbVersion: 0)
        }
    }

    @Test func pushesArrivingDuringAMergeAreMergedTogetherNextEachAnsweredItsOwn() async throws {
        let queue = HubMergeQueue()
        let merges = MergeRecorder(holdFirst: true)
        let first = Task { try await queue.merge(Self.push("a", 1), into: 7, run: merges.run) }
        try await waitUntil { merges.started == 1 }
        let later = ["b", "c", "d"].enumerated().map { index, label in
            Task { try await queue.merge(Self.push(label, index + 2), into: 7, run: merges.run) }
        }
        try await waitUntil { queue.waitingCount(7) == 3 }
        merges.open()
        #expect(try await first.value.acceptedCells == 1)
        var answered: [Int] = []
        for task in later { answered.append(try await task.value.acceptedCells) }
        #expect(answered == [2, 3, 4], "each push is told its own count")
        let groups = merges.groups.map { $0.map { $0.first?.recordId ?? "" } }
        #expect(groups.first == ["a"])
        #expect(groups.dropFirst().flatMap { $0 }.sorted() == ["b", "c", "d"])
        #expect(groups.count == 2, "the three waiting pushes form one merge: \(groups)")
        #expect(queue.waitingCount(7) == 0)
    }

    @Test func aGroupStopsAtTheChangeBoundAndStreamsDoNotWaitForEachOther() async throws {
        let queue = HubMergeQueue(changesPerMergeMax: 5)
        let merges = MergeRecorder(holdFirst: true)
        let first = Task { try await queue.merge(Self.push("a", 1), into: 1, run: merges.run) }
        try await waitUntil { merges.started == 1 }
        // Another stream merges while stream 1's merge is held.
        let other = try await queue.merge(Self.push("x", 2), into: 2, run: merges.run)
        #expect(other.acceptedCells == 2)
        var later: [Task<HubMergeReport, any Error>] = []
        for (label, count) in [("b", 3), ("c", 3), ("d", 2)] {
            later.append(
                Task { try await queue.merge(Self.push(label, count), into: 1, run: merges.run) })
            try await waitUntil { queue.waitingCount(1) == later.count }
        }
        merges.open()
        _ = try await first.value
        for task in later { _ = try await task.value }
        let sizes = merges.groups.dropFirst(2).map { $0.map(\.count) }
        #expect(sizes == [[3], [3, 2]], "3 + 3 is over the bound of 5; 3 + 2 is not")
    }

    @Test func aCancelledWaitingPushLeavesUnmergedAndTheOthersGoOn() async throws {
        let queue = HubMergeQueue()
        let merges = MergeRecorder(holdFirst: true)
        let first = Task { try await queue.merge(Self.push("a", 1), into: 3, run: merges.run) }
        try await waitUntil { merges.started == 1 }
        let cancelled = Task { try await queue.merge(Self.push("b", 1), into: 3, run: merges.run) }
        try await waitUntil { queue.waitingCount(3) == 1 }
        let kept = Task { try await queue.merge(Self.push("c", 1), into: 3, run: merges.run) }
        try await waitUntil { queue.waitingCount(3) == 2 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.waitingCount(3) == 1)
        // The leader's own request is cancelled too: its merge still runs for the group.
        first.cancel()
        merges.open()
        #expect(try await first.value.acceptedCells == 1)
        #expect(try await kept.value.acceptedCells == 1)
        #expect(merges.groups.map { $0.map { $0.first?.recordId ?? "" } } == [["a"], ["c"]])
        #expect(!merges.sawCancellation, "a merge ran cancelled")
    }

    @Test func aFailedMergeAnswersItsWholeGroupAndTheNextGroupStillMerges() async throws {
        let queue = HubMergeQueue()
        let merges = MergeRecorder(holdFirst: true, failing: ["b"])
        let first = Task { try await queue.merge(Self.push("a", 1), into: 4, run: merges.run) }
        try await waitUntil { merges.started == 1 }
        let failing = ["b", "c"].map { label in
            Task { try await queue.merge(Self.push(label, 1), into: 4, run: merges.run) }
        }
        try await waitUntil { queue.waitingCount(4) == 2 }
        merges.open()
        _ = try await first.value
        for task in failing {
            await #expect(throws: MergeRecorder.Refused.self) { try await task.value }
        }
        #expect(
            try await queue.merge(Self.push("d", 2), into: 4, run: merges.run).acceptedCells == 2)
        #expect(queue.waitingCount(4) == 0)
    }

    /// Polls `condition` every millisecond until it holds. There is no wall-clock bound
    /// here: the whole suite runs in parallel on this machine's two cooperative threads, each
    /// poll waits its turn behind every other test's work, and a CI run saw these steps take
    /// over 120 s. A step that never happens is caught by the suite's time limit instead.
    private func waitUntil(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(1)) }
    }
}

/// A stand-in merge: records each group, answers each push its change count as accepted
/// cells, optionally holds the first merge until `open()`, and fails groups holding a push
/// whose first record is in `failing`.
private final class MergeRecorder: @unchecked Sendable {
    // @unchecked: every mutable stored property is guarded by `lock` (`gate` is Sendable).
    struct Refused: Error {}

    private let lock = NSLock()
    private var recorded: [[HubMergeQueue.Changes]] = []
    /// Sent by `open()`; the first merge waits for it.
    private let gate = OneTimeSignal()
    private var cancellationSeen = false
    private let failing: Set<String>

    init(holdFirst: Bool, failing: Set<String> = []) {
        if !holdFirst { gate.send() }
        self.failing = failing
    }

    var groups: [[HubMergeQueue.Changes]] { lock.withLock { recorded } }
    var started: Int { lock.withLock { recorded.count } }
    var sawCancellation: Bool { lock.withLock { cancellationSeen } }

    func open() { gate.send() }

    var run: @Sendable ([HubMergeQueue.Changes]) async throws -> [HubMergeReport] {
        { [self] pushes in
            let isFirst = lock.withLock {
                recorded.append(pushes)
                return recorded.count == 1
            }
            if isFirst { await gate.received() }
            lock.withLock { cancellationSeen = cancellationSeen || Task.isCancelled }
            if pushes.contains(where: { failing.contains($0.first?.recordId ?? "") }) {
                throw Refused()
            }
            return pushes.map { HubMergeReport(received: 0, acceptedCells: $0.count) }
        }
    }
}
