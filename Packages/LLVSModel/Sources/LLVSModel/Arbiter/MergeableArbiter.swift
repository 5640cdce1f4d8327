import Foundation
import LLVSCore
import LLVSMerge
import LLVSSupport

/// A `MergeArbiter` that merges models property by property: the model layer's arbiter.
///
/// ```swift
/// let arbiter = MergeableArbiter()               // other values: MostRecentChangeFavoringArbiter
/// arbiter.register(Contact.self)
/// coordinator.mergeArbiter = arbiter
/// ```
///
/// For each conflicting fork of a registered type (a value identifier `Type/instance`):
/// - **both updated**: the two sides merge against the common ancestor's model (the virtual
///   ancestor's in a criss-cross history) with the type's ``Mergeable/mergeSchema``;
/// - **both inserted** (no common model): by the type's ``Mergeable/insertionRule``;
/// - **removed on one side, updated on the other**: by its ``Mergeable/removalRule``.
///
/// The sides are ordered by recency — the version that stored each side's model, by
/// timestamp then identifier — never by which was merged into which, so replicas merging
/// in either order make the same merge version (SPEC.md sections 9 and 17). A merge equal
/// to one side keeps that side's stored value; otherwise the merge stores the canonical JSON
/// of the result. References to removed models follow ``ModelReference``'s rule. Every other
/// fork goes to ``fallbackArbiter``.
///
/// Each merge makes a ``ModelMergeReport`` (``lastReport``, ``reportHandler``).
///
/// A stored model the arbiter must merge that is not a model of its type, or that a newer
/// model version wrote (which this app must not rewrite), fails the merge with a
/// ``ModelError``: nothing is written, and an app with the newer version can merge it.
public final class MergeableArbiter: MergeArbiter, Sendable {
    /// What the arbiter knows of one registered type.
    struct Registration: Sendable {
        let typeIdentifier: String
        let typeName: String
        let schema: MergeSchema
        let modelVersion: Int
        let removalRule: RemovalRule
        let insertionRule: InsertionRule
        /// The targets of the references a stored model of the type holds.
        let referenceTargets: @Sendable (Data, Value.ID) throws -> Set<Value.ID>
    }

    /// Which side of a merge counts as the newer one.
    @_spi(Testing)
    public enum SideOrder: Sendable {
        /// The side whose version stored its model later (timestamp, then identifier): the rule.
        case recency
        /// The merge's first version, whatever its time: the reference LLVS's "dominant" side,
        /// which makes the result depend on the argument order. Only for tests that show
        /// the harness catches it.
        case firstArgument
    }

    struct State: Sendable {
        var registrations: [String: Registration] = [:]
        var fallbackArbiter: any MergeArbiter & Sendable
        var lastReport: ModelMergeReport?
        var reportHandler: (@Sendable (ModelMergeReport) -> Void)?
    }

    private let state: Locked<State>
    private let sideOrder: SideOrder

    /// An arbiter with no registered types, handing every other value to `fallbackArbiter`.
    public init(fallbackArbiter: any MergeArbiter & Sendable = MostRecentChangeFavoringArbiter()) {
        state = Locked(State(fallbackArbiter: fallbackArbiter))
        sideOrder = .recency
    }

    /// An arbiter that orders the sides by `sideOrder`: `.firstArgument` plants the
    /// reference's order-dependent rule, for tests of the convergence harness.
    @_spi(Testing)
    public init(fallbackArbiter: any MergeArbiter & Sendable = MostRecentChangeFavoringArbiter(), sideOrder: SideOrder) {
        state = Locked(State(fallbackArbiter: fallbackArbiter))
        self.sideOrder = sideOrder
    }

