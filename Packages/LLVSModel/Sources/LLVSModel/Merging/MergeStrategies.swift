import Foundation
import LLVSCore

/// The value strategies of SPEC.md section 17 that need no recursion. Each returns nil when
/// the values are not of the kind it merges (the property then merges three-way).
enum MergeStrategies {
    /// `newer + older − base` (base 0 when absent): exact in integers, in doubles when one
    /// of them is one.
    ///
    /// - Throws: ``ModelError/counterOutOfRange(path:)`` when an integer result (or an
    ///   operand) is beyond `Int64`, or a double result is not finite.
    static func counter(_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue, path: String) throws(ModelError) -> JSONValue? {
        guard case .number(let n) = newer, case .number(let o) = older else { return nil }
        let b: JSONNumber
        switch base {
        case nil: b = .integer(0)
        case .number(let number)?: b = number
        default: return nil
        }
        switch (n, o, b) {
        case let (.integer(n), .integer(o), .integer(b)):
            let sum = Int128(n) + Int128(o) - Int128(b)
            guard let result = Int64(exactly: sum) else { throw .counterOutOfRange(path: path) }
            return .number(.integer(result))
        default:
            for operand in [n, o, b] { if case .largeInteger = operand { throw .counterOutOfRange(path: path) } }
            let result = (n.doubleValue + o.doubleValue) - b.doubleValue
            guard result.isFinite else { throw .counterOutOfRange(path: path) }
            return .number(.double(result))
        }
    }

    /// Elements both sides hold, or one side added (not in the base), sorted by their
    /// canonical bytes; nil unless both sides (and the base, if any) are arrays.
    static func set(_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue) -> JSONValue? {
        guard case .array(let n) = newer, case .array(let o) = older else { return nil }
        let b: [JSONValue]
        switch base {
        case nil: b = []
        case .array(let elements)?: b = elements
        default: return nil
        }
        let baseSet = Set(b), newerSet = Set(n), olderSet = Set(o)
        let kept = newerSet.intersection(olderSet).union(newerSet.subtracting(baseSet)).union(olderSet.subtracting(baseSet))
        return .array(sortedCanonically(kept))
    }

    /// ``set(_:_:_:)``, except that a result without elements is both sides' elements
    /// instead: sides that each settled a conflict differently keep both settlements.
    static func multiValue(_ base: JSONValue?, _ newer: JSONValue, _ older: JSONValue) -> JSONValue? {
        guard let merged = set(base, newer, older), case .array(let elements) = merged else { return nil }
        guard elements.isEmpty, case .array(let n) = newer, case .array(let o) = older else { return merged }
        return .array(sortedCanonically(Set(n).union(o)))
    }

    /// Values in the order of their canonical bytes.
    static func sortedCanonically(_ values: some Collection<JSONValue>) -> [JSONValue] {
        values.map { (CanonicalJSONWriter.bytes(of: $0), $0) }
            .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            .map(\.1)
    }

    /// Whether `a` is greater than `b`: numbers by value (exactly for integers, as doubles
    /// when one is a double), strings by UTF-8 bytes; nil when they are not two numbers or
    /// two strings, or are equal.
    static func isGreater(_ a: JSONValue, than b: JSONValue) -> Bool? {
        switch (a, b) {
        case let (.string(x), .string(y)):
            let order = compareUTF8(x, y)
            return order == 0 ? nil : order > 0
        case let (.number(x), .number(y)):
            let order = compare(x, y)
            return order == 0 ? nil : order > 0
        default:
            return nil
        }
    }

    /// The numeric order of two numbers.
    static func compare(_ x: JSONNumber, _ y: JSONNumber) -> Int {
        switch (integerDigits(x), integerDigits(y)) {
        case let (a?, b?):
            // Exact: sign, then length, then digits.
            let aNegative = a.hasPrefix("-"), bNegative = b.hasPrefix("-")
            if aNegative != bNegative { return aNegative ? -1 : 1 }
            let aDigits = aNegative ? String(a.dropFirst()) : a, bDigits = bNegative ? String(b.dropFirst()) : b
            var order = aDigits.count != bDigits.count ? (aDigits.count < bDigits.count ? -1 : 1) : compareUTF8(aDigits, bDigits).signum()
            if aNegative { order = -order }
            return order
        default:
            let a = x.doubleValue, b = y.doubleValue
            return a < b ? -1 : (a > b ? 1 : 0)
        }
    }

    private static func integerDigits(_ number: JSONNumber) -> String? {
        switch number {
        case .integer(let value): return String(value)
        case .largeInteger(let digits): return digits
        case .double: return nil
        }
    }
}
