import Foundation
import GRDB
import LLVSCore
import LLVSModel
import LLVSProjection
import LLVSStore
import LLVSTesting
import Testing

@MergeableModel
struct Person: Equatable, Sendable {
    static let modelTypeIdentifier = "Person"
    var name = ""
}

struct Place: Codable, Equatable, Sendable {
    var city = ""
    var floor = 0
}

enum Status: String, Codable, Sendable {
    case draft, published
}

/// The tests' model: every kind of column (the worker declares `Note` with the first five).
@MergeableModel
struct Note: Equatable, Sendable {
    static let modelTypeIdentifier = "Note"
    var title = ""
    @Merged(using: .text) var body = ""
    var category = ""
    @Merged(using: .counter) var stars = 0
    var updated = Date(timeIntervalSinceReferenceDate: 0)
    var tags: Set<String> = []
    var author: ModelReference<Person>? = nil
    var place = Place()
    var pinned = false
    var status = Status.draft
}

/// The tests' schema: notes (an index, two full-text columns) and people.
func testSchema(version: Int = 1) throws -> ProjectionSchema {
    var schema = ProjectionSchema(version: version)
    try schema.add(Note.self, indexes: [["category"], ["updated"]], fullText: ["title", "body"])
    try schema.add(Person.self)
    return schema
}

/// Every row of every projected table, and the full-text matches of a few words: equal
/// dumps mean equal projections.
func dump(_ projection: ModelProjection) throws -> [String] {
    try projection.database.read { db in
        var lines: [String] = []
        for table in projection.schema.tables {
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table.name.quotedDatabaseIdentifier) ORDER BY llvs_id")
            lines += rows.map { "\(table.name): \($0.description)" }
            if !table.fullText.isEmpty {
                for word in ["alpha", "beta", "gamma", "delta"] {
                    let ids = try String.fetchAll(db, sql: """
                        SELECT t.llvs_id FROM \(table.name.quotedDatabaseIdentifier) t
                        JOIN \(table.fullTextTableName.quotedDatabaseIdentifier) f ON f.rowid = t.rowid
                        WHERE \(table.fullTextTableName.quotedDatabaseIdentifier) MATCH ? ORDER BY t.llvs_id
                        """, arguments: [word])
                    lines.append("\(table.name) matches \(word): \(ids)")
                }
            }
        }
        return lines
    }
}

/// A projection of `store` at `version` built from nothing, in a directory of its own.
func freshDump(of store: Store, at version: Version.ID, schema: ProjectionSchema) throws -> [String] {
    let directory = try TemporaryDirectory(prefix: "llvs-projection-fresh")
    let projection = try ModelProjection(path: directory.url.appendingPathComponent("fresh.sqlite").path, store: store, schema: schema)
    try projection.update(to: version)
    return try dump(projection)
}

/// Runs a property's body and records what it throws as a failure. swift-property-based
/// 2.0.1 counts only recorded issues: it runs the body under `try?`, so an error thrown from
/// a `propertyCheck` body would pass unseen.
func failingOnThrow(_ body: () async throws -> Void) async {
    do {
        try await body()
    } catch {
        Issue.record(error)
    }
}
