import Foundation
import Metrics
import Prometheus

extension LogbookNode {
    /// The process's Prometheus registry, with swift-metrics bootstrapped onto it on first
    /// use (once per process, as swift-metrics requires). Call it before opening the
    /// Logbook, so the engine's figures are made against it; pass it to the server as
    /// `ShippingConfiguration.metricsRegistry`.
    public static func bootstrapMetrics() -> PrometheusCollectorRegistry {
        processRegistry.value
    }

    private static let processRegistry = BootstrappedRegistry()
}

/// Bootstraps swift-metrics once, lazily and thread-safely.
private final class BootstrappedRegistry: Sendable {
    let value: PrometheusCollectorRegistry

    init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Sync latencies run from tens of microseconds (page cache) to a second (a busy disk).
        factory.defaultDurationHistogramBuckets = [
            .microseconds(50), .microseconds(200), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        MetricsSystem.bootstrap(factory)
        value = registry
    }
}
