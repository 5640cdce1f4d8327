import Foundation
import LLVSTesting
import Testing
@testable import LLVSStore

/// A custom arbiter written as the LLVS README prints one (`in store: Store`) that settles
/// the keys it cares about and passes the rest off to a built-in arbiter, calling it with
/// the store it was given.
private final class DelegatingArbiter<Standard: MergeArbiter>: MergeArbiter where Standard.Context == AnyMergeContext {
    let standard: Standard

    init(_ standard: Standard) {
        self.standard = standard
    }

    func changes(toResolve merge: Merge, in store: Store) throws -> [Value.Change] {
        var custom = merge, standardPart = merge
        custom.forksByValueIdentifier = merge.forksByValueIdentifier.filter { $0.key.rawValue.hasPrefix("mine.") }
        standardPart.forksByValueIdentifier = merge.forksByValueIdentifier.filter { !$0.key.rawValue.hasPrefix("mine.") }
        var changes: [Value.Change] = []
        for (valueId, fork) in custom.conflictingForks where fork != .twiceRemoved {
            changes.append(.update(Value(id: valueId, data: Data("settled by hand".utf8))))
        }
        return try changes + standard.changes(toResolve: standardPart, in: store)
    }
}

@Suite struct ArbiterCompositionTests {
    /// Two branches from one base that conflict on every kind of fork, on a `mine.` key and
    /// on a plain key alike.
    private func conflictingBranches(in store: Store, data: (String) throws -> Data) throws -> (Version, Version) {
        let keys = ["mine.a", "mine.b", "a", "b"]
        let base = try store.makeVersion(basedOnPredecessor: nil, inserting: keys.map { Value(idString: $0, data: try data("0")) })
        let first = try store.makeVersion(basedOnPredecessor: base.id,
                                          updating: [Value(idString: "mine.a", data: try data("1")), Value(idString: "a", data: try data("1"))],
                                          removing: ["mine.b", "b"])
        let second = try store.makeVersion(basedOnPredecessor: base.id,
                                           updating: keys.map { Value(idString: $0, data: try data("2")) })
        return (first, second)
    }

    @Test(arguments: Backend.allCases)
    func everyPlainBuiltInArbiterWorksFromInsideAStoreArbiter(_ backend: Backend) throws {
        let builtIns: [(String, any MergeArbiter)] = [
            ("most recent change", DelegatingArbiter(MostRecentChangeFavoringArbiter())),
            ("most recent branch", DelegatingArbiter(MostRecentBranchFavoringArbiter())),
            ("first branch", DelegatingArbiter(BranchFavoringArbiter(favoring: .first))),
            ("second branch", DelegatingArbiter(BranchFavoringArbiter(favoring: .second))),
        ]
        let direct: [String: any MergeArbiter] = [
            "most recent change": MostRecentChangeFavoringArbiter(), "most recent branch": MostRecentBranchFavoringArbiter(),
            "first branch": BranchFavoringArbiter(favoring: .first), "second branch": BranchFavoringArbiter(favoring: .second),
        ]
        for (name, arbiter) in builtIns {
            let storeHome = try TestStore(backend)
            defer { withExtendedLifetime(storeHome) {} }
            let store = storeHome.store
            let (first, second) = try conflictingBranches(in: store) { Data($0.utf8) }
            let composed = try store.merge(version: first.id, with: second.id, resolvingWith: arbiter)
            let texts = try store.texts(at: composed.id)
            #expect(texts["mine.a"] == "settled by hand", "\(name)")
            #expect(texts["mine.b"] == "settled by hand", "\(name)")
            let referenceHome = try TestStore(backend)
            defer { withExtendedLifetime(referenceHome) {} }
            let reference = referenceHome.store
            let (referenceFirst, referenceSecond) = try conflictingBranches(in: reference) { Data($0.utf8) }
            let builtIn = try #require(direct[name])
            let plain = try reference.merge(version: referenceFirst.id, with: referenceSecond.id, resolvingWith: builtIn)
            let expected = try reference.texts(at: plain.id)
            #expect(texts["a"] == expected["a"] && texts["b"] == expected["b"], "\(name): the plain keys resolve as the built-in arbiter alone resolves them")
        }
    }

    @Test(arguments: Backend.allCases)
    func theRegisterArbiterWorksFromInsideAStoreArbiter(_ backend: Backend) throws {
        let storeHome = try TestStore(backend)
        defer { withExtendedLifetime(storeHome) {} }
        let store = storeHome.store
        let author = UUID()
        let (first, second) = try conflictingBranches(in: store) { text in
            var register = MultiValueRegister()
            _ = register.assign(.text(text), actor: "replica-\(text)", authorId: author, timestamp: Double(text) ?? 0)
            return try register.encoded()
        }
        let merged = try store.merge(version: first.id, with: second.id, resolvingWith: DelegatingArbiter(MultiValueRegisterArbiter()))
        let joined = try MultiValueRegister(decoding: try #require(try store.value(idString: "a", at: merged.id)).data, valueId: "a")
        #expect(Set(joined.entries.map(\.payload)) == [.text("1"), .text("2")], "both concurrent writes are kept")
        #expect(try store.text("mine.a", at: merged.id) == "settled by hand")
    }
}
