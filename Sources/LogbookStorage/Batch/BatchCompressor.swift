import Foundation

/// Compresses a log's full batches on a thread of its own while the appender fills the next
/// one; the log frames, chains and writes each on the appender's thread, in order, at its
/// next flush, so the log's state keeps one writer (`LogConfiguration.compressesFullBatchesAhead`).
///
/// Why: compressing was the largest single step of a one-change append (LZ4 alone was about
/// a tenth of its instructions), and the second core had nothing to do. One batch at a time
/// is in flight: the log writes it before handing over the next.
///
/// `@unchecked Sendable`: every stored property is guarded by `condition`.
final class BatchCompressor: @unchecked Sendable {
    private let condition = NSCondition()
    private var queued: BatchEncoder?
    private var compressed: [UInt8]?
    private var isStopping = false
    private var isStopped = false

    /// Starts the thread, which compresses with LZ4 HC at `hcLevel` when given.
    init(hcLevel: Int32?) {
        Thread.startNamed("logbook-lz4") { [self] in run(hcLevel: hcLevel) }
    }

    /// Hands `batch` over to be compressed, dropping the payload of the one before.
    func compress(_ batch: BatchEncoder) {
        condition.withLock {
            precondition(queued == nil, "a batch is already waiting to be compressed")
            compressed = nil
            queued = batch
            condition.broadcast()
        }
    }

    /// The payload of the batch handed over last, waiting until it is compressed. Kept until
    /// the next batch is handed over, so that a write that failed can ask again.
    func payload() -> [UInt8] {
        condition.withLock {
            while true {
                if let payload = compressed { return payload }
                condition.wait()
            }
        }
    }

    /// Compresses what was handed over, then ends the thread. Idempotent.
    func stop() {
        condition.withLock {
            isStopping = true
            condition.broadcast()
            while !isStopped { condition.wait() }
        }
    }

    private func run(hcLevel: Int32?) {
        condition.lock()
        while true {
            while queued == nil && !isStopping { condition.wait() }
            guard let batch = queued else { break }
            queued = nil
            condition.unlock()
            let payload = Self.payload(of: consume batch, hcLevel: hcLevel)
            condition.lock()
            compressed = payload
            condition.broadcast()
        }
        isStopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Compresses `batch` and releases it before the payload is announced, so that the
    /// appender empties and reuses its buffer without a copy.
    private static func payload(of batch: consuming BatchEncoder, hcLevel: Int32?) -> [UInt8] {
        batch.compressedPayload(hcLevel: hcLevel)
    }
}
