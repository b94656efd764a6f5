import Foundation

/// How large a body a session asks a peer for, so that what one answer decodes to stays
/// within `ReplicationSession.Options.recordsPerFetchMax` and `rawBytesPerFetchMax`
/// whatever the peer sends: about 4 MB of highly compressible batches on the wire used to
/// decode to 1.1 GB on a follower (issue 60, class 6).
///
/// An answer over the bounds is not decoded: it is asked for again with a smaller body,
/// sized from the ratio it showed, until it fits or holds a single batch (which the batch
/// format bounds: 2^20 records, 16 MiB decompressed). The smaller size is kept for the next
/// fetches and doubles back towards `bytesPerFetch` after each answer that fits, so a peer
/// whose batches compress well is not asked twice for every answer.
final class FetchSizing: @unchecked Sendable {
    // @unchecked: `bytes` is read and written under `lock` only.
    private let lock = NSLock()
    private var bytes: Int
    let bytesMax: Int

    init(bytesMax: Int) {
        self.bytesMax = max(1, bytesMax)
        bytes = self.bytesMax
    }

    /// The body size to ask for next.
    var current: Int { lock.withLock { bytes } }

    /// The answer to a fetch of `asked` bytes held `bodyBytes`, announcing `records` and
    /// `rawBytes` in `batches` batches: nil when it may be decoded (the next fetch may then
    /// ask for more), else the smaller body size to ask for it again with.
    func resize(
        asked: Int, bodyBytes: Int, records: Int, rawBytes: Int, batches: Int,
        recordsMax: Int, rawBytesMax: Int
    ) -> Int? {
        let over = max(
            Double(records) / Double(max(1, recordsMax)),
            Double(rawBytes) / Double(max(1, rawBytesMax)))
        guard over > 1, batches > 1, asked > 1 else {
            lock.withLock { bytes = min(bytesMax, max(asked, 1) * 2) }
            return nil
        }
        // Half of what would just fit: the batches an answer ends with vary in ratio.
        let fitting = Int(Double(bodyBytes) / over / 2)
        let smaller = max(1, min(fitting, asked / 2))
        lock.withLock { bytes = smaller }
        return smaller
    }
}
