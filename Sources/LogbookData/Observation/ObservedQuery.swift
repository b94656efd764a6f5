import Logbook
import LogbookCRDT

/// A query's answer, again each time a commit touches it: the current models first, then
/// after every commit that changed a model in the answer or moved one into the keys it
/// covers, at most once per `coalescing` interval (`Logbook.observe(_:_:order:limit:
/// coalescing:)`). Commits to other records, other types or keys outside the answer wake
/// its task to be looked at and yield nothing.
public struct ObservedQuery<Model: LogbookModel>: AsyncSequence, Sendable {
    /// One answer.
    public typealias Element = Result<[Model], ModelError>

    let stream: AsyncStream<Element>

    /// See `AsyncSequence`.
    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator { stream.makeAsyncIterator() }
}

/// What an observed query watches: the keys of its answer and the record ids in it.
struct WatchedAnswer {
    /// The range of keys a change must land in to touch the answer: the query's, cut at
    /// the answer's last key when the answer is a full page (a key past the last would not
    /// be on the page; one before the first would).
    var low: [UInt8]
    var high: [UInt8]
    var recordIds: Set<String>

    init(query: IndexQuery, order: IndexOrder, limit: Int, keys: [[UInt8]], recordIds: [String]) {
        (low, high) = query.keyRange()
        self.recordIds = Set(recordIds)
        if keys.count >= limit, let last = keys.last {
            switch order {
            case .ascending: high = last + [0]  // the least key above the last
            case .descending: low = last
            }
        }
    }

    /// True when `commit` changed a record in the answer, or put one at a key inside it.
    func isTouched<Model: LogbookModel>(by commit: CommittedChanges, in index: ModelIndex<Model>)
        -> Bool
    {
        commit.changes.contains { change in
            guard change.recordId.hasPrefix(Model.recordPrefix) else { return false }
            if recordIds.contains(change.recordId) { return true }
            guard let key = index.currentKey(of: change.recordId) else { return false }
            return IndexKeyEncoding.compare(key, low) >= 0
                && IndexKeyEncoding.compare(key, high) < 0
        }
    }
}

extension Logbook {
    /// Observes the answer of `query` on `index` (see `query(_:_:order:limit:after:)`): the
    /// answer now, then again whenever a commit touches it, coalesced so that a burst of
    /// commits (an import) yields once per `coalescing` interval. Ends when the task reading
    /// it is cancelled or the Logbook closes; a query the index cannot answer yields its
    /// error and ends.
    public func observe<Model: LogbookModel>(
        _ index: ModelIndex<Model>, _ query: IndexQuery = .all, order: IndexOrder = .ascending,
        limit: Int = .max, coalescing interval: Duration = .milliseconds(50)
    ) -> ObservedQuery<Model> {
        let commits = committedChanges()
        let (stream, continuation) = AsyncStream.makeStream(of: ObservedQuery<Model>.Element.self)
        let watcher = Task { [self] in
            var watched: WatchedAnswer?
            // Answers again; false when the query cannot be answered.
            func answerNow() -> Bool {
                do throws(ModelError) {
                    let answer = try self.answer(
                        index, query, order: order, limit: limit, after: nil)
                    watched = WatchedAnswer(
                        query: query, order: order, limit: limit, keys: answer.keys,
                        recordIds: answer.models.map(\.recordId))
                    continuation.yield(.success(answer.models))
                    return true
                } catch {
                    continuation.yield(.failure(error))
                    return false
                }
            }
            // Commits at or below this offset are in the last answer.
            var covered = nextOffset
            guard answerNow() else { return continuation.finish() }
            for await commit in commits {
                guard commit.offsets.upperBound > covered,
                    watched?.isTouched(by: commit, in: index) ?? true
                else { continue }
                try? await Task.sleep(for: interval)
                if Task.isCancelled { break }
                covered = nextOffset
                _ = answerNow()
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in watcher.cancel() }
        return ObservedQuery(stream: stream)
    }
}
