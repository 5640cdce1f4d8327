import Foundation
import LLVSCore
import LLVSTesting
import LLVSTestingGenerators
import PropertyBased
import Testing

/// The harness's own building blocks: histories as data, the seeded generator, and the
/// shrinker `llvs-fuzz` relies on.
@Suite struct FuzzHistoryTests {
    @Test func historiesSurviveTheirJSONForm() async {
        await propertyCheck(count: 1_000, input: FuzzGen.histories()) { history in
            let decoded = try FuzzHistory(json: Data(history.jsonString.utf8))
            #expect(decoded == history)
        }
    }

    @Test func failureRecordsRoundTripThroughFiles() throws {
        var generator = SplitMix64(seed: 7)
        let failure = FuzzFailure(caseSeed: 7, backend: "file", property: .convergence, message: "m",
                                  history: .random(using: &generator))
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("f.json")
        try failure.jsonData().write(to: file)
        #expect(try FuzzFailure(contentsOf: file) == failure)
    }

    @Test func malformedHistoriesAreRejectedWithADecodingError() {
        #expect(throws: DecodingError.self) { try FuzzHistory(json: Data(#"{"replicaCount": 2}"#.utf8)) }
        #expect(throws: DecodingError.self) {
            try FuzzHistory(json: Data(#"{"replicaCount": 1, "finalRule": "newest", "operations": []}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try FuzzHistory(json: Data(#"{"replicaCount": 0, "finalRule": "mostRecentChange", "operations": []}"#.utf8))
        }
    }

    @Test func aSeedGivesTheSameHistoryEveryTime() {
        var first = SplitMix64(seed: 42), second = SplitMix64(seed: 42), other = SplitMix64(seed: 43)
        let history = FuzzHistory.random(using: &first)
        #expect(history == FuzzHistory.random(using: &second))
        #expect(history != FuzzHistory.random(using: &other))
    }

    @Test func theGeneratorMatchesThePublishedSplitMix64Sequence() {
        // The first outputs for seed 0 (Steele, Lea and Flood; also Java's SplittableRandom).
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test func everyOperationKindIsDrawn() {
        var generator = SplitMix64(seed: 1)
        var kinds: Set<String> = []
        for _ in 0..<50 {
            for operation in FuzzHistory.random(using: &generator).operations {
                kinds.insert(String(String(describing: operation).split(separator: " ")[1]))
            }
        }
        #expect(kinds.isSuperset(of: ["write", "hand-made", "merge", "receives", "ladder", "braid"]), "\(kinds)")
    }

    /// A failure that needs a removal of k3 followed later by an exchange: the shrinker
    /// must find a two-operation history that still fails.
    @Test func theShrinkerFindsAMinimalFailingHistory() async {
        func fails(_ history: FuzzHistory) -> Bool {
            guard let removal = history.operations.firstIndex(where: {
                if case let .write(_, _, _, edits) = $0 { return edits.contains { $0.key == 3 && $0.action == 0 } }
                return false
            }) else { return false }
            return history.operations[removal...].contains { if case .exchange = $0 { return true } else { return false } }
        }
        var generator = SplitMix64(seed: 2026)
        var failing = 0
        for _ in 0..<300 {
            let history = FuzzHistory.random(operationCount: 5...40, using: &generator)
            guard fails(history) else { continue }
            failing += 1
            var shrinker = HistoryShrinker(fails: fails)
            let minimal = await shrinker.shrink(history)
            #expect(fails(minimal))
            #expect(minimal.operations.count == 2, "\(minimal)")
            #expect(minimal.replicaCount == 1)
        }
        #expect(failing >= 20, "only \(failing) of 300 histories exercised the shrinker")
    }

    /// A shrinker keeping to a failure does not drift to another: here a history of three
    /// operations or more breaks convergence with one error, and a shorter one with
    /// another. Kept to the first, shrinking stops at three operations with that error;
    /// asked only for the property, it drifts to the other error at one operation.
    @Test func theShrinkerKeepsTheFailureItStartedFrom() async throws {
        func check(_ history: FuzzHistory) -> PropertyViolation? {
            guard !history.operations.isEmpty else { return nil }
            let error: PlantedFailure = history.operations.count >= 3 ? .long : .short(count: history.operations.count)
            return PropertyViolation(.convergence, step: nil, "threw \(error)", errorClass: ErrorClass.of(error))
        }
        var generator = SplitMix64(seed: 36)
        let history = FuzzHistory.random(operationCount: 12...12, using: &generator)
        let failure = try #require(check(history))
        var keeping = HistoryShrinker(keeping: failure) { check($0) }
        let kept = await keeping.shrink(history)
        #expect(kept.operations.count == 3)
        #expect(check(kept)?.hasSameCause(as: failure) == true)
        var drifting = HistoryShrinker { check($0) != nil }
        let drifted = await drifting.shrink(history)
        #expect(drifted.operations.count == 1)
        #expect(check(drifted)?.errorClass == "LLVSTestingTests.PlantedFailure.short")
    }

    @Test func errorClassesNameTheTypeAndCase() {
        #expect(ErrorClass.of(PlantedFailure.long) == "LLVSTestingTests.PlantedFailure.long")
        #expect(ErrorClass.of(PlantedFailure.short(count: 2)) == "LLVSTestingTests.PlantedFailure.short")
        #expect(ErrorClass.of(PlantedStructFailure(reason: "any")) == "LLVSTestingTests.PlantedStructFailure")
    }

    @Test func propertiesAreFoundByNumberOrName() {
        #expect(ConvergenceProperty(name: "2") == .convergence)
        #expect(ConvergenceProperty(name: "6-diffs-consistent") == .diffsConsistent)
        #expect(ConvergenceProperty(name: "8-one-id-one-record") == .oneIdOneRecord)
        #expect(ConvergenceProperty(name: "9") == nil)
    }
}

/// An error that is not an enum: its class is its type.
struct PlantedStructFailure: Error {
    var reason: String
}

/// Errors of two classes, for the shrinker's test.
enum PlantedFailure: Error {
    case long
    case short(count: Int)
}
