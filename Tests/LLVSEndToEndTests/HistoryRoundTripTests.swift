import Foundation
import PropertyBased
import Testing
import LLVS

/// End-to-end through `import LLVS`: a history written out in its documented JSON form and
/// read back in any order (as a store reload or an exchange would) answers every query as
/// the original did.
@Suite struct HistoryRoundTripTests {
    /// `(kind, first parent seed, second parent seed, timestamp, order key)` per version.
    static let dagSteps = zip(
        Gen.int(in: 0...9), Gen.int(in: 0...500), Gen.int(in: 0...500), Gen.int(in: 0...5), Gen.int(in: 0...500)
    ).array(of: 1...30)

    static func versions(from steps: [(Int, Int, Int, Int, Int)]) -> [Version] {
        var versions: [Version] = []
        for (i, (kind, a, b, timestamp, _)) in steps.enumerated() {
            var predecessors: Version.Predecessors?
            if i > 0, kind != 0 {
                let first = versions[a % i].id, second = versions[b % i].id
                predecessors = .init(idOfFirst: first, idOfSecond: kind >= 7 && first != second ? second : nil)
            }
            var metadata: Version.Metadata = [:]
            if kind == 5 { metadata[.branch] = try? .init(Branch("side")) }
            versions.append(Version(id: Version.ID("v\(i)-\(kind)"), predecessors: predecessors,
                                    timestamp: Double(timestamp), valueDataSize: Int64(a), metadata: metadata))
        }
        return versions
    }

    @Test func historyReloadedFromJSONInAnyOrderAnswersAlike() async {
        await propertyCheck(count: 1_000, input: Self.dagSteps) { steps in
            let versions = Self.versions(from: steps)
            var original = History()
            for version in versions { try original.add(version) }

            let order = steps.indices.sorted { (steps[$0].4, $0) < (steps[$1].4, $1) }
            let json = try CanonicalJSON.encode(order.map { versions[$0] })
            let reloaded = try History(versions: try CanonicalJSON.decode([Version].self, from: json))

            #expect(reloaded.headIdentifiers == original.headIdentifiers)
            #expect(Array(reloaded).map(\.id) == Array(original).map(\.id))
            for version in versions {
                let copy = try #require(reloaded.version(identifiedBy: version.id))
                #expect(copy.predecessors == version.predecessors)
                #expect(copy.timestamp == version.timestamp)
                #expect(copy.metadata == version.metadata)
                #expect(copy.branch == version.branch)
                #expect(copy.successors == original.version(identifiedBy: version.id)?.successors)
            }
            let heads = original.headIdentifiers.sorted()
            for (a, b) in zip(heads, heads.dropFirst()) {
                #expect(try reloaded.mergeBases(a, b) == original.mergeBases(a, b))
            }
        }
    }

    @Test func corruptHistoryJSONIsRejectedWithoutPartialState() throws {
        let json = Data(#"[{"identifier":"A","timestamp":1},{"identifier":"B","predecessors":{"idOfFirst":"missing"},"timestamp":2}]"#.utf8)
        let versions = try CanonicalJSON.decode([Version].self, from: json)
        #expect(throws: History.Error.missingPredecessor("missing", of: "B")) {
            _ = try History(versions: versions)
        }
        var history = History()
        try history.add(Version(id: "X", timestamp: 0))
        #expect(throws: History.Error.missingPredecessor("missing", of: "B")) { try history.add(contentsOf: versions) }
        #expect(history.count == 1)
    }
}
