import Foundation
import LogbookCRDT

/// Group commit for pushes into one stream from this process. A merge holds its stream's
/// row lock from its version to its commit, so merges into one stream run one at a time
/// whatever the number of connections; pushes that wait for the lock in PostgreSQL each
/// cost a lock hand-over and a commit, and 64 waiting connections cost more than they add
/// (docs/hub.md, "Measured"). Here a push that arrives while a merge of its stream is
/// under way waits in this process instead, and the next merge takes every push waiting
/// then, up to `changesPerMergeMax` changes, in one statement and one commit.
///
/// A push arriving when nothing is under way merges at once, alone. Whoever merges a group
/// is its first push's task (the leader); when its merge ends it answers every push of the
/// group and hands the lead to the first push still waiting. The merge itself runs in a
/// task of its own, so a leader's request being cancelled (its client gone, its deadline
/// passed) does not cancel the others' merge. A waiting push that is cancelled leaves the
/// queue, unmerged.
final class HubMergeQueue: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`.

    /// The most changes one merge takes from waiting pushes (the first push is taken
    /// whatever its size); by default the largest push the hub accepts.
    let changesPerMergeMax: Int

    init(changesPerMergeMax: Int = HubStore.pushChangesMax) {
        self.changesPerMergeMax = changesPerMergeMax
    }

    typealias Changes = [Change<String, String, Value>]

    private enum Turn {
        case merged(Result<HubMergeReport, any Error>)
        case lead
    }

    /// One push, from its arrival to its answer. @unchecked: `continuation` is guarded by
    /// the queue's lock.
    private final class Pending: @unchecked Sendable {
        let changes: Changes
        /// Nil once resumed (answered, or told to lead).
        var continuation: CheckedContinuation<Turn, Never>?

        init(_ changes: Changes) { self.changes = changes }
    }

    /// Per stream: whether a leader is at work, and the pushes waiting, oldest first (a
    /// leader's own push stays first until its group is taken).
    private struct Line {
        var leading = false
        var waiting: [Pending] = []
    }

    private let lock = NSLock()
    private var lines: [Int64: Line] = [:]

    /// Merges `changes` into `stream`, alone or with pushes waiting beside it; `run` merges
    /// one group (the changes of each push, oldest first) and answers a report per push.
    func merge(
        _ changes: Changes, into stream: Int64,
        run: @escaping @Sendable ([Changes]) async throws -> [HubMergeReport]
    ) async throws -> HubMergeReport {
        let pending = Pending(changes)
        let turn = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let leads: Bool = lock.withLock {
                    pending.continuation = continuation
                    lines[stream, default: Line()].waiting.append(pending)
                    guard lines[stream]?.leading == false else { return false }
                    lines[stream]?.leading = true
                    pending.continuation = nil
                    return true
                }
                if leads { continuation.resume(returning: .lead) }
            }
        } onCancel: {
            leave(pending, stream)
        }
        switch turn {
        case .merged(let result): return try result.get()
        case .lead: return try await lead(pending, stream, run)
        }
    }

    /// Takes the group `own` heads, merges it, answers it, and passes the lead on.
    private func lead(
        _ own: Pending, _ stream: Int64,
        _ run: @escaping @Sendable ([Changes]) async throws -> [HubMergeReport]
    ) async throws -> HubMergeReport {
        let group = takeGroup(stream)
        let pushes = group.map(\.changes)
        let result = await Task { try await run(pushes) }.result
        var ownResult: Result<HubMergeReport, any Error> = .failure(
            HubError.corruptRow("a merge of \(group.count) pushes did not answer this one"))
        let answers: [(Pending, Result<HubMergeReport, any Error>)] = group.enumerated().map {
            index, pending in
            let answer = result.flatMap { reports -> Result<HubMergeReport, any Error> in
                guard index < reports.count else {
                    return .failure(
                        HubError.corruptRow(
                            "a merge of \(group.count) pushes answered \(reports.count)"))
                }
                return .success(reports[index])
            }
            return (pending, answer)
        }
        let resumed: [(CheckedContinuation<Turn, Never>, Turn)] = lock.withLock {
            var resumed: [(CheckedContinuation<Turn, Never>, Turn)] = []
            for (pending, answer) in answers {
                if pending === own {
                    ownResult = answer
                } else if let continuation = pending.continuation {
                    pending.continuation = nil
                    resumed.append((continuation, .merged(answer)))
                }
            }
            if let next = lines[stream]?.waiting.first {
                // Only a leader waits without a continuation, and this one's push left
                // with its group: the first push waiting is not leading yet.
                if let continuation = next.continuation {
                    next.continuation = nil
                    resumed.append((continuation, .lead))
                }
            } else {
                lines[stream] = nil
            }
            return resumed
        }
        for (continuation, turn) in resumed { continuation.resume(returning: turn) }
        return try ownResult.get()
    }

    /// Pushes into `stream` waiting for a merge (not those of the merge under way).
    func waitingCount(_ stream: Int64) -> Int {
        lock.withLock { lines[stream]?.waiting.count ?? 0 }
    }

    /// Removes the oldest waiting pushes, the leader's first, up to `changesPerMergeMax`.
    private func takeGroup(_ stream: Int64) -> [Pending] {
        lock.withLock {
            guard let waiting = lines[stream]?.waiting, !waiting.isEmpty else { return [] }
            var count = 0
            var total = 0
            for pending in waiting {
                if count > 0, total + pending.changes.count > changesPerMergeMax { break }
                count += 1
                total += pending.changes.count
            }
            lines[stream]?.waiting.removeFirst(count)
            return Array(waiting.prefix(count))
        }
    }

    /// A waiting push's request was cancelled: it leaves the queue unless a group took it
    /// or it was told to lead (then it runs to its end).
    private func leave(_ pending: Pending, _ stream: Int64) {
        let continuation: CheckedContinuation<Turn, Never>? = lock.withLock {
            guard let continuation = pending.continuation,
                let index = lines[stream]?.waiting.firstIndex(where: { $0 === pending })
            else { return nil }
            pending.continuation = nil
            lines[stream]?.waiting.remove(at: index)
            return continuation
        }
        continuation?.resume(returning: .merged(.failure(CancellationError())))
    }
}
