import Foundation
import LLVSCore
import LLVSMerge

/// The work of one ``MergeableArbiter`` call: the registered models' conflicts resolved,
/// the reference rule applied, and the report.
struct ModelMergeResolution {
    let merge: Merge
    let context: AnyMergeContext
    let registrations: [String: MergeableArbiter.Registration]
    /// The planted fault of ``MergeableArbiter/SideOrder/firstArgument``.
    let firstIsAlwaysNewer: Bool
    private(set) var changes: [Value.Change] = []
    private(set) var report: ModelMergeReport

    init(merge: Merge, context: AnyMergeContext, registrations: [String: MergeableArbiter.Registration], firstIsAlwaysNewer: Bool = false) {
        self.merge = merge
        self.context = context
        self.registrations = registrations
        self.firstIsAlwaysNewer = firstIsAlwaysNewer
        self.report = ModelMergeReport(firstVersionId: merge.versions.first.id, secondVersionId: merge.versions.second.id,
                                       isVirtual: merge.isVirtual)
    }

    /// The registration of the type `valueId` belongs to, or nil.
    func registration(of valueId: Value.ID) -> MergeableArbiter.Registration? {
        guard let type = modelTypeIdentifier(from: valueId), let registration = registrations[type],
              registration.typeIdentifier.utf8.elementsEqual(type.utf8) else { return nil }
        return registration
    }

    // MARK: Conflicts

    /// Resolves every conflicting fork of a registered type, in identifier order.
    mutating func resolveConflicts() throws {
        for (valueId, fork) in merge.conflictingForks {
            guard let registration = registration(of: valueId) else { continue }
            do {
                try resolve(valueId, fork, registration)
            } catch let error as ModelError {
                throw ModelError.mergeFailed(valueId: valueId, reason: error)
            }
        }
    }

    private mutating func resolve(_ valueId: Value.ID, _ fork: Value.Fork, _ registration: MergeableArbiter.Registration) throws {
        let type = registration.typeIdentifier
        switch fork {
        case .removedAndUpdated(let removedOn):
            let updated = merge.version(on: removedOn.opposite)
            if registration.removalRule == .updateWins {
                changes.append(.preserve(try requiredReference(valueId, at: updated.id)))
                report.models.append(.init(valueId: valueId, typeIdentifier: type, fork: fork,
                                           outcome: removedOn == .first ? .keptSecond : .keptFirst, properties: []))
            } else {
                changes.append(.remove(valueId))
                report.models.append(.init(valueId: valueId, typeIdentifier: type, fork: fork, outcome: .removed, properties: []))
            }
        case .twiceInserted, .twiceUpdated:
            let first = try requiredValue(valueId, at: merge.versions.first.id)
            let second = try requiredValue(valueId, at: merge.versions.second.id)
            let newerIsFirst = try isNewer(first, than: second)
            var base: Value?
            if case .twiceUpdated = fork, let ancestor = merge.ancestorVersionId {
                base = try context.value(valueId, at: ancestor)
            }
            if case .twiceInserted = fork, registration.insertionRule == .newerWins {
                let newer = newerIsFirst ? first : second
                changes.append(.preserve(try reference(of: newer)))
                report.models.append(.init(valueId: valueId, typeIdentifier: type, fork: fork,
                                           outcome: newerIsFirst ? .keptFirst : .keptSecond, properties: []))
                return
            }
            try mergeModels(valueId, fork, registration, base: base, first: first, second: second, newerIsFirst: newerIsFirst)
        case .inserted, .updated, .removed, .twiceRemoved:
            break
        }
    }

