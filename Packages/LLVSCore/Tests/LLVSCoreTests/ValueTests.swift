import Foundation
import Testing
import LLVSCore

@Suite struct ValueTests {
    @Test func unstoredValueHasNoReference() {
        let value = Value(idString: "ABCDEF", data: Data("Hello".utf8))
        #expect(value.id == "ABCDEF")
        #expect(value.storedVersionId == nil)
        #expect(value.reference == nil)
    }

    @Test func storedValueReferencesItsVersion() {
        let value = Value(id: "k", data: Data([1]), storedVersionId: "V1")
        #expect(value.reference == Value.Reference(valueId: "k", storedVersionId: "V1"))
    }

    @Test func defaultIdentifierIsRandom() {
        #expect(Value(data: Data()).id != Value(data: Data()).id)
    }

    @Test func changesNameTheValueTheyAffect() {
        let value = Value(idString: "a", data: Data())
        let changes: [Value.Change] = [
            .insert(value), .update(value), .remove("b"),
            .preserve(.init(valueId: "c", storedVersionId: "V")), .preserveRemoval("d"),
        ]
        #expect(changes.valueIds == ["a", "a", "b", "c", "d"])
    }

    @Test func changeDecodingErrorNamesTheKeysFound() throws {
        do {
            _ = try CanonicalJSON.decode(Value.Change.self, from: Data(#"{"delete":"a","remove":"a"}"#.utf8))
            Issue.record("decoding should fail")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("remove"))
            #expect(context.debugDescription.contains("exactly one"))
        }
    }

    @Test(arguments: [
        (Value.Fork.inserted(.first), false), (.inserted(.second), false),
        (.removed(.first), false), (.updated(.second), false), (.twiceRemoved, false),
        (.twiceInserted, true), (.twiceUpdated, true),
        (.removedAndUpdated(removedOn: .first), true), (.removedAndUpdated(removedOn: .second), true),
    ])
    func forkConflictClassification(fork: Value.Fork, conflicting: Bool) throws {
        #expect(fork.isConflicting == conflicting)
        let decoded = try CanonicalJSON.decode(Value.Fork.self, from: CanonicalJSON.encode(fork))
        #expect(decoded == fork)
    }

    @Test func branchesAreOpposites() {
        #expect(Value.Fork.Branch.first.opposite == .second)
        #expect(Value.Fork.Branch.second.opposite == .first)
        #expect(Value.Fork.removedAndUpdated(removedOn: .second).branch == .second)
        #expect(Value.Fork.twiceUpdated.branch == nil)
    }
}
