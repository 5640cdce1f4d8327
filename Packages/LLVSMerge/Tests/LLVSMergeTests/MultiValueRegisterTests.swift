import Foundation
import LLVSCore
import PropertyBased
import Testing
@testable import LLVSMerge

/// The register's write and join rules, its stored form, and the arbiter that joins
/// registers in a merge.
@Suite struct MultiValueRegisterTests {
    static let alice = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
    static let bob = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!

    @Test func aWriteSupersedesWhatItHasSeen() {
        var register = MultiValueRegister()
        register.assign(.text("one"), actor: "a", authorId: Self.alice, timestamp: 1)
        register.assign(.text("two"), actor: "a", authorId: Self.alice, timestamp: 2)
        #expect(register.entries.map(\.payload) == [.text("two")])
        #expect(register.context == ["a": 2])
    }

    @Test func concurrentWritesAreBothKeptAndALaterWriteSupersedesBoth() {
        var a = MultiValueRegister(), b = MultiValueRegister()
        a.assign(.text("from a"), actor: "a", authorId: Self.alice, timestamp: 1)
        b.assign(.json("{}"), actor: "b", authorId: Self.bob, timestamp: 2)
        var joined = a.merged(with: b)
        #expect(Set(joined.entries.map(\.payload)) == [.text("from a"), .json("{}")])
        #expect(joined.entries.map(\.authorId) == [Self.alice, Self.bob], "entries sorted by dot")
        joined.assign(.blob(Data([1])), actor: "c", authorId: Self.alice, timestamp: 3)
        // The later write has seen both: joining with either old side keeps only it.
        #expect(joined.merged(with: a).entries.map(\.payload) == [.blob(Data([1]))])
        #expect(b.merged(with: joined).entries.map(\.payload) == [.blob(Data([1]))])
    }

    @Test func aDeleteLosesToAConcurrentWrite() {
        var base = MultiValueRegister()
        base.assign(.text("v"), actor: "a", authorId: Self.alice, timestamp: 1)
        var deleted = base, updated = base
        deleted.assign(.tombstone, actor: "a", authorId: Self.alice, timestamp: 2)
        updated.assign(.text("w"), actor: "b", authorId: Self.bob, timestamp: 3)
        let joined = deleted.merged(with: updated)
        #expect(joined.liveEntries.map(\.payload) == [.text("w")])
        #expect(joined.entries.count == 2, "the tombstone is kept as an entry")
    }

    @Test func storedFormRoundTripsCanonically() throws {
        var a = MultiValueRegister(), b = MultiValueRegister()
        a.assign(.blob(Data([0, 255])), actor: "z", authorId: Self.alice, timestamp: 1.5)
        b.assign(.tombstone, actor: "m", authorId: Self.bob, timestamp: 2)
        let joined = a.merged(with: b)
        let data = try joined.encoded()
        #expect(String(decoding: data, as: UTF8.self).hasPrefix(#"{"context":{"m":1,"z":1},"entries":[{"actor":"m""#))
        let decoded = try MultiValueRegister(decoding: data, valueId: "k")
        #expect(decoded == joined)
        #expect(try decoded.encoded() == data)
        #expect(try b.merged(with: a).encoded() == data, "the join is the same bytes either way round")
    }

