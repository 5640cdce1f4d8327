import Foundation
import LLVSCore
import LLVSModel
import LLVSProjection
import LLVSStore
import LLVSStoreTesting
import LLVSTesting
import PropertyBased
import Testing

/// Random sequences of saves, merges, pulls, reverts and checkouts: after each move of the
/// current version, the incrementally updated projection equals one built from nothing at
/// that version. On every backend.
@Suite struct ProjectionPropertyTests {
    /// One step: (kind 0–5: save here / save on the other replica / pull / merge / revert /
    /// checkout, note 0–4, word 0–3, choice 0–99).
    static let steps = zip(Gen.int(in: 0...5), Gen.int(in: 0...4), Gen.int(in: 0...3), Gen.int(in: 0...99)).array(of: 1...14)
    static let words = ["alpha", "beta", "gamma", "delta"]

    static func cases(_ count: Int) -> Int {
        ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
    }

    /// A save on `base` of `replica`: note `index` written (or removed when `choice` is a
    /// multiple of 5), with `word` in its title and body.
    static func save(on replica: StoreReplica, basedOn base: Version.ID?, index: Int, word: Int, choice: Int) throws -> Version.ID {
        var batch = ModelBatch()
        let instance = "n\(index)"
        if choice % 5 == 0, let base, try replica.store.fetchModel(Note.self, instanceIdentifier: instance, at: base) != nil {
            try batch.remove(Note.self, instanceIdentifier: instance)
        } else {
            var note = try base.flatMap { try replica.store.fetchModel(Note.self, instanceIdentifier: instance, at: $0) } ?? Note()
            note.title = "\(words[word]) \(choice)"
            note.body += " \(words[(word + 1) % 4])"
            note.stars += choice % 3
            note.category = choice % 2 == 0 ? "work" : "home"
            note.tags.insert(words[word])
            note.updated = Date(timeIntervalSinceReferenceDate: Double(choice))
            note.author = choice % 4 == 0 ? ModelReference("p\(choice % 3)") : nil
            try batch.save(note, instanceIdentifier: instance)
            if choice % 7 == 0 { try batch.save(Person(name: words[word]), instanceIdentifier: "p\(choice % 3)") }
        }
        return try replica.store.save(batch, basedOn: base).id
    }

    func play(_ steps: [(Int, Int, Int, Int)], backend: StoreReplica.Backend) throws {
        let here = try StoreReplica(backend: backend), there = try StoreReplica(backend: backend)
        let directory = try TemporaryDirectory(prefix: "llvs-projection-property")
        let schema = try testSchema()
        let projection = try ModelProjection(path: directory.url.appendingPathComponent("p.sqlite").path, store: here.store, schema: schema)
        let arbiter = MergeableArbiter()
        arbiter.register(Note.self)
        arbiter.register(Person.self)
        var current = try Self.save(on: here, basedOn: nil, index: 0, word: 0, choice: 1)
        var thereHead = try Self.save(on: there, basedOn: nil, index: 1, word: 1, choice: 2)
        try projection.update(to: current)
        for (kind, index, word, choice) in steps {
            switch kind {
            case 0:
                current = try Self.save(on: here, basedOn: current, index: index, word: word, choice: choice)
            case 1:
                thereHead = try Self.save(on: there, basedOn: thereHead, index: index, word: word, choice: choice)
            case 2:
                try here.receive(from: there, upTo: nil)
                if choice % 2 == 0 { current = thereHead }
            case 3:
                let heads = try here.headIdentifiers().filter { $0 != current }.sorted { $0.rawValue < $1.rawValue }
                if !heads.isEmpty {
                    current = try here.store.merge(version: current, with: heads[choice % heads.count], resolvingWith: arbiter).id
                }
            case 4:
                if let predecessor = here.store.version(identifiedBy: current)?.predecessors?.idOfFirst { current = predecessor }
            default:
                let versions = try here.versionsInTopologicalOrder()
                current = versions[choice % versions.count].id
            }
            try projection.update(to: current)
            let incremental = try dump(projection)
            let fresh = try freshDump(of: here.store, at: current, schema: schema)
            #expect(incremental == fresh, "step \(kind) at \(current) on \(backend)")
            if incremental != fresh { return }
        }
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func incrementalProjectionsEqualFreshOnes(_ backend: StoreReplica.Backend) async {
        await propertyCheck(count: Self.cases(15), input: Self.steps) { steps in
            await failingOnThrow { try play(steps, backend: backend) }
        }
    }
}
