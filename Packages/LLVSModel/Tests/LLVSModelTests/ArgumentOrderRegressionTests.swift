import Foundation
import LLVSCore
import LLVSStore
import Testing
@_spi(Testing) @testable import LLVSModel

/// The reference LLVS settles a property both sides changed in favour of the merge's first
/// argument. Two replicas that merge the same heads in opposite orders then write different
/// models, so different merge versions, and keep merging forever. Ours orders the sides by
/// recency: the same merge version whichever way round.
@Suite struct ArgumentOrderRegressionTests {
    @Test(arguments: Backend.allCases)
    func theReferencesRuleDivergesWhereOursDoesNot(_ backend: Backend) throws {
        let store = try TestModelStore(backend).store
        let base = try store.save(Contact(name: "Ann", notes: "", age: 30), instanceIdentifier: "c", basedOn: nil)
        let a = try store.save(Contact(name: "Ann A", notes: "", age: 30), instanceIdentifier: "c", basedOn: base.id)
        let b = try store.save(Contact(name: "Ann B", notes: "", age: 31), instanceIdentifier: "c", basedOn: base.id)

        let reference = MergeableArbiter(sideOrder: .firstArgument)
        reference.register(Contact.self)
        let onOneReplica = try store.merge(version: a.id, with: b.id, resolvingWith: reference)
        let onTheOther = try store.merge(version: b.id, with: a.id, resolvingWith: reference)
        #expect(onOneReplica.id != onTheOther.id, "the reference's rule: two merge versions of the same heads")
        #expect(try store.fetchModel(Contact.self, instanceIdentifier: "c", at: onOneReplica.id)?.name
                != store.fetchModel(Contact.self, instanceIdentifier: "c", at: onTheOther.id)?.name)

        let ours = MergeableArbiter()
        ours.register(Contact.self)
        let forward = try store.merge(version: a.id, with: b.id, resolvingWith: ours)
        let backward = try store.merge(version: b.id, with: a.id, resolvingWith: ours)
        #expect(forward.id == backward.id)
        #expect(try store.fetchModel(Contact.self, instanceIdentifier: "c", at: forward.id) == Contact(name: "Ann B", notes: "", age: 31))
    }
}
