import Foundation
import Prometheus

/// Counters a node's server keeps, for the status page and, with a registry, `/metrics`.
final class ShippingMetrics: @unchecked Sendable {
    // @unchecked: every count is guarded by `lock`; the registry's counters are thread-safe.
    private let lock = NSLock()
    private var counts: [Int]
    private let exported: [Counter]?
    private var waiting = 0
    private let waitingGauge: Gauge?

    /// Name and help of each counter, in `counts` order.
    static let counters: [(name: String, help: String)] = [
        ("logbook_requests_total", "Requests with a valid token."),
        ("logbook_refused_total", "Requests refused (token, size, malformed body, refusal)."),
        ("logbook_shipped_bytes_total", "Stored batch bytes sent by /log."),
        ("logbook_shipped_batches_total", "Batches sent by /log."),
        ("logbook_http_merged_changes_total", "Changes accepted through POST /changes."),
        (
            "logbook_large_answers_refused_total",
            "Large answers refused 503 after waiting for a slot (LargeAnswerSlots)."
        ),
    ]

    init(registry: PrometheusCollectorRegistry?) {
        counts = Array(repeating: 0, count: Self.counters.count)
        exported = registry.map { registry in
            Self.counters.map { registry.makeCounter(descriptor: .init($0.name, help: $0.help)) }
        }
        waitingGauge = registry?.makeGauge(
            descriptor: .init(
                "logbook_log_polls_waiting",
                help: "GET /log long polls waiting for a record to become durable."))
    }

    /// A long poll began (+1) or ended (-1) its wait.
    func pollWaiting(_ delta: Int) {
        let now = lock.withLock {
            waiting += delta
            return waiting
        }
        waitingGauge?.set(Double(now))
    }

    /// The long polls waiting now.
    var pollsWaiting: Int { lock.withLock { waiting } }

    private func add(_ amount: Int, to index: Int) {
        lock.withLock { counts[index] += amount }
        exported?[index].increment(by: Int64(amount))
    }

    func request() { add(1, to: 0) }
    func refused() { add(1, to: 1) }
    func shipped(bytes: Int, batches: Int) {
        add(bytes, to: 2)
        add(batches, to: 3)
    }
    func merged(_ count: Int) { add(count, to: 4) }
    func refusedLargeAnswer() { add(1, to: 5) }

    /// A consistent copy of the counts.
    func snapshot() -> [(name: String, help: String, value: Int)] {
        let values = lock.withLock { counts }
        return zip(Self.counters, values).map { ($0.name, $0.help, $1) }
    }
}

extension MetricNameDescriptor {
    /// A descriptor for an already-complete metric name (units included in it).
    init(_ name: String, help: String) {
        self.init(metricName: name, unitName: "", helpText: help)
    }
}
