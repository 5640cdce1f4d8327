import LLVSCore

/// What ``Store/verify(progress:)`` found: how much it checked and every problem, each
/// naming the version (and, when one value is at fault, the value) whose check failed.
///
/// Codable as a JSON object `{"versionsChecked", "valuesRead", "problems": [{"versionId"?,
/// "valueId"?, "reason"}]}` (absent ids are omitted), for tools that print reports.
public struct StoreVerificationReport: Hashable, Codable, Sendable {
    /// One thing found wrong.
    public struct Problem: Hashable, Codable, Sendable, CustomStringConvertible {
        /// The version whose check failed, or nil for a problem of the whole store (the
        /// version log could not be read).
        public var versionId: Version.ID?
        /// The value at fault, when the problem concerns one value.
        public var valueId: Value.ID?
        /// A sentence naming what is wrong: the description of the underlying error, or of
        /// the inconsistency found.
        public var reason: String

        /// Creates a problem.
        public init(versionId: Version.ID? = nil, valueId: Value.ID? = nil, reason: String) {
            self.versionId = versionId
            self.valueId = valueId
            self.reason = reason
        }

        /// `version X, value Y: reason`, leaving out the ids that are nil.
        public var description: String {
            let place = [versionId.map { "version \($0)" }, valueId.map { "value \($0)" }].compactMap { $0 }
            return place.isEmpty ? reason : "\(place.joined(separator: ", ")): \(reason)"
        }
    }

    /// The number of versions whose map and values were checked.
    public var versionsChecked: Int
    /// The number of value data records read and checked (each distinct one once).
    public var valuesRead: Int
    /// Everything found wrong, in the order found: versions predecessors first, then the
    /// heads' full maps.
    public var problems: [Problem]

    /// True when no problem was found.
    public var isIntact: Bool { problems.isEmpty }

    /// Creates a report.
    public init(versionsChecked: Int = 0, valuesRead: Int = 0, problems: [Problem] = []) {
        self.versionsChecked = versionsChecked
        self.valuesRead = valuesRead
        self.problems = problems
    }
}
