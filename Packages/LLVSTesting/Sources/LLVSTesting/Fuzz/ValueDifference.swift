import Foundation
import LLVSCore

/// A readable account of how two dictionaries of values differ: the keys only one side
/// has and the keys whose data or storing version differ. Failure messages use it so a
/// mismatch names the values at fault instead of printing two whole dictionaries.
public struct ValueDifference: CustomStringConvertible, Sendable {
    /// The values expected (the model's).
    public var expected: [Value.ID: ReferenceModel.StoredValue]
    /// The values found (the replica's).
    public var actual: [Value.ID: ReferenceModel.StoredValue]

    /// Creates the difference of two dictionaries.
    public init(expected: [Value.ID: ReferenceModel.StoredValue], actual: [Value.ID: ReferenceModel.StoredValue]) {
        self.expected = expected
        self.actual = actual
    }

    public var description: String {
        let keys = Set(expected.keys).union(actual.keys).filter { expected[$0] != actual[$0] }.sorted()
        guard !keys.isEmpty else { return "values equal" }
        return keys.map { "\($0): expected \(Self.describe(expected[$0])), found \(Self.describe(actual[$0]))" }
            .joined(separator: "; ")
    }

    static func describe(_ value: ReferenceModel.StoredValue?) -> String {
        guard let value else { return "nothing" }
        return "\"\(String(decoding: value.data, as: UTF8.self))\" stored by \(value.storedBy)"
    }
}
