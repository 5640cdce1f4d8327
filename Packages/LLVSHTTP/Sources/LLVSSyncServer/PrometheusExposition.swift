import Prometheus

/// A server's Prometheus registry: the factory its ``SyncMetrics`` record through, and the
/// text exposition format `GET /metrics` answers with. Each server has its own, so several
/// servers in one process (tests) do not mix their figures, and nothing is bootstrapped
/// process-wide.
struct PrometheusExposition: Sendable {
    private let registry = PrometheusCollectorRegistry()

    /// The metrics of this registry.
    func makeMetrics() -> SyncMetrics {
        SyncMetrics(factory: PrometheusMetricsFactory(registry: registry))
    }

    /// Every metric, in the Prometheus text format (version 0.0.4).
    func render() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// The content type of ``render()``.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
}
