import Foundation
import LLVSKeyValue
import LLVSTesting
import PropertyBased
import Testing

/// Random concurrent writes and deletes by random authors on several databases, with
/// random merges between them. What `read` returns is checked against a model of the
/// multi-value register (every write not superseded by a known write that saw it), and
/// merging databases must be commutative, associative and idempotent in what `read`
/// returns.
@Suite struct MergePropertyTests {
    static let replicaCount = 3
    static let keys = ["a", "b", "c"]
    static let authors = [Author.alice, Author.bob, Author(id: UUID(uuidString: "CA201000-0000-0000-0000-000000000000") ?? UUID(), name: "Carol")]

    /// The author of each replica (two replicas may share one), and the steps:
    /// `(kind 0…9, replica, other replica or key)`. Kinds 0–5 write, 6–7 delete, 8–9 merge
    /// `other` into `replica`.
    static let input = zip(Gen.int(in: 0...2).array(of: replicaCount), zip(Gen.int(in: 0...9), Gen.int(in: 0...2), Gen.int(in: 0...2)).array(of: 1...18))

    /// The model: every write made, and the writes each replica knows.
    struct Model {
        struct Write {
            var key: String
            var text: String?
            /// The writes the writer knew when it wrote.
            var seen: Set<Int>
        }

        var writes: [Write] = []
        var known = Array(repeating: Set<Int>(), count: MergePropertyTests.replicaCount)

        mutating func write(_ text: String?, key: String, on replica: Int) {
            writes.append(Write(key: key, text: text, seen: known[replica]))
            known[replica].insert(writes.count - 1)
        }

        /// The live texts of `key` in a set of known writes: those no other known write
        /// has seen, skipping deletes.
        func read(_ key: String, knowing known: Set<Int>) -> Set<String> {
            let onKey = known.filter { writes[$0].key == key }
            return Set(onKey.filter { write in !onKey.contains { writes[$0].seen.contains(write) } }.compactMap { writes[$0].text })
        }
    }

    /// What a database reads for every key: the set of texts (each write's text is unique).
    static func reads(_ database: KeyValueDatabase) throws -> [String: Set<String>] {
        var result: [String: Set<String>] = [:]
        for key in keys { result[key] = Set(try database.read(key: key).compactMap(\.value.text)) }
        return result
    }

    /// Where a history's databases live: in memory, or each in its own directory (an SQLite
    /// store and its FTS5 index) under one temporary directory.
    enum Backend: String, CaseIterable, Sendable {
        case memory, sqlite

        /// Random histories checked: fewer on disk, where each write is a transaction.
        var cases: Int { self == .memory ? 150 : 25 }
    }

    /// Opens new databases of one backend.
    final class Opener {
        let directory: TemporaryDirectory?

        init(_ backend: Backend) throws {
            directory = backend == .sqlite ? try TemporaryDirectory() : nil
        }

        func open(as author: Author) throws -> KeyValueDatabase {
            try KeyValueDatabase(fileURL: directory?.file(UUID().uuidString), author: author)
        }

        /// A new database holding what `sources` hold, merged in order.
        func merged(_ sources: KeyValueDatabase...) throws -> KeyValueDatabase {
            let database = try open(as: authors[0])
            for source in sources { try database.merge(source: source) }
            return database
        }
    }

    @Test(arguments: Backend.allCases)
    func readsMatchTheModelAndMergingIsCommutativeAssociativeAndIdempotent(backend: Backend) async {
        await propertyCheck(count: backend.cases, input: Self.input) { replicaAuthors, steps in
            let opener = try Opener(backend)
            let databases = try replicaAuthors.map { try opener.open(as: Self.authors[$0]) }
            var model = Model()
            for (index, (kind, replica, other)) in steps.enumerated() {
                let key = Self.keys[other]
                switch kind {
                case 0...5:
                    let text = "w\(index)"
                    try databases[replica].writeText(text, to: key)
                    model.write(text, key: key, on: replica)
                case 6...7:
                    try databases[replica].delete(key: key)
                    model.write(nil, key: key, on: replica)
                default:
                    try databases[replica].merge(source: databases[other])
                    model.known[replica].formUnion(model.known[other])
                }
            }
            for (index, database) in databases.enumerated() {
                let expected = Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, model.read($0, knowing: model.known[index])) })
                #expect(try Self.reads(database) == expected, "replica \(index) reads what the model says")
            }
            let (a, b, c) = (databases[0], databases[1], databases[2])
            let ab = try Self.reads(opener.merged(a, b))
            #expect(ab == (try Self.reads(opener.merged(b, a))), "commutative")
            let expected = Dictionary(uniqueKeysWithValues: Self.keys.map { ($0, model.read($0, knowing: model.known[0].union(model.known[1]))) })
            #expect(ab == expected, "a merge reads what the model's union of knowledge says")
            let leftFirst = try opener.merged(opener.merged(a, b), c)
            let rightFirst = try opener.merged(a, opener.merged(b, c))
            #expect(try Self.reads(leftFirst) == Self.reads(rightFirst), "associative")
            #expect(try Self.reads(opener.merged(a, a)) == Self.reads(a), "idempotent")
            let twice = try opener.merged(a, b)
            try twice.merge(source: b)
            #expect(try Self.reads(twice) == ab, "merging the same source twice changes nothing")
        }
    }
}