    /// Merges two stored models against `base` and records the change and the report entry.
    private mutating func mergeModels(_ valueId: Value.ID, _ fork: Value.Fork, _ registration: MergeableArbiter.Registration, base: Value?,
                                      first: Value, second: Value, newerIsFirst: Bool) throws {
        let firstObject = try StoredModel.parse(first.data, valueId: valueId)
        let secondObject = try StoredModel.parse(second.data, valueId: valueId)
        let baseObject = try base.map { try StoredModel.parse($0.data, valueId: valueId) }
        var run = PropertyMergeRun(newerIsFirst: newerIsFirst)
        let merged = try ModelMergeEngine.merge(base: baseObject, first: firstObject, second: secondObject, newerIsFirst: newerIsFirst,
                                                schema: registration.schema, modelVersion: registration.modelVersion, valueId: valueId, run: &run)
        let outcome: ModelMergeReport.Outcome
        switch merged.keeps {
        case .first?:
            changes.append(.preserve(try reference(of: first)))
            outcome = .keptFirst
        case .second?:
            changes.append(.preserve(try reference(of: second)))
            outcome = .keptSecond
        case nil:
            changes.append(.update(Value(id: valueId, data: merged.model.canonicalData)))
            outcome = .merged
        }
        report.models.append(.init(valueId: valueId, typeIdentifier: registration.typeIdentifier, fork: fork, outcome: outcome,
                                   properties: run.properties))
    }

    // MARK: References

    /// Keeps models one side removed that a model changed on the other side newly refers to
    /// (their type's rule `updateWins`), and lists the references left dangling (`removalWins`).
    mutating func applyReferenceRule() throws {
        // Models this merge removes, by the side that removed them.
        var removedOn: [Value.Fork.Branch: [Value.ID: MergeableArbiter.Registration]] = [:]
        let decided = Set(changes.map(\.valueId))
        for (valueId, fork) in merge.forksByValueIdentifier {
            guard let registration = registration(of: valueId) else { continue }
            switch fork {
            case .removed(let branch) where !decided.contains(valueId):
                removedOn[branch, default: [:]][valueId] = registration
            case .removedAndUpdated(let branch) where registration.removalRule == .removalWins:
                removedOn[branch, default: [:]][valueId] = registration
            default:
                break
            }
        }
        guard !removedOn.isEmpty else { return }
        var restored: Set<Value.ID> = []
        var dangling: [ModelMergeReport.DanglingReference] = []
        for branch in [Value.Fork.Branch.first, .second] {
            guard let removed = removedOn[branch], !removed.isEmpty else { continue }
            let keeping = merge.version(on: branch.opposite)
            for (referring, targets) in try newReferences(madeOn: branch.opposite) {
                for target in targets.sorted() {
                    guard let registration = removed[target] else { continue }
                    if registration.removalRule == .updateWins {
                        if restored.insert(target).inserted {
                            changes.append(.preserve(try requiredReference(target, at: keeping.id)))
                        }
                    } else {
                        dangling.append(.init(referringValueId: referring, targetValueId: target))
                    }
                }
            }
        }
        report.restoredReferenceTargets = restored.sorted()
        report.danglingReferences = dangling.sorted { ($0.referringValueId, $0.targetValueId) < ($1.referringValueId, $1.targetValueId) }
    }

    /// Per registered model `branch` changed (inserted, updated, or both sides did), the
    /// targets its version on `branch` refers to that its base version did not.
    private func newReferences(madeOn branch: Value.Fork.Branch) throws -> [(Value.ID, Set<Value.ID>)] {
        let version = merge.version(on: branch).id
        var result: [(Value.ID, Set<Value.ID>)] = []
        for (valueId, fork) in merge.forksByValueIdentifier.sorted(by: { $0.key < $1.key }) {
            let changedOnBranch: Bool
            switch fork {
            case .inserted(let side), .updated(let side): changedOnBranch = side == branch
            case .twiceInserted, .twiceUpdated: changedOnBranch = true
            case .removedAndUpdated(let removedOn): changedOnBranch = removedOn != branch
            case .removed, .twiceRemoved: changedOnBranch = false
            }
            guard changedOnBranch, let registration = registration(of: valueId),
                  let value = try context.value(valueId, at: version) else { continue }
            do {
                var targets = try registration.referenceTargets(value.data, valueId)
                if let ancestor = merge.ancestorVersionId, let base = try context.value(valueId, at: ancestor) {
                    targets.subtract(try registration.referenceTargets(base.data, valueId))
                }
                if !targets.isEmpty { result.append((valueId, targets)) }
            } catch let error as ModelError {
                throw ModelError.mergeFailed(valueId: valueId, reason: error)
            }
        }
        return result
    }

