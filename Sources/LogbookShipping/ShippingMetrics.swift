import Foundation

/// Counters a node's server keeps, for `/metrics` and the status page.
final class ShippingMetrics: @unchecked Sendable {
    // @unchecked: every counter is guarded by `lock`.
    private let lock = NSLock()
    private(set) var requests = 0
    private(set) var refusals = 0
    private(set) var bytesShipped = 0
    private(set) var batchesShipped = 0
    private(set) var changesMerged = 0

    private func locked(_ body: () -> Void) {
        lock.lock()
        body()
        lock.unlock()
    }

    func request() { locked { requests += 1 } }
    func refused() { locked { refusals += 1 } }
    func merged(_ count: Int) { locked { changesMerged += count } }
    func shipped(bytes: Int, batches: Int) {
        locked {
            bytesShipped += bytes
            batchesShipped += batches
        }
    }

    /// A consistent copy of the counters.
    func snapshot() -> [(name: String, help: String, value: Int)] {
        lock.lock()
        defer { lock.unlock() }
        return [
            ("logbook_requests_total", "Requests with a valid token.", requests),
            ("logbook_refused_total", "Requests refused (token, size, malformed body).", refusals),
            ("logbook_shipped_bytes_total", "Stored batch bytes sent by /log.", bytesShipped),
            ("logbook_shipped_batches_total", "Batches sent by /log.", batchesShipped),
            (
                "logbook_merged_changes_total", "Changes accepted through POST /changes.",
                changesMerged
            ),
        ]
    }
}
