import Foundation
import LLVSCore
import Testing
@testable import LLVSStore

/// The merge-identifier vectors (`Vectors/merge-ids.json`, SPEC.md section 9): for each
/// case, the values the identity lists and the identifier they give. The Python port
/// (`ports/python`, run by `Scripts/check-port`) recomputes them from SPEC.md alone.
@Suite struct MergeIdentityVectorTests {
    struct File: Decodable {
        var format: String
        var formatVersion: Int
        var cases: [Case]
    }

    struct Case: Decodable {
        var name: String
        var virtual: Bool
        var predecessors: [String]
        var values: [ValueOutcomes]
        var metadata: [MetadataEntry]
        var identifier: String
    }

    struct ValueOutcomes: Decodable {
        var valueId: String
        var first: Outcome
        var second: Outcome
        var merge: Outcome
    }

    struct Outcome: Decodable {
        var absent: Bool?
        var storedBy: String?
        var newData: Data?

        var identityOutcome: MergeIdentity.Outcome {
            if let storedBy { return .reference(Version.ID(storedBy)) }
            if let newData { return .newData(newData) }
            return .absent
        }
    }

    struct MetadataEntry: Decodable {
        var key: String
        var value: Data
    }

    @Test func mergeIdentifiersMatchTheVectors() throws {
        let url = try #require(Bundle.module.url(forResource: "merge-ids", withExtension: "json", subdirectory: "Vectors"))
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        #expect(file.format == "llvs-merge-ids" && file.formatVersion == 1)
        #expect(file.cases.count >= 10)
        for vector in file.cases {
            var outcomes: [Value.ID: MergeIdentity.Outcome] = [:]
            for value in vector.values {
                let merged = value.merge.identityOutcome
                if MergeIdentity.lists(merged, first: value.first.identityOutcome, second: value.second.identityOutcome) {
                    outcomes[Value.ID(value.valueId)] = merged
                }
            }
            let metadata = Dictionary(uniqueKeysWithValues: vector.metadata.map { (Version.MetadataKey(rawValue: $0.key), Version.MetadataValue(data: $0.value)) })
            let identifier = MergeIdentity.identifier(domain: vector.virtual ? "llvs-virtual-merge-1" : "llvs-merge-1",
                                                      predecessors: (Version.ID(vector.predecessors[0]), Version.ID(vector.predecessors[1])),
                                                      outcomes: outcomes, metadata: metadata)
            // A virtual ancestor's identifier carries the prefix (MergeOperation adds it).
            #expect((vector.virtual ? "virtual-" : "") + identifier.rawValue == vector.identifier, "\(vector.name)")
        }
    }
}
