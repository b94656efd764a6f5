import LogbookCRDT
import LogbookStorage

/// Rebuilds a CRDT from its log: each batch is read, checked and decoded once, its changes
/// restored in log order with their stored local versions.
enum Replayer {
    /// The CRDT is restored the records at offsets from `stateStart` on (0 for a full
    /// rebuild; a loaded snapshot's offset otherwise). Views are applied the changes at
    /// offsets from their `start` on (likewise, for checkpoints); the caller resets or
    /// restores them. Only batches some of them need are read.
    static func replay(
        _ log: Log, into crdt: CRDT<String, String, Value>, from stateStart: UInt64 = 0,
        views: [(view: any MaterializedView, start: UInt64)] = [],
        progress: (@Sendable (Int64, Int64) -> Void)?
    ) throws(LogbookError) -> ReplayStatistics {
        let started = ContinuousClock.now
        var statistics = ReplayStatistics()
        let total = log.sizeBytes
        var changes: [Change<String, String, Value>] = []
        var offsets: [UInt64] = []
        var scratch = Change<String, String, Value>(
            recordId: "", colName: nil, value: nil, colVersion: 0, dbVersion: 0, nodeId: 0,
            localDbVersion: 0)
        var highestClock: UInt64 = 0
        do {
            let start = max(log.startOffset, views.map(\.start).reduce(stateStart, min))
            let cursor = try log.makeCursor(from: start)
            let keepsOffsets = !views.isEmpty || stateStart > 0
            while try cursor.next() {
                guard let header = cursor.header else { break }
                changes.removeAll(keepingCapacity: true)
                offsets.removeAll(keepingCapacity: true)
                try cursor.forEachRecord { (offset, bytes) throws(LogbookError) in
                    switch ChangeRecordCodec.decode(bytes, into: &scratch) {
                    case .change:
                        changes.append(scratch)
                        if keepsOffsets { offsets.append(offset) }
                    case .clock(let time) where offset >= stateStart:
                        highestClock = max(highestClock, time)
                    case .clock: break
                    case .failure(let failure):
                        throw LogbookError(
                            .corruption, failure.description, path: cursor.location.path,
                            logOffset: offset)
                    }
                }
                if header.baseOffset >= stateStart {
                    crdt.restore(changes)
                } else if header.nextOffset > stateStart {
                    crdt.restore(zip(changes, offsets).lazy.filter { $0.1 >= stateStart }.map(\.0))
                }
                for (view, start) in views where start < header.nextOffset {
                    for (change, offset) in zip(changes, offsets) where offset >= start {
                        view.apply(change, at: offset)
                    }
                }
                statistics.batches += 1
                statistics.records += Int(header.recordCount)
                statistics.changes += changes.count
                statistics.rawBytes += Int64(header.rawLength)
                statistics.storedBytes += Int64(header.totalSize)
                progress?(statistics.storedBytes, total)
            }
        } catch let error as LogbookError {
            throw error
        } catch let error as StorageError {
            throw LogbookError(error)
        } catch {
            throw LogbookError(.corruption, "\(error)", path: log.directory)
        }
        crdt.advanceClock(to: highestClock)
        statistics.seconds = Double((ContinuousClock.now - started) / .nanoseconds(1)) / 1e9
        return statistics
    }
}
