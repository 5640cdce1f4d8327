import Foundation
import LLVSCore
import LLVSTesting
import PropertyBased
@testable import LLVSModel

/// One side of a property merge: its value and the version that stored it (the recency
/// that decides which side is newer).
struct Side: Sendable, CustomStringConvertible {
    var value: JSONValue?
    var time: Double
    var id: String

    var description: String { "\(value?.description ?? "absent")@\(id)t\(time)" }
}

/// Merges a property as the arbiter does: newer side by (time, identifier).
func mergeProperty(_ strategy: MergeStrategy, base: JSONValue?, _ first: Side, _ second: Side) throws -> JSONValue? {
    let firstIsNewer = first.time != second.time ? first.time > second.time : compareUTF8(first.id, second.id) > 0
    var run = PropertyMergeRun(newerIsFirst: firstIsNewer)
    return try run.merge(base, firstIsNewer ? first.value : second.value, firstIsNewer ? second.value : first.value,
                         strategy: strategy, path: "p")
}

/// The report entries of one property merge.
func reportOf(_ strategy: MergeStrategy, base: JSONValue?, newer: JSONValue?, older: JSONValue?) throws -> [ModelMergeReport.Property] {
    var run = PropertyMergeRun(newerIsFirst: true)
    _ = try run.merge(base, newer, older, strategy: strategy, path: "p")
    return run.properties
}

func json(_ text: String) -> JSONValue {
    // Test literals are valid JSON.
    (try? JSONValue(parsing: Data(text.utf8))) ?? .null
}

func int(_ value: Int) -> JSONValue { .number(.integer(Int64(value))) }

/// Random values of the kind each strategy merges, over small domains so sides often agree,
/// equal the base, or collide.
enum StrategyGen {
    static let small = Gen.int(in: 0...5)
    static let number = small.map { JSONValue.number(.integer(Int64($0))) }
    static let numberOrText = zip(Gen.bool, small).map { isText, n in isText ? JSONValue.string("s\(n)") : .number(.integer(Int64(n))) }
    static let array = small.array(of: 0...5).map { JSONValue.array($0.map { .number(.integer(Int64($0))) }) }
    static let nonEmptyArray = small.array(of: 1...4).map { JSONValue.array($0.map { .number(.integer(Int64($0))) }) }
    static let text = Gen.int(in: 0...4).array(of: 0...10).map { JSONValue.string(String($0.map { Array("ab c\n")[$0] })) }
    /// Lists of objects with unique ids 0…5 in random order, each with a small payload.
    static let list = zip(Gen.int(in: 0...5).set(ofAtMost: 0...6), Gen.int(in: 0...1_000)).map { ids, seed -> JSONValue in
        var order = Array(ids).sorted()
        var generator = SplitMix64(seed: UInt64(seed))
        order.shuffle(using: &generator)
        return .array(order.map { id in .object(JSONObject([("id", int(id)), ("v", int(Int(generator.next() % 3)))])) })
    }
    static let dictionary = zip(Gen.int(in: 0...3).map { ["a", "b", "c", "d"][$0] }, small).array(of: 0...4).map { pairs -> JSONValue in
        .object(JSONObject(pairs.map { ($0.0, int($0.1)) }))
    }
    static let time = Gen.int(in: 0...3).map(Double.init)
    static let id = Gen.int(in: 1...3).map { "V\($0)" }
}
