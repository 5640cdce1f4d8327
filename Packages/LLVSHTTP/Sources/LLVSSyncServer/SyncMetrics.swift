import Metrics

/// The metrics of one ``SyncServer``, recorded through swift-metrics into the server's own
/// Prometheus registry (``PrometheusExposition``) and served at `GET /metrics`. Every name
/// starts with `llvs_`; the list is in Tools/llvs-server/README.md, "Metrics".
final class SyncMetrics: Sendable {
    private let factory: any MetricsFactory
    /// Pushes that stored their versions (`llvs_pushes_total`).
    let pushes: Counter
    /// Versions added by pushes (`llvs_versions_added_total`).
    let versionsAdded: Counter
    /// Blobs stored in blind stores (`llvs_blobs_added_total`).
    let blobsAdded: Counter
    /// Body bytes of successful pushes (`llvs_pushed_bytes_total`).
    let pushedBytes: Counter
    /// Body bytes of every request (`llvs_request_bytes_total`).
    let requestBytes: Counter
    /// Body bytes of every answer (`llvs_response_bytes_total`).
    let responseBytes: Counter
    /// Connections open now (`llvs_open_connections`).
    let openConnections: Gauge
    /// Request body bytes reserved now (`llvs_body_bytes_in_flight`).
    let bodyBytesInFlight: Gauge

    init(factory: any MetricsFactory) {
        self.factory = factory
        pushes = Counter(label: "llvs_pushes_total", factory: factory)
        versionsAdded = Counter(label: "llvs_versions_added_total", factory: factory)
        blobsAdded = Counter(label: "llvs_blobs_added_total", factory: factory)
        pushedBytes = Counter(label: "llvs_pushed_bytes_total", factory: factory)
        requestBytes = Counter(label: "llvs_request_bytes_total", factory: factory)
        responseBytes = Counter(label: "llvs_response_bytes_total", factory: factory)
        openConnections = Gauge(label: "llvs_open_connections", factory: factory)
        bodyBytesInFlight = Gauge(label: "llvs_body_bytes_in_flight", factory: factory)
    }

    /// Counts an answer with an error status (`llvs_refusals_total{status}`).
    func refused(status: Int) {
        Counter(label: "llvs_refusals_total", dimensions: [("status", "\(status)")], factory: factory).increment()
    }

    /// Counts a connection closed by a timeout (`llvs_timeouts_total{timeout}`: header or request).
    func timedOut(_ timeout: String) {
        Counter(label: "llvs_timeouts_total", dimensions: [("timeout", timeout)], factory: factory).increment()
    }

    /// Records how long a request took to answer (`llvs_request_duration_seconds{route}`).
    func recordLatency(_ duration: Duration, route: String) {
        let (seconds, attoseconds) = duration.components
        Timer(label: "llvs_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
