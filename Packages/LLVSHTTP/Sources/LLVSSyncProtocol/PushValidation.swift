import LLVSCore

/// Checks on pushed versions that need no storage: identifier lengths (versions,
/// predecessors, values and the storing versions changes name), repeats within one
/// push, and a value changed twice by one version (which every store refuses to add, so a
/// server that kept it would fail every client's pull). Both the server and its storage
/// backends use it. Identifiers are compared byte for byte (SPEC.md section 1).
public enum PushValidation {
    /// The first problem with these versions, as an error code and a message, or nil.
    public static func problem(in versions: [VersionChangesMessage]) -> (code: SyncErrorCode, message: String)? {
        var seen: [Version.ID: Int] = [:]
        for (index, message) in versions.enumerated() {
            let version = message.version
            if let problem = identifierProblem(version.id.rawValue, what: "version identifier") { return problem }
            for predecessor in version.predecessorIds {
                if let problem = identifierProblem(predecessor.rawValue, what: "predecessor of \(version.id)") { return problem }
            }
            var changed = Set<Value.ID>()
            for change in message.valueChanges {
                if let problem = identifierProblem(change.valueId.rawValue, what: "value identifier in \(version.id)") { return problem }
                if let storing = storingVersion(named: change),
                   let problem = identifierProblem(storing.rawValue, what: "storing version named in \(version.id)") { return problem }
                guard changed.insert(change.valueId).inserted else {
                    return (.invalidContent, "version \(version.id.rawValue.debugDescription) changes value \(change.valueId.rawValue.debugDescription) more than once")
                }
            }
            if let earlier = seen.updateValue(index, forKey: version.id) {
                return (.invalidContent, "version \(version.id) appears twice in the push (entries \(earlier) and \(index))")
            }
        }
        return nil
    }

    /// The version a change names as storing its data, if it names one: a version
    /// identifier like any other, held to the same limits.
    static func storingVersion(named change: Value.Change) -> Version.ID? {
        switch change {
        case .insert(let value), .update(let value): return value.storedVersionId
        case .preserve(let reference): return reference.storedVersionId
        case .remove, .preserveRemoval: return nil
        }
    }

    /// A problem when `identifier` is empty or longer than the limit.
    public static func identifierProblem(_ identifier: String, what: String) -> (code: SyncErrorCode, message: String)? {
        let length = identifier.utf8.count
        if length == 0 { return (.limitExceeded, "empty \(what)") }
        if length > SyncLimits.maximumIdentifierByteCount {
            return (.limitExceeded, "\(what) is \(length) bytes long; the limit is \(SyncLimits.maximumIdentifierByteCount)")
        }
        return nil
    }
}
