import Foundation
import LLVSCore
import PropertyBased
import Testing
@testable import LLVSModel

/// The laws every strategy keeps (SPEC.md section 17), each over 1,000 random cases: either
/// argument order gives the same result, merging a value with itself changes nothing, a
/// side equal to the base yields the other side; and each strategy's own rule.
@Suite struct StrategyPropertyTests {
    static let strategies: [(String, MergeStrategy, Generator<JSONValue, AnySequence<Any>>)] = [
        ("threeWay", .threeWay, StrategyGen.numberOrText.eraseToAny()),
        ("counter", .counter, StrategyGen.number.eraseToAny()),
        ("set", .set, StrategyGen.array.eraseToAny()),
        ("text", .text, StrategyGen.text.eraseToAny()),
        ("list", .list(idKey: "id", element: .threeWay, removal: .updateWins), StrategyGen.list.eraseToAny()),
        ("listRemovalWins", .list(idKey: "id", element: .threeWay, removal: .removalWins), StrategyGen.list.eraseToAny()),
        ("dictionary", .dictionary(value: .counter, removal: .updateWins), StrategyGen.dictionary.eraseToAny()),
        ("max", .max, StrategyGen.numberOrText.eraseToAny()),
        ("min", .min, StrategyGen.number.eraseToAny()),
        ("multiValue", .multiValue, StrategyGen.nonEmptyArray.eraseToAny()),
        ("custom", .custom(CustomMerge(LongerText.self)), StrategyGen.text.eraseToAny()),
    ]

