extension Value {
    /// How one value identifier differs between two versions being merged, relative to
    /// their common ancestor (or to an empty ancestor in a two-way merge).
    ///
    /// A fork records which branch changed the value and how. Forks where both branches
    /// changed the value differently are *conflicting* and must be resolved by a
    /// `MergeArbiter`; the others are carried into the merge automatically.
    ///
    /// Codable form: `{"kind": name}` plus `"branch": "first" | "second"` for the cases
    /// that carry a branch, e.g. `{"kind": "removedAndUpdated", "branch": "second"}`.
    public enum Fork: Hashable, Codable, Sendable {
        /// One side of a merge: the first version passed to the merge, or the second.
        ///
        /// Codable form: the JSON string `"first"` or `"second"`.
        public enum Branch: String, Hashable, Codable, Sendable, CaseIterable {
            /// The first version of the merge.
            case first
            /// The second version of the merge.
            case second

            /// The other branch.
            public var opposite: Branch {
                self == .first ? .second : .first
            }
        }

        /// Inserted on one branch only.
        case inserted(Branch)
        /// Inserted on both branches (with different stored data).
        case twiceInserted
        /// Removed on one branch only.
        case removed(Branch)
        /// Removed on both branches.
        case twiceRemoved
        /// Updated on one branch only.
        case updated(Branch)
        /// Updated on both branches.
        case twiceUpdated
        /// Removed on one branch and updated on the other.
        case removedAndUpdated(removedOn: Branch)

        /// True for forks where both branches changed the value in incompatible ways:
        /// `twiceInserted`, `twiceUpdated` and `removedAndUpdated`.
        public var isConflicting: Bool {
            switch self {
            case .inserted, .removed, .updated, .twiceRemoved:
                return false
            case .twiceInserted, .twiceUpdated, .removedAndUpdated:
                return true
            }
        }

        /// The branch the fork names, for the cases that carry one (for
        /// `removedAndUpdated`, the branch that removed the value).
        public var branch: Branch? {
            switch self {
            case .inserted(let branch), .removed(let branch), .updated(let branch),
                 .removedAndUpdated(removedOn: let branch):
                return branch
            case .twiceInserted, .twiceRemoved, .twiceUpdated:
                return nil
            }
        }

        /// The name of the case, as used in the Codable form.
        public var kind: String {
            switch self {
            case .inserted: return "inserted"
            case .twiceInserted: return "twiceInserted"
            case .removed: return "removed"
            case .twiceRemoved: return "twiceRemoved"
            case .updated: return "updated"
            case .twiceUpdated: return "twiceUpdated"
            case .removedAndUpdated: return "removedAndUpdated"
            }
        }

        private enum CodingKeys: String, CodingKey {
            case kind, branch
        }

        /// Decodes a fork from its `{"kind", "branch"}` form.
        ///
        /// - Throws: `DecodingError.dataCorrupted` naming the unknown kind, or a missing or
        ///   superfluous branch.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let kind = try container.decode(String.self, forKey: .kind)
            let branch = try container.decodeIfPresent(Branch.self, forKey: .branch)
            func corrupted(_ message: String) -> DecodingError {
                .dataCorrupted(.init(codingPath: container.codingPath, debugDescription: message))
            }
            func requireBranch() throws -> Branch {
                guard let branch else { throw corrupted("Fork kind '\(kind)' needs a branch.") }
                return branch
            }
            func forbidBranch(_ fork: Fork) throws -> Fork {
                guard branch == nil else { throw corrupted("Fork kind '\(kind)' takes no branch.") }
                return fork
            }
            switch kind {
            case "inserted": self = .inserted(try requireBranch())
            case "removed": self = .removed(try requireBranch())
            case "updated": self = .updated(try requireBranch())
            case "removedAndUpdated": self = .removedAndUpdated(removedOn: try requireBranch())
            case "twiceInserted": self = try forbidBranch(.twiceInserted)
            case "twiceRemoved": self = try forbidBranch(.twiceRemoved)
            case "twiceUpdated": self = try forbidBranch(.twiceUpdated)
            default: throw corrupted("Unknown fork kind '\(kind)'.")
            }
        }

        /// Encodes the fork in its `{"kind", "branch"}` form.
        ///
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(kind, forKey: .kind)
            try container.encodeIfPresent(branch, forKey: .branch)
        }
    }
}