    // MARK: Reading

    private func requiredValue(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value {
        guard let value = try context.value(valueId, at: versionId) else { throw MergeArbiterError.missingValue(valueId, at: versionId) }
        return value
    }

    private func requiredReference(_ valueId: Value.ID, at versionId: Version.ID) throws -> Value.Reference {
        guard let reference = try context.valueReference(valueId, at: versionId) else { throw MergeArbiterError.missingValue(valueId, at: versionId) }
        return reference
    }

    private func reference(of value: Value) throws -> Value.Reference {
        guard let reference = value.reference else { throw MergeArbiterError.missingValue(value.id, at: merge.versions.first.id) }
        return reference
    }

    /// Whether `a`'s stored version is more recent than `b`'s: later timestamp, then greater
    /// identifier (SPEC.md section 17, "recency").
    private func isNewer(_ a: Value, than b: Value) throws -> Bool {
        if firstIsAlwaysNewer { return true }
        let aVersion = try storedVersion(of: a), bVersion = try storedVersion(of: b)
        return aVersion.timestamp != bVersion.timestamp ? aVersion.timestamp > bVersion.timestamp : aVersion.id > bVersion.id
    }

    private func storedVersion(of value: Value) throws -> Version {
        guard let id = value.storedVersionId else { throw MergeArbiterError.missingValue(value.id, at: merge.versions.first.id) }
        guard let version = try context.version(identifiedBy: id) else { throw MergeArbiterError.missingVersion(id) }
        return version
    }
}

/// Merging one model's JSON objects (SPEC.md section 17, "Model merges").
enum ModelMergeEngine {
    /// The merged model and, when it equals one side's stored object, that side (whose
    /// reference the merge keeps).
    ///
    /// - Throws: ``ModelError/newerModelVersion(valueId:stored:supported:)`` when a side or
    ///   the base carries a `$version` above `modelVersion`, ``ModelError/invalidModelVersion(valueId:found:)``,
    ///   or what a strategy throws.
    static func merge(base: JSONObject?, first: JSONObject, second: JSONObject, newerIsFirst: Bool, schema: MergeSchema, modelVersion: Int,
                      valueId: Value.ID, run: inout PropertyMergeRun) throws -> (model: JSONValue, keeps: Value.Fork.Branch?) {
        var versions: [Int] = []
        for object in [first, second] + (base.map { [$0] } ?? []) {
            let version = try StoredModel.version(of: object, valueId: valueId)
            guard version <= modelVersion else { throw ModelError.newerModelVersion(valueId: valueId, stored: version, supported: modelVersion) }
            versions.append(version)
        }
        let (newer, older) = newerIsFirst ? (first, second) : (second, first)
        var merged = try mergeProperties(base: base, newer: newer, older: older, schema: schema, run: &run)
        let version = max(versions[0], versions[1])
        merged[StoredModel.versionKey] = version > 1 ? .number(.integer(Int64(version))) : nil
        let result = JSONValue.object(merged)
        let bytes = result.canonicalData
        if bytes == JSONValue.object(newer).canonicalData { return (result, newerIsFirst ? .first : .second) }
        if bytes == JSONValue.object(older).canonicalData { return (result, newerIsFirst ? .second : .first) }
        return (result, nil)
    }

    /// The objects merged, `$version` aside: key by key, or whole by the type's own merge.
    private static func mergeProperties(base: JSONObject?, newer: JSONObject, older: JSONObject, schema: MergeSchema,
                                        run: inout PropertyMergeRun) throws -> JSONObject {
        if schema.typedMerge != nil {
            func strip(_ object: JSONObject) -> JSONValue {
                var object = object
                object[StoredModel.versionKey] = nil
                return .object(object)
            }
            let merged = try run.merge(base.map(strip), strip(newer), strip(older), strategy: .schema(schema), path: "")
            guard case .object(let object)? = merged else { throw ModelError.undecodable(type: "model", reason: "the typed merge did not give an object") }
            return object
        }
        return try run.mergeObject(base, newer, older, schema: schema, path: "", excluded: [ByteKey(StoredModel.versionKey)])
    }
}