    static let cases = ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init) ?? 1_000

    @Test(arguments: strategies.indices)
    func eitherArgumentOrderGivesTheSameResult(_ index: Int) async {
        let (name, strategy, values) = Self.strategies[index]
        let input = zip(values.optional(valueRate: 0.8), values.optional(valueRate: 0.9), values.optional(valueRate: 0.9),
                        StrategyGen.time, StrategyGen.time, StrategyGen.id, StrategyGen.id)
        await propertyCheck(count: Self.cases, input: input) { base, a, b, aTime, bTime, aId, bId in
            let first = Side(value: a, time: aTime, id: aId), second = Side(value: b, time: bTime, id: aId == bId ? aId + "x" : bId)
            let forward = try mergeProperty(strategy, base: base, first, second)
            let backward = try mergeProperty(strategy, base: base, second, first)
            #expect(forward == backward, "\(name): base \(base?.description ?? "absent"), \(first) and \(second)")
        }
    }

    /// A value merged with itself — unchanged on both sides, or the same change on both (a
    /// counter's aside: it adds the two increments) — is that value.
    @Test(arguments: strategies.indices)
    func mergingAValueWithItselfChangesNothing(_ index: Int) async {
        let (name, strategy, values) = Self.strategies[index]
        await propertyCheck(count: Self.cases, input: zip(values.optional(valueRate: 0.8), values)) { base, value in
            let unchanged = try mergeProperty(strategy, base: value, Side(value: value, time: 1, id: "A"), Side(value: value, time: 2, id: "B"))
            #expect(unchanged == value, "\(name)")
            guard !strategy.countsEqualChanges else { return }
            let sameChange = try mergeProperty(strategy, base: base, Side(value: value, time: 1, id: "A"), Side(value: value, time: 2, id: "B"))
            #expect(sameChange == value, "\(name)")
        }
    }

    @Test(arguments: strategies.indices)
    func aSideEqualToTheBaseYieldsTheOtherSide(_ index: Int) async {
        let (name, strategy, values) = Self.strategies[index]
        await propertyCheck(count: Self.cases, input: zip(values.optional(valueRate: 0.8), values.optional(valueRate: 0.9), Gen.bool)) { base, other, baseIsNewer in
            let unchanged = Side(value: base, time: baseIsNewer ? 2 : 1, id: "A"), changed = Side(value: other, time: baseIsNewer ? 1 : 2, id: "B")
            let forward = try mergeProperty(strategy, base: base, unchanged, changed)
            let backward = try mergeProperty(strategy, base: base, changed, unchanged)
            #expect(forward == other && backward == other, "\(name)")
        }
    }

    @Test func countersAddBothSidesIncrements() async {
        let input = zip(Gen.int(in: -1_000...1_000), Gen.int(in: -50...50), Gen.int(in: -50...50), Gen.bool)
        await propertyCheck(count: Self.cases, input: input) { base, first, second, baseAbsent in
            let start = baseAbsent ? 0 : base
            let merged = try mergeProperty(.counter, base: baseAbsent ? nil : int(base),
                                           Side(value: int(start + first), time: 1, id: "A"), Side(value: int(start + second), time: 2, id: "B"))
            #expect(merged == int(start + first + second))
        }
    }

    @Test func countersAddTheSameIncrementMadeOnBothSides() throws {
        let merged = try mergeProperty(.counter, base: int(5), Side(value: int(6), time: 1, id: "A"), Side(value: int(6), time: 2, id: "B"))
        #expect(merged == int(7))
        let inDictionary = try mergeProperty(.dictionary(value: .counter, removal: .updateWins), base: json(#"{"a":5}"#),
                                             Side(value: json(#"{"a":6}"#), time: 1, id: "A"), Side(value: json(#"{"a":6}"#), time: 2, id: "B"))
        #expect(inDictionary == json(#"{"a":7}"#))
    }

    @Test func countersOfDoublesAddToo() throws {
        let merged = try mergeProperty(.counter, base: json("1.5"), Side(value: json("2.5"), time: 1, id: "A"), Side(value: json("4"), time: 2, id: "B"))
        #expect(merged == json("5"))
    }

    @Test func aCounterBeyondSixtyFourBitsFailsTheMergeWithATypedError() {
        #expect(throws: ModelError.counterOutOfRange(path: "p")) {
            try mergeProperty(.counter, base: int(0), Side(value: .number(.integer(.max)), time: 1, id: "A"), Side(value: int(1), time: 2, id: "B"))
        }
        // Operands near the limits whose sum is in range are fine (exact intermediate).
        let merged = try? mergeProperty(.counter, base: .number(.integer(.max)), Side(value: .number(.integer(.max)), time: 1, id: "A"),
                                        Side(value: .number(.integer(.max)), time: 2, id: "B"))
        #expect(merged == .number(.integer(.max)))
    }

    /// Every combination of an element's presence in the base and the two sides.
    @Test(arguments: 0..<8)
    func theSetTruthTable(_ combination: Int) throws {
        let inBase = combination & 1 != 0, inNewer = combination & 2 != 0, inOlder = combination & 4 != 0
        // Another element, changed on both sides, makes both sides differ from the base.
        func side(_ holds: Bool, _ marker: Int) -> JSONValue { .array((holds ? [int(1)] : []) + [int(marker)]) }
        let merged = try mergeProperty(.set, base: .array(inBase ? [int(1)] : []), Side(value: side(inNewer, 7), time: 2, id: "N"),
                                       Side(value: side(inOlder, 8), time: 1, id: "O"))
        let expected = (inNewer && inOlder) || (inNewer && !inBase) || (inOlder && !inBase)
        #expect(merged?.arrayValue?.contains(int(1)) == expected, "base \(inBase), newer \(inNewer), older \(inOlder)")
        #expect(merged?.arrayValue?.contains(int(7)) == true && merged?.arrayValue?.contains(int(8)) == true)
    }

    @Test func setsAreWrittenSortedByTheirCanonicalBytes() throws {
        let merged = try mergeProperty(.set, base: json("[]"), Side(value: json(#"["b",10,"a"]"#), time: 2, id: "N"),
                                       Side(value: json(#"[2,"a"]"#), time: 1, id: "O"))
        #expect(merged == json(#"["a","b",10,2]"#))
    }

    /// Two edits separated by unchanged text both survive, whichever side is newer.
    @Test func nonOverlappingTextEditsBothSurvive() async {
        let chunk = Gen.int(in: 0...4).array(of: 0...6).map { String($0.map { Array("abc \n")[$0] }) }
        let input = zip(chunk, chunk, chunk, chunk, chunk, Gen.int(in: 0...2).map { Array("xyz")[$0] }, Gen.bool)
        await propertyCheck(count: Self.cases, input: input) { before, middle, after, firstEdit, secondEdit, separator, firstIsNewer in
            // base = before · S · middle · S · after, with S a separator no edit or chunk holds.
            let s = String(separator)
            let first = before + s + firstEdit + s + after, second = before + s + middle + s + secondEdit
            let base = before + s + middle + s + after
            let merged = try mergeProperty(.text, base: .string(base), Side(value: .string(first), time: firstIsNewer ? 2 : 1, id: "A"),
                                           Side(value: .string(second), time: firstIsNewer ? 1 : 2, id: "B"))
            #expect(merged == .string(before + s + firstEdit + s + secondEdit), "base \(base.debugDescription)")
        }
    }

    @Test func overlappingTextEditsTakeTheNewerSidesAndSayItIsAConflict() throws {
        let newer = "The quick red fox", older = "The quick blue fox"
        let merged = try mergeProperty(.text, base: .string("The quick brown fox"), Side(value: .string(newer), time: 2, id: "A"),
                                       Side(value: .string(older), time: 1, id: "B"))
        #expect(merged == .string(newer))
        let report = try reportOf(.text, base: .string("The quick brown fox"), newer: .string(newer), older: .string(older))
        #expect(report.map(\.isConflict) == [true])
        // Both inserting at one place keeps the older insertion, then the newer.
        let both = try mergeProperty(.text, base: .string("ab"), Side(value: .string("aXb"), time: 2, id: "A"), Side(value: .string("aYb"), time: 1, id: "B"))
        #expect(both == .string("aYXb"))
        let edits = try mergeProperty(.text, base: .string("The quick brown fox"), Side(value: .string("The slow brown fox"), time: 2, id: "A"),
                                      Side(value: .string("The quick brown cat"), time: 1, id: "B"))
        #expect(edits == .string("The slow brown cat"))
    }

    @Test func maxAndMinKeepTheExtremeWhenBothChanged() throws {
        #expect(try mergeProperty(.max, base: int(5), Side(value: int(3), time: 2, id: "A"), Side(value: int(9), time: 1, id: "B")) == int(9))
        #expect(try mergeProperty(.min, base: int(5), Side(value: int(3), time: 1, id: "A"), Side(value: int(9), time: 2, id: "B")) == int(3))
        #expect(try mergeProperty(.max, base: json(#""m""#), Side(value: json(#""z""#), time: 1, id: "A"), Side(value: json(#""é""#), time: 2, id: "B"))
                == json(#""é""#), "strings compare as UTF-8 bytes")
        // Only one side changed: its value, even when smaller (a side equal to the base yields the other).
        #expect(try mergeProperty(.max, base: int(5), Side(value: int(3), time: 1, id: "A"), Side(value: int(5), time: 2, id: "B")) == int(3))
    }

    @Test func multiValuesKeepEveryConcurrentValueAndNeverEmpty() throws {
        let both = try mergeProperty(.multiValue, base: json("[1]"), Side(value: json("[2]"), time: 1, id: "A"), Side(value: json("[3]"), time: 2, id: "B"))
        #expect(both == json("[2,3]"))
        // Two sides that each settled {2, 3} differently keep both settlements.
        let settled = try mergeProperty(.multiValue, base: json("[2,3]"), Side(value: json("[2]"), time: 1, id: "A"), Side(value: json("[3]"), time: 2, id: "B"))
        #expect(settled == json("[2,3]"))
        let report = try reportOf(.multiValue, base: json("[1]"), newer: json("[2]"), older: json("[3]"))
        #expect(report.first?.resolution == .keptBoth && report.first?.isConflict == true)
    }

    @Test func aRemovalAgainstAChangeKeepsTheChange() throws {
        for strategy in Self.strategies.map(\.1) {
            let merged = try mergeProperty(strategy, base: json("[1]"), Side(value: nil, time: 2, id: "A"), Side(value: json("[1,2]"), time: 1, id: "B"))
            #expect(merged == json("[1,2]"), "\(strategy.name)")
        }
    }

    enum LongerText: PropertyMerger {
        static func merge(base: String?, newer: String, older: String) -> String {
            older.unicodeScalars.count > newer.unicodeScalars.count ? older : newer
        }
    }
}
