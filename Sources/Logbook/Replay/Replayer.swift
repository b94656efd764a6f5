import LogbookCRDT
import LogbookStorage

/// Rebuilds a CRDT from its log: each batch is read, checked and decoded once, its changes
/// restored in log order with their stored local versions. Reading and decoding run on a
/// thread of their own, restoring on the caller's (`PipelinedStages`), for logs over
/// `pipelineBytesMin`.
enum Replayer {
    /// Smaller logs replay on one thread: a thread costs more than it would save.
    static let pipelineBytesMin: Int64 = 1 << 20

    /// A view and the offset from which it takes changes (past its checkpoint, or 0).
    typealias ViewFrom = (view: any MaterializedView, start: UInt64)

    /// One decoded batch, handed from the reading stage to the restoring one.
    struct DecodedBatch: Sendable {
        var header: BatchHeader
        var changes: [Change<String, String, Value>]
        /// Each change's offset (only when views or a snapshot need them).
        var offsets: [UInt64]
        /// The highest clock record at or after the state's start in the batch (0: none).
        var highestClock: UInt64
    }

    /// The CRDT is restored the records at offsets from `stateStart` on (0 for a full
    /// rebuild; a loaded snapshot's offset otherwise). Views are applied the changes at
    /// offsets from their `start` on (likewise, for checkpoints); the caller resets or
    /// restores them. Only batches some of them need are read.
    static func replay(
        _ log: Log, into crdt: ReplicaState, from stateStart: UInt64 = 0,
        views: [ViewFrom] = [],
        progress: (@Sendable (Int64, Int64) -> Void)?
    ) throws(LogbookError) -> ReplayStatistics {
        let started = ContinuousClock.now
        var statistics = ReplayStatistics()
        let total = log.sizeBytes
        var highestClock: UInt64 = 0
        do {
            let start = max(log.startOffset, views.map(\.start).reduce(stateStart, min))
            let cursor = try log.makeCursor(from: start)
            let keepsOffsets = !views.isEmpty || stateStart > 0
            let inline = total < pipelineBytesMin
            // Every other view that replays independently is applied on a third thread:
            // one thread applying every view was a views rebuild's bound (the decoding
            // thread was about a third busy), and each view only needs its changes in order.
            let (separate, alongside) = inline ? ([], views) : split(views)
            // Restores the state and applies `alongside`; then hands the batch on.
            let restoring = { (batch: DecodedBatch) in
                let (header, changes, offsets) = (batch.header, batch.changes, batch.offsets)
                if header.baseOffset >= stateStart {
                    crdt.restore(changes)
                } else if header.nextOffset > stateStart {
                    crdt.restore(zip(changes, offsets).filter { $0.1 >= stateStart }.map(\.0))
                }
                apply(batch, to: alongside)
                highestClock = max(highestClock, batch.highestClock)
                statistics.add(header, changes: changes.count)
                progress?(statistics.storedBytes, total)
            }
            let decoding = { (emit: (DecodedBatch) -> Bool) throws in
                try decodeBatches(cursor, keepsOffsets: keepsOffsets, stateStart: stateStart, emit)
            }
            if separate.isEmpty {
                try PipelinedStages.run(inline: inline, produce: decoding, consume: restoring)
            } else {
                try PipelinedStages.run(
                    inline: false,
                    produce: { handOn in
                        var stopped = false
                        try PipelinedStages.run(
                            inline: false, produce: decoding,
                            consume: { batch in
                                restoring(batch)
                                if !stopped { stopped = !handOn(batch) }
                            })
                    },
                    consume: { batch in apply(batch, to: separate) })
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

    /// The changes of `batch` at or past each view's start, in order, each handed to the
    /// view where it lies in the batch: read through `zip`, it was copied (its strings
    /// retained, then released) once per view, about a tenth of a views rebuild's replay in
    /// profiles.
    private static func apply(
        _ batch: DecodedBatch, to views: [ViewFrom]
    ) {
        batch.changes.withUnsafeBufferPointer { changes in
            batch.offsets.withUnsafeBufferPointer { offsets in
                let count = min(changes.count, offsets.count)
                for (view, start) in views where start < batch.header.nextOffset {
                    for index in 0..<count where offsets[index] >= start {
                        view.apply(changes[index], at: offsets[index])
                    }
                }
            }
        }
    }

    /// The views to apply on a thread of their own (the first, third… of those that replay
    /// independently), and the rest; none when fewer than two views would be left to share
    /// the work.
    private static func split(_ views: [ViewFrom]) -> (
        separate: [ViewFrom], alongside: [ViewFrom]
    ) {
        var separate: [ViewFrom] = []
        var alongside: [ViewFrom] = []
        var independent = 0
        for entry in views {
            if entry.view.replaysIndependently && independent.isMultiple(of: 2) {
                separate.append(entry)
            } else {
                alongside.append(entry)
            }
            if entry.view.replaysIndependently { independent += 1 }
        }
        guard !separate.isEmpty, !alongside.isEmpty else { return ([], views) }
        return (separate, alongside)
    }

    /// The reading stage: every batch from the cursor, decoded, until `emit` says stop.
    private static func decodeBatches(
        _ cursor: LogCursor, keepsOffsets: Bool, stateStart: UInt64,
        _ emit: (DecodedBatch) -> Bool
    ) throws {
        var columnNames = RecentShortStrings()
        while try cursor.next() {
            guard let header = cursor.header else { break }
            var batch = DecodedBatch(header: header, changes: [], offsets: [], highestClock: 0)
            batch.changes.reserveCapacity(Int(header.recordCount))
            try cursor.forEachRecord { (offset, bytes) throws(LogbookError) in
                // Decoded into a new value, which the batch then takes over: decoding into
                // one reused value copied each change into the batch (its strings
                // retained), then released the old strings as the next change overwrote it.
                var change = ChangeRecordCodec.blankChange()
                switch ChangeRecordCodec.decode(bytes, into: &change, columnNames: &columnNames) {
                case .change:
                    batch.changes.append(consume change)
                    if keepsOffsets { batch.offsets.append(offset) }
                case .clock(let time) where offset >= stateStart:
                    batch.highestClock = max(batch.highestClock, time)
                case .clock: break
                case .failure(let failure):
                    throw LogbookError(
                        .corruption, failure.description, path: cursor.location.path,
                        logOffset: offset)
                }
            }
            guard emit(batch) else { return }
        }
    }
}

extension ReplayStatistics {
    /// Counts one replayed batch.
    mutating func add(_ header: BatchHeader, changes: Int) {
        batches += 1
        records += Int(header.recordCount)
        self.changes += changes
        rawBytes += Int64(header.rawLength)
        storedBytes += Int64(header.totalSize)
    }
}
