import LLVSCore

extension History {
    /// Why a history operation was refused. Each case names the versions involved.
    /// A refused ``History/add(_:)`` or ``History/add(contentsOf:)`` leaves the history
    /// unchanged.
    public enum Error: Swift.Error, Hashable, CustomStringConvertible {
        /// A version with this identifier is already in the history (or twice in one batch).
        case duplicateVersion(Version.ID)
        /// `predecessor`, named by `version`, is neither in the history nor in the batch.
        case missingPredecessor(Version.ID, of: Version.ID)
        /// `version` names the same predecessor twice.
        case identicalPredecessors(Version.ID)
        /// `version` has a timestamp that is NaN or infinite, which cannot be ordered.
        case nonFiniteTimestamp(Version.ID)
        /// The batch's predecessor links form a cycle through these versions (at most ten
        /// are named, in byte order).
        case cycle(through: [Version.ID])
        /// No version with this identifier is in the history.
        case unknownVersion(Version.ID)

        /// A sentence naming the problem and the versions.
        public var description: String {
            switch self {
            case .duplicateVersion(let id):
                return "Version \(id) is already in the history."
            case let .missingPredecessor(predecessor, version):
                return "Version \(version) names predecessor \(predecessor), which is not in the history."
            case .identicalPredecessors(let id):
                return "Version \(id) names the same predecessor twice."
            case .nonFiniteTimestamp(let id):
                return "Version \(id) has a timestamp that is not a finite number."
            case .cycle(let ids):
                return "Predecessor links form a cycle through versions \(ids.map(\.rawValue).joined(separator: ", "))."
            case .unknownVersion(let id):
                return "Version \(id) is not in the history."
            }
        }
    }
}
