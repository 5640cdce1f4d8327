import Foundation
import LLVSCore

/// What a model merge did: per model, and per property of each, which side changed it,
/// which strategy applied and whether it was a true conflict. A ``MergeableArbiter`` makes
/// one for each merge it resolves.
public struct ModelMergeReport: Sendable, Hashable {
    /// The versions merged, in the order the merge was asked for.
    public var firstVersionId: Version.ID
    /// The version merged into the first.
    public var secondVersionId: Version.ID
    /// True for a step making the virtual ancestor of a criss-cross merge (never stored).
    public var isVirtual: Bool
    /// The models the arbiter resolved (those changed on both sides), by value identifier.
    public var models: [Model]
    /// Models one side removed that the merge kept because a model changed on the other side
    /// newly refers to them (``ModelReference``), in identifier order.
    public var restoredReferenceTargets: [Value.ID]
    /// References the merge leaves pointing at models it removed, because their type's
    /// ``RemovalRule`` is `removalWins`: (the referring model, the target), in order.
    public var danglingReferences: [DanglingReference]

    /// Creates a report.
    public init(firstVersionId: Version.ID, secondVersionId: Version.ID, isVirtual: Bool = false, models: [Model] = [],
                restoredReferenceTargets: [Value.ID] = [], danglingReferences: [DanglingReference] = []) {
        self.firstVersionId = firstVersionId
        self.secondVersionId = secondVersionId
        self.isVirtual = isVirtual
        self.models = models
        self.restoredReferenceTargets = restoredReferenceTargets
        self.danglingReferences = danglingReferences
    }

    /// The entry of one model, or nil.
    public func model(_ valueId: Value.ID) -> Model? {
        models.first { $0.valueId == valueId }
    }

    /// True when some property of some model was a true conflict.
    public var hasConflicts: Bool {
        models.contains { $0.hasConflicts }
    }

    /// One model both sides changed.
    public struct Model: Sendable, Hashable {
        /// Its value identifier (`Type/instance`).
        public var valueId: Value.ID
        /// Its type identifier.
        public var typeIdentifier: String
        /// How the two sides changed it.
        public var fork: Value.Fork
        /// What the merge kept.
        public var outcome: Outcome
        /// The properties at least one side changed, by path (`title`, `address.city`,
        /// `items["a1"].done`), in the order they were merged.
        public var properties: [Property]

        /// Creates an entry.
        public init(valueId: Value.ID, typeIdentifier: String, fork: Value.Fork, outcome: Outcome, properties: [Property]) {
            self.valueId = valueId
            self.typeIdentifier = typeIdentifier
            self.fork = fork
            self.outcome = outcome
            self.properties = properties
        }

        /// True when some property was a true conflict, or one side removed the model while
        /// the other changed it.
        public var hasConflicts: Bool {
            properties.contains(where: \.isConflict) || { if case .removedAndUpdated = fork { return true } else { return false } }()
        }

        /// The entry of one property path, or nil.
        public func property(_ path: String) -> Property? {
            properties.first { $0.path == path }
        }
    }

    /// What a merge kept of a model.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// A model merged from both sides (new data, or a side's data when the merge equals it).
        case merged
        /// The first version's model as it was (the newer, or the only update).
        case keptFirst
        /// The second version's model as it was.
        case keptSecond
        /// The model is removed (its type's rule is `removalWins`).
        case removed
    }

    /// One property of a merged model.
    public struct Property: Sendable, Hashable {
        /// Where it is: its key, with nested keys after dots, list elements by identifier and
        /// dictionary entries by key in brackets (as canonical JSON).
        public var path: String
        /// The strategy that applied (``MergeStrategy/name``).
        public var strategy: String
        /// Which side changed it.
        public var changedOn: ChangedOn
        /// True when both sides changed it differently and one side's change was dropped (or,
        /// for a multi-value, both kept for the app to settle).
        public var isConflict: Bool
        /// What the merge took.
        public var resolution: Resolution

        /// Creates an entry.
        public init(path: String, strategy: String, changedOn: ChangedOn, isConflict: Bool, resolution: Resolution) {
            self.path = path
            self.strategy = strategy
            self.changedOn = changedOn
            self.isConflict = isConflict
            self.resolution = resolution
        }
    }

    /// Which side of a merge changed a property.
    public enum ChangedOn: String, Sendable, Hashable, Codable {
        /// The first version only.
        case first
        /// The second version only.
        case second
        /// Both.
        case both
    }

    /// What a merge took for a property.
    public enum Resolution: String, Sendable, Hashable, Codable {
        /// The first version's value.
        case tookFirst
        /// The second version's value.
        case tookSecond
        /// Both sides made the same change.
        case same
        /// A value combining both sides (counter, set, text, list, dictionary, custom).
        case merged
        /// Both sides' values, kept for the app to choose (multi-value).
        case keptBoth
        /// The property or element is removed.
        case removed
    }

    /// A reference left pointing at a removed model.
    public struct DanglingReference: Sendable, Hashable {
        /// The model holding the reference.
        public var referringValueId: Value.ID
        /// The removed model it names.
        public var targetValueId: Value.ID

        /// Creates an entry.
        public init(referringValueId: Value.ID, targetValueId: Value.ID) {
            self.referringValueId = referringValueId
            self.targetValueId = targetValueId
        }
    }
}
