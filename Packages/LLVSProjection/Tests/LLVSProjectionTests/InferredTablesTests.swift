import Foundation
import GRDB
import LLVSCore
import LLVSModel
import LLVSProjection
import LLVSStore
import LLVSStoreTesting
import Testing

/// Tables from stored JSON alone (what `llvs query` reads), on every backend.
@Suite struct InferredTablesTests {
    static func value(_ id: String, _ json: String) -> Value.Change {
        .insert(Value(id: Value.ID(id), data: Data(json.utf8)))
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func modelTypesBecomeTablesAndEverythingElseLlvsValues(_ backend: StoreReplica.Backend) throws {
        let replica = try StoreReplica(backend: backend)
        let version = try replica.store.makeVersion(basedOnPredecessor: nil, storing: [
            Self.value("Note/a", #"{"title":"One","stars":1,"score":1,"place":{"city":"Paris"},"flag":true,"Title":"shadowed","$version":2}"#),
            Self.value("Note/b", #"{"title":"Two","stars":2,"score":2.5,"tags":["x"],"mixed":"text"}"#),
            Self.value("Note/c", #"{"title":null,"mixed":3}"#),
            Self.value("Note/broken", "not json"),
            .insert(Value(id: Value.ID("blob"), data: Data([0xFF, 0x00, 0xFE]))),
            Self.value("greeting", "hello"),
            Self.value("llvs_values/x", #"{"a":1}"#),
        ])
        let database = try DatabaseQueue()
        let tables = try database.write { db in try InferredTables.write(replica.store, at: version.id, into: db) }
        #expect(tables.map(\.name) == ["Note"])
        let kinds = Dictionary(uniqueKeysWithValues: try #require(tables.first).columns.map { ($0.name, $0.kind) })
        // "Title" sorts before "title" in a's members: of the two, it is the column.
        #expect(kinds == ["Title": .text, "stars": .integer, "score": .real, "place": .json, "flag": .integer, "tags": .json, "mixed": .value])
        #expect(tables.first?.rows == 3)
        try database.read { (db: Database) throws -> Void in
            #expect(try String.fetchOne(db, sql: "SELECT json_extract(place, '$.city') FROM Note WHERE llvs_instance = 'a'") == "Paris")
            #expect(try Double.fetchOne(db, sql: "SELECT sum(score) FROM Note") == 3.5)
            #expect(try String.fetchAll(db, sql: "SELECT llvs_id FROM llvs_values ORDER BY llvs_id") == ["Note/broken", "blob", "greeting", "llvs_values/x"])
            #expect(try Data.fetchOne(db, sql: "SELECT llvs_data FROM llvs_values WHERE llvs_id = 'blob'") == Data([0xFF, 0x00, 0xFE]))
            #expect(try String.fetchOne(db, sql: "SELECT llvs_version FROM Note WHERE llvs_instance = 'b'") == version.id.rawValue)
        }
    }

    /// Names SQLite cannot hold apart or at all (a NUL; two types equal but for case) come
    /// from values like any other: the query still runs, those values in `llvs_values`.
    @Test(arguments: StoreReplica.Backend.allCases)
    func hostileNamesInValidJSONNeverBreakTheTables(_ backend: StoreReplica.Backend) throws {
        let replica = try StoreReplica(backend: backend)
        let version = try replica.store.makeVersion(basedOnPredecessor: nil, storing: [
            Self.value("Note/a", "{\"title\":\"One\",\"bad\\u0000key\":1,\"\":2,\"quote\\\"d\":3}"),
            Self.value("note/b", #"{"title":"Two"}"#),
            Self.value("No\u{0}te/c", #"{"title":"Three"}"#),
            Self.value("Ta\"ble]/d", #"{"title":"Four"}"#),
            Self.value("Note/\u{0}x", #"{"title":"Fi\u0000ve"}"#),
            Self.value("Note/\u{0}y", #"{"title":"Six"}"#),
        ])
        let database = try DatabaseQueue()
        let tables = try database.write { db in try InferredTables.write(replica.store, at: version.id, into: db) }
        #expect(tables.map(\.name) == ["Note", "Ta\"ble]"])
        #expect(tables.first?.columns.map(\.name) == ["title", "quote\"d"])
        try database.read { (db: Database) throws -> Void in
            // Read as bytes: a C string would end at the NUL.
            let ids = try Data.fetchAll(db, sql: "SELECT CAST(llvs_id AS BLOB) FROM llvs_values ORDER BY llvs_id")
            #expect(ids == [Data("note/b".utf8), Data("No\u{0}te/c".utf8)], "text sorts before blobs")
            #expect(try Int.fetchOne(db, sql: #"SELECT "quote""d" FROM Note WHERE llvs_instance = 'a'"#) == 3)
            #expect(try String.fetchOne(db, sql: #"SELECT title FROM "Ta""ble]""#) == "Four")
            // Identifiers and strings holding a NUL keep every byte (as blobs), each its own row.
            let titles = try Data.fetchAll(db, sql: "SELECT CAST(title AS BLOB) FROM Note ORDER BY llvs_data")
            #expect(titles.contains(Data("Fi\u{0}ve".utf8)) && titles.count == 3)
        }
    }

    @Test func anUnknownVersionIsATypedError() throws {
        let replica = try StoreReplica(backend: .memory)
        let database = try DatabaseQueue()
        #expect(throws: ProjectionError.unknownVersion(Version.ID("nowhere"))) {
            try database.write { db in _ = try InferredTables.write(replica.store, at: Version.ID("nowhere"), into: db) }
        }
    }

    /// Types whose schema the model layer recorded get its columns (Unix dates, joinable
    /// references), then the members a newer app added; a schema value that is not one is a
    /// plain value.
    @Test(arguments: StoreReplica.Backend.allCases)
    func recordedSchemasTypeTheColumns(_ backend: StoreReplica.Backend) throws {
        let replica = try StoreReplica(backend: backend)
        var note = Note()
        note.title = "One"
        note.updated = Date(timeIntervalSince1970: 86_400)
        note.author = ModelReference("ada")
        var batch = ModelBatch()
        try batch.save(note, instanceIdentifier: "n1")
        try batch.save(Person(name: "Ada"), instanceIdentifier: "ada")
        let saved = try replica.store.save(batch, basedOn: nil)
        let version = try replica.store.makeVersion(basedOnPredecessor: saved.id, storing: [
            Self.value("Note/n2", #"{"title":"Two","body":"","category":"","stars":0,"updated":0,"tags":[],"place":{"city":"","floor":0},"pinned":false,"status":"draft","added":7}"#),
            Self.value("$schema/Broken", "not a schema"),
            Self.value("$schema/Other", #"{"type":"Note","modelVersion":1,"properties":[]}"#),
        ])
        let database = try DatabaseQueue()
        let tables = try database.write { db in try InferredTables.write(replica.store, at: version.id, into: db) }
        #expect(tables.map(\.name) == ["Note", "Person"])
        let columns = try #require(tables.first).columns
        #expect(columns.map(\.name) == (try ModelSchema.of(Note.self)).properties.map(\.name) + ["added"])
        #expect(columns.first { $0.name == "updated" }?.kind == .date)
        try database.read { (db: Database) throws -> Void in
            #expect(try String.fetchOne(db, sql: "SELECT date(updated, 'unixepoch') FROM Note WHERE llvs_instance = 'n1'") == "1970-01-02")
            #expect(try String.fetchOne(db, sql: "SELECT p.name FROM Note n JOIN Person p ON p.llvs_instance = n.author") == "Ada")
            #expect(try Int.fetchOne(db, sql: "SELECT added FROM Note WHERE llvs_instance = 'n2'") == 7)
            #expect(try String.fetchAll(db, sql: "SELECT type FROM llvs_schemas ORDER BY type") == ["Note", "Person"])
            #expect(try String.fetchAll(db, sql: "SELECT llvs_id FROM llvs_values ORDER BY llvs_id") == ["$schema/Broken", "$schema/Other"])
        }
    }
}