    @Test func malformedDataIsNamed() {
        for bad in [#"{}"#, #"{"context":{},"entries":[{"actor":"a","counter":1,"author":"00000000-0000-0000-0000-00000000000A","timestamp":1,"kind":"text","text":"x"}]}"#,
                    #"{"context":{"a":1},"entries":[{"actor":"a","counter":1,"author":"00000000-0000-0000-0000-00000000000A","timestamp":1,"kind":"video"}]}"#] {
            #expect {
                try MultiValueRegister(decoding: Data(bad.utf8), valueId: "key")
            } throws: { error in
                guard case .undecodable(let id, _)? = error as? MultiValueRegisterError else { return false }
                return id == "key"
            }
        }
    }

    // MARK: Lattice properties

    /// Random histories of three replicas: each step writes on one replica (a payload or a
    /// delete) or merges one replica into another.
    static let steps = zip(Gen.int(in: 0...2), Gen.int(in: 0...2), Gen.int(in: 0...4)).array(of: 0...24)

    static func replicas(_ steps: [(Int, Int, Int)]) -> [MultiValueRegister] {
        var replicas = Array(repeating: MultiValueRegister(), count: 3)
        for (time, (replica, other, action)) in steps.enumerated() {
            if action == 4 {
                replicas[replica] = replicas[replica].merged(with: replicas[other])
            } else {
                let payload: MultiValueRegister.Payload = action == 3 ? .tombstone : .text("\(replica)-\(time)")
                replicas[replica].assign(payload, actor: "r\(replica)", authorId: other == 0 ? alice : bob, timestamp: Double(time))
            }
        }
        return replicas
    }

    @Test func joinIsCommutativeAssociativeAndIdempotent() async {
        await propertyCheck(count: 1_000, input: Self.steps) { steps in
            let r = Self.replicas(steps)
            #expect(r[0].merged(with: r[1]) == r[1].merged(with: r[0]))
            #expect(r[0].merged(with: r[1]).merged(with: r[2]) == r[0].merged(with: r[1].merged(with: r[2])))
            #expect(r[0].merged(with: r[0]) == r[0])
            // A join dominates both sides: joining either side into it changes nothing.
            let joined = r[0].merged(with: r[1])
            #expect(joined.merged(with: r[1]) == joined)
        }
    }

    // MARK: The arbiter

    @Test func arbiterJoinsBothSidesAndKeepsASideThatAlreadyIsTheJoin() throws {
        var context = TestContext()
        for id in ["F", "S", "older"] as [Version.ID] { context.addVersion(id, timestamp: 0) }
        var first = MultiValueRegister(), second = MultiValueRegister()
        first.assign(.text("f"), actor: "a", authorId: Self.alice, timestamp: 1)
        second.assign(.text("s"), actor: "b", authorId: Self.bob, timestamp: 1)
        let joinedAlready = first.merged(with: second)
        let setups: [(Value.ID, MultiValueRegister, MultiValueRegister)] = [("both", first, second), ("kept", joinedAlready, second)]
        var forks: [Value.ID: Value.Fork] = [:]
        for (id, onFirst, onSecond) in setups {
            context.references["F", default: [:]][id] = ref(id, "F")
            context.references["S", default: [:]][id] = ref(id, "S")
            context.data[ref(id, "F")] = try onFirst.encoded()
            context.data[ref(id, "S")] = try onSecond.encoded()
            forks[id] = .twiceUpdated
        }
        context.references["S", default: [:]]["removed-on-first"] = ref("removed-on-first", "older")
        forks["removed-on-first"] = .removedAndUpdated(removedOn: .first)
        let merge = Merge(versions: (try #require(context.versions["F"]), try #require(context.versions["S"])), commonAncestor: nil,
                          forksByValueIdentifier: forks)
        let changes = try MultiValueRegisterArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
        let byId = Dictionary(uniqueKeysWithValues: changes.map { ($0.valueId, $0) })
        guard case .update(let value)? = byId["both"] else { Issue.record("expected new data for 'both'"); return }
        #expect(try MultiValueRegister(decoding: value.data, valueId: "both") == joinedAlready)
        #expect(byId["kept"] == .preserve(ref("kept", "F")))
        #expect(byId["removed-on-first"] == .preserve(ref("removed-on-first", "older")))
    }

    @Test func arbiterNamesAValueThatIsNoRegister() {
        var context = TestContext()
        context.addVersion("F", timestamp: 0)
        context.addVersion("S", timestamp: 0)
        context.references["F"] = ["x": ref("x", "F")]
        context.references["S"] = ["x": ref("x", "S")]
        let merge = Merge(versions: (context.versions["F"]!, context.versions["S"]!), commonAncestor: nil, forksByValueIdentifier: ["x": .twiceInserted])
        #expect(throws: MultiValueRegisterError.self) {
            try MultiValueRegisterArbiter().changes(toResolve: merge, in: AnyMergeContext(context))
        }
    }
}
