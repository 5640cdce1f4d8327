import Foundation
import LLVSCore

/// What a ``StoreCoordinator`` remembers across launches, in `coordinator.json` in its cache
/// directory (canonical JSON, written atomically):
///
/// ```json
/// {"currentVersion":"…","exchangeRestorationState":"<base64>","format":1,
///  "lastSnapshotDate":712345678.9,"versionCountAtLastSnapshot":42}
/// ```
///
/// `lastSnapshotDate` is in seconds since 2001-01-01T00:00:00Z; the optional fields are
/// omitted when unset.
struct CoordinatorState: Codable, Equatable, Sendable {
    /// The format of the file; another value is treated like a corrupt file.
    var format = 1
    /// The version the app reads from and saves on.
    var currentVersion: Version.ID
    /// The exchange's ``LLVSExchange/Exchange/restorationState`` after the last exchange.
    var exchangeRestorationState: Data?
    /// When this coordinator last uploaded (or bootstrapped from) a snapshot.
    var lastSnapshotDate: Date?
    /// The number of versions in the store at that snapshot.
    var versionCountAtLastSnapshot = 0

    init(currentVersion: Version.ID) {
        self.currentVersion = currentVersion
    }

    /// The file's name in the cache directory.
    static let fileName = "coordinator.json"

    /// The outcome of reading the state file.
    enum Loaded {
        /// No file: the first launch with this cache directory.
        case missing
        /// A usable state.
        case state(CoordinatorState)
        /// A file that cannot be used; `reason` says why.
        case unusable(reason: String)
    }

    /// Reads and checks the state file at `url`.
    static func load(from url: URL) -> Loaded {
        guard FileManager.default.fileExists(atPath: url.path) else { return .missing }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .unusable(reason: "\(url.path) cannot be read")
        }
        let state: CoordinatorState
        do {
            state = try CanonicalJSON.decode(CoordinatorState.self, from: data)
        } catch {
            return .unusable(reason: "\(url.path) is not a valid coordinator state: \(error)")
        }
        guard state.format == 1 else {
            return .unusable(reason: "\(url.path) has the unknown format \(state.format)")
        }
        guard state.versionCountAtLastSnapshot >= 0 else {
            return .unusable(reason: "\(url.path) has a negative version count \(state.versionCountAtLastSnapshot)")
        }
        if let date = state.lastSnapshotDate, !date.timeIntervalSinceReferenceDate.isFinite {
            return .unusable(reason: "\(url.path) has a non-finite snapshot date")
        }
        return .state(state)
    }
}
