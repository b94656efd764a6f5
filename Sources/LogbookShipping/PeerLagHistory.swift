import Foundation
import Logbook

/// Each peer's lag behind this node over the last minutes, for the status page's chart: a
/// sample every few seconds (`LogbookNode` takes them) of how many offsets of our log each
/// peer has not acknowledged yet. Bounded: the oldest sample goes when `capacity` is full.
public final class PeerLagHistory: @unchecked Sendable {
    // @unchecked: every field is read and written under `lock`.

    /// One moment: when, and each peer's lag (offsets) then, by peer name.
    public struct Sample: Sendable, Equatable {
        /// When it was taken.
        public var time: Date
        /// Each acknowledging peer's lag then, in offsets of our log.
        public var lags: [String: UInt64]

        /// A sample taken at `time`.
        public init(time: Date, lags: [String: UInt64]) {
            self.time = time
            self.lags = lags
        }
    }

    /// How many samples are kept (120 at 5 s: ten minutes).
    public let capacity: Int
    private let lock = NSLock()
    private var samples: [Sample] = []

    /// An empty history keeping at most `capacity` samples (at least one).
    public init(capacity: Int = 120) { self.capacity = max(1, capacity) }

    /// Records each acknowledging peer's lag behind `logEnd` now: the offsets from its
    /// acknowledgement to our log's end (0 when it has everything).
    public func record(ledger: [String: PeerLedger.Entry], logEnd: UInt64, at time: Date = Date()) {
        var lags: [String: UInt64] = [:]
        for (peer, entry) in ledger where entry.removed != true {
            guard let acknowledged = entry.acknowledged else { continue }
            lags[peer] = logEnd > acknowledged ? logEnd - acknowledged : 0
        }
        lock.withLock {
            samples.append(Sample(time: time, lags: lags))
            if samples.count > capacity { samples.removeFirst(samples.count - capacity) }
        }
    }

    /// The samples kept, oldest first.
    public var recorded: [Sample] { lock.withLock { samples } }
}