    /// Merges the models of `type` property by property from now on. Registering a type
    /// again replaces its registration.
    public func register<Model: StorableModel & Mergeable>(_ type: Model.Type) {
        let registration = Registration(
            typeIdentifier: Model.modelTypeIdentifier, typeName: String(describing: type), schema: MergeSchemaCache.schema(of: Model.self),
            modelVersion: Model.modelVersion, removalRule: Model.removalRule, insertionRule: Model.insertionRule,
            referenceTargets: { data, valueId in
                do {
                    return ModelReferences.targets(of: try StoredModel.decode(Model.self, from: data, valueId: valueId))
                } catch ModelError.newerModelVersion {
                    // A newer version's references are its own to know: this app neither reads nor merges it.
                    return []
                }
            })
        state.withLock { $0.registrations[Model.modelTypeIdentifier] = registration }
    }

    /// The type identifiers registered, sorted.
    public var registeredTypeIdentifiers: [String] {
        state.withLock { $0.registrations.keys.sorted { compareUTF8($0, $1) < 0 } }
    }

    /// The arbiter for values of unregistered types (`MostRecentChangeFavoringArbiter` by
    /// default). For replicas to converge it must be deterministic and order-independent.
    public var fallbackArbiter: any MergeArbiter & Sendable {
        get { state.withLock { $0.fallbackArbiter } }
        set { state.withLock { $0.fallbackArbiter = newValue } }
    }

    /// The report of the last merge this arbiter resolved that was not a virtual step.
    public var lastReport: ModelMergeReport? {
        state.withLock { $0.lastReport }
    }

    /// Called with the report of every merge this arbiter resolves (virtual steps of a
    /// criss-cross merge included, marked ``ModelMergeReport/isVirtual``), before the merge
    /// version is written. Nil by default.
    public var reportHandler: (@Sendable (ModelMergeReport) -> Void)? {
        get { state.withLock { $0.reportHandler } }
        set { state.withLock { $0.reportHandler = newValue } }
    }

    /// The changes resolving `merge`: registered models merged, the rest by the fallback.
    ///
    /// - Throws: ``ModelError/mergeFailed(valueId:reason:)`` naming the model that could not
    ///   be merged (not a model, a newer model version, a counter out of range, a custom
    ///   rule's error), `MergeArbiterError` when a value the fork names is missing, or what
    ///   the fallback arbiter throws.
    public func changes(toResolve merge: Merge, in store: AnyMergeContext) throws -> [Value.Change] {
        let (registrations, fallback, handler) = state.withLock { ($0.registrations, $0.fallbackArbiter, $0.reportHandler) }
        var resolution = ModelMergeResolution(merge: merge, context: store, registrations: registrations, firstIsAlwaysNewer: sideOrder == .firstArgument)
        var fallbackForks: [Value.ID: Value.Fork] = [:]
        for (valueId, fork) in merge.forksByValueIdentifier where resolution.registration(of: valueId) == nil {
            fallbackForks[valueId] = fork
        }
        try resolution.resolveConflicts()
        try resolution.applyReferenceRule()
        var changes = resolution.changes
        if !fallbackForks.isEmpty {
            var rest = merge
            rest.forksByValueIdentifier = fallbackForks
            changes += try Self.changes(of: fallback, resolving: rest, in: store)
        }
        let report = resolution.report
        state.withLock { if !merge.isVirtual { $0.lastReport = report } }
        handler?(report)
        return changes
    }

    /// Asks `arbiter` through the context type it reads from.
    private static func changes<Arbiter: MergeArbiter>(of arbiter: Arbiter, resolving merge: Merge, in context: AnyMergeContext) throws -> [Value.Change] {
        if let typed = context as? Arbiter.Context { return try arbiter.changes(toResolve: merge, in: typed) }
        if let typed = context.base as? Arbiter.Context { return try arbiter.changes(toResolve: merge, in: typed) }
        throw ModelArbiterError.unsupportedFallbackContext(String(describing: Arbiter.Context.self))
    }
}

/// Why a ``MergeableArbiter`` could not consult its fallback.
public enum ModelArbiterError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The fallback arbiter reads a context type the merge cannot provide.
    case unsupportedFallbackContext(String)

    /// A sentence naming the context type.
    public var description: String {
        switch self {
        case .unsupportedFallbackContext(let type):
            return "The fallback arbiter reads a \(type), which this merge's context is not."
        }
    }
}
