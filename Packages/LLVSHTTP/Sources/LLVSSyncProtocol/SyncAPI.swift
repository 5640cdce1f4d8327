import Foundation

/// The paths of the sync server's HTTP API (version 1), relative to the server's base URL.
///
/// Every store path begins with `/v1/stores/{store}`; a client is given that prefix as
/// the *store URL* (for example `http://127.0.0.1:7420/v1/stores/notes`). The API is
/// specified in SPEC.md section 15 and the LLVSHTTP README.
public enum SyncAPI {
    /// `GET`: the server is up and its storage answers (no token needed).
    public static let healthPath = "/health"
    /// `GET`: the server takes requests: its storage answers (its tables made at start) and
    /// it is not shutting down; `503` otherwise, so that a load balancer sends requests
    /// elsewhere (no token needed).
    public static let readyPath = "/ready"
    /// `GET`: the server's metrics in Prometheus text format (a token may be needed; see
    /// the llvs-server README, "Metrics").
    public static let metricsPath = "/metrics"
    /// The prefix of every store's paths.
    public static let storesPath = "/v1/stores"

    /// Store-relative paths, appended to a store URL.
    public enum StorePath {
        /// `GET ?after=CURSOR&limit=N`: the identifiers of the versions stored after a cursor.
        public static let versions = "versions"
        /// `POST {"versionIds":[…]}`: version records by identifier.
        public static let fetchVersions = "versions/fetch"
        /// `POST {"versionIds":[…]}`: the changes each version made.
        public static let fetchChanges = "changes/fetch"
        /// `POST {"versions":[{"version":…,"valueChanges":[…]}]}`: an atomic push.
        public static let push = "push"
        /// `GET ?after=CURSOR&timeout=SECONDS`: a long poll that answers once versions are
        /// stored after the cursor, or when the timeout passes.
        public static let events = "events"
        /// `GET`: the newest snapshot's manifest; `PUT`: publish a manifest.
        public static let latestSnapshot = "snapshots/latest"

        /// `GET` or `PUT`: one chunk of a snapshot (raw bytes).
        public static func snapshotChunk(snapshotId: String, index: Int) -> String {
            "snapshots/\(snapshotId)/chunks/\(index)"
        }
    }

    /// The header carrying the access token: `Authorization: Bearer TOKEN`.
    public static let authorizationHeader = "Authorization"
}
