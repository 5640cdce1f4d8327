import Foundation
import LLVSCore
import LLVSSyncProtocol
import LLVSSyncServer
import LLVSTesting
import Testing
@testable import LLVSSyncPostgres
@testable import LLVSSyncStorage

/// Server storages keep version identifiers as bytes (SPEC.md sections 1 and 15): NUL and
/// canonically equivalent strings stay distinct, and a database of the schema before
/// (identifiers as text) is converted in place with its data.
@Suite("Server storages keep identifiers as bytes")
struct IdentifierBytesStorageTests {
    /// Identifiers that text columns mangle or merge.
    static let identifiers = ["X\0y", "X", "X\0z", "\0", "caf\u{E9}", "cafe\u{301}", "\u{FFFF}", "%00", "../x", "\r\n\t",
                              String(repeating: "\0", count: SyncLimits.maximumIdentifierByteCount)]

    @Test("Every identifier is stored, listed and fetched byte for byte", arguments: StorageKind.available)
    func roundTrip(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-id-bytes")
        let storage = try await makeStorage(kind, in: directory)
        let store = uniqueStoreName("bytes")
        var versions: [StoredVersion] = []
        for (index, id) in Self.identifiers.enumerated() {
            versions.append(try storedVersion(id, index == 0 ? [] : [Self.identifiers[index - 1]], timestamp: Double(index), value: "value \(index)"))
        }
        let outcome = try await storage.push(versions, to: store)
        #expect(outcome.added.map { Array($0.rawValue.utf8) } == Self.identifiers.map { Array($0.utf8) })

        let listed = try await storage.listVersions(in: store, after: nil, limit: 100).versionIds
        #expect(listed.map { Array($0.rawValue.utf8) } == Self.identifiers.map { Array($0.utf8) })
        let records = try await storage.versionRecords(in: store, identifiedBy: versions.map(\.id))
        #expect(Set(records) == Set(versions.map(\.record)))
        for version in versions {
            let changes = try await storage.valueChanges(in: store, identifiedBy: [version.id])
            #expect(changes.count == 1, "\(version.id.rawValue.debugDescription) fetches \(changes.count) rows")
            #expect(changes.first.map { Array($0.0.rawValue.utf8) } == Array(version.id.rawValue.utf8))
            #expect(changes.first?.1 == version.changes)
            #expect(try await storage.versionRecords(in: store, identifiedBy: [version.id]) == [version.record])
        }
        // The prefix before a NUL names no stored version of its own.
        #expect(try await storage.versionRecords(in: store, identifiedBy: [Version.ID("X\0")]).isEmpty)
        // The same push again is all present; the same identifier with another record conflicts.
        #expect(try await storage.push(versions, to: store).alreadyPresentCount == versions.count)
        await #expect(throws: SyncStorageError.conflictingVersion(Version.ID("X\0z"))) {
            try await storage.push([try storedVersion("X\0z", ["X"], timestamp: 99)], to: store)
        }
        if kind == .postgres {
            // Text PostgreSQL cannot hold (the routes refuse such snapshot identifiers
            // first) is the caller's error, not an unavailable storage (no 503, no retries).
            do {
                try await storage.storeSnapshotChunk(Data("x".utf8), index: 0, snapshotId: "bad\0id", in: store)
                Issue.record("PostgreSQL stored a snapshot identifier with NUL")
            } catch SyncStorageError.invalidInput {
            }
        }
        (storage as? PostgresSyncStorage)?.close()
    }

    @Test("The SQLite server storage acknowledges a push once it is on stable storage (synchronous = FULL)")
    func sqliteStorageCommitsDurably() throws {
        let directory = try TemporaryDirectory(prefix: "llvs-durable")
        let storage = try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
        #expect(try storage.writerSynchronousMode() == 2)
    }

    @Test("A SQLite server database of the schema before is converted in place, its data kept")
    func sqliteUpgrade() async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-sqlite-upgrade")
        let fileURL = directory.url.appendingPathComponent("server.sqlite")
        let old = [try storedVersion("OLD-caf\u{E9}"), try storedVersion("OLD-2", ["OLD-caf\u{E9}"], timestamp: 2)]
        // The schema as servers made it before `v2`, without GRDB's migration table, and
        // rows as they bound them (identifiers as text).
        var sql = """
            CREATE TABLE llvs_stores (name TEXT PRIMARY KEY NOT NULL, identity TEXT NOT NULL, last_sequence INTEGER NOT NULL);
            CREATE TABLE llvs_versions (
                store TEXT NOT NULL, sequence INTEGER NOT NULL, id TEXT NOT NULL, record BLOB NOT NULL, changes BLOB NOT NULL,
                PRIMARY KEY (store, id), UNIQUE (store, sequence));
            CREATE TABLE llvs_snapshots (store TEXT PRIMARY KEY NOT NULL, snapshot_id TEXT NOT NULL, previous_id TEXT, manifest BLOB NOT NULL);
            CREATE TABLE llvs_snapshot_chunks (store TEXT NOT NULL, snapshot_id TEXT NOT NULL, chunk_index INTEGER NOT NULL, data BLOB NOT NULL,
                PRIMARY KEY (store, snapshot_id, chunk_index));
            INSERT INTO llvs_stores VALUES ('notes', 'IDENTITY-1', 2);

            """
        for (index, version) in old.enumerated() {
            sql += "INSERT INTO llvs_versions VALUES ('notes', \(index + 1), '\(version.id.rawValue)', X'\(hex(version.record))', X'\(hex(version.changes))');\n"
        }
        try SQLiteSyncStorage.execute(sql, inDatabaseAt: fileURL)

        // Several servers starting together on the old file: each opens it, one converts it.
        let opened = try await withThrowingTaskGroup(of: SQLiteSyncStorage.self) { group in
            for _ in 0..<4 { group.addTask { try SQLiteSyncStorage(fileURL: fileURL) } }
            return try await group.reduce(into: [SQLiteSyncStorage]()) { $0.append($1) }
        }
        #expect(opened.count == 4)
        let storage = try #require(opened.first)
        try await expectUpgraded(storage, old: old)
        // Opened again: the migrations are recorded, nothing changes.
        try await expectUpgraded(try SQLiteSyncStorage(fileURL: fileURL), old: old, pushed: true)

        // A database from a newer server (a migration this one does not know) is refused.
        try SQLiteSyncStorage.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v99')", inDatabaseAt: fileURL)
        #expect(throws: SyncStorageError.self) { try SQLiteSyncStorage(fileURL: fileURL) }
    }

    @Test("A PostgreSQL server database of the schema before is converted in place, its data kept",
          .enabled(if: postgresURL != nil))
    func postgresUpgrade() async throws {
        let baseURL = try #require(postgresURL)
        let database = "llvs_upgrade_\(UUID().uuidString.prefix(8).lowercased())"
        guard var components = URLComponents(string: baseURL) else { throw TestFailure("bad LLVS_TEST_POSTGRES_URL") }
        components.path = "/\(database)"
        let url = try #require(components.string)
        try await PostgresSyncStorage.execute(["CREATE DATABASE \(database)"], url: baseURL)
        do {
            let old = [try storedVersion("OLD-caf\u{E9}"), try storedVersion("OLD-2", ["OLD-caf\u{E9}"], timestamp: 2)]
            var statements = [
                "CREATE TABLE llvs_stores (name TEXT PRIMARY KEY, identity TEXT NOT NULL, last_sequence BIGINT NOT NULL)",
                """
                CREATE TABLE llvs_versions (store TEXT NOT NULL, sequence BIGINT NOT NULL, id TEXT NOT NULL, record BYTEA NOT NULL,
                    changes BYTEA NOT NULL, PRIMARY KEY (store, id), UNIQUE (store, sequence))
                """,
                "CREATE TABLE llvs_snapshots (store TEXT PRIMARY KEY, snapshot_id TEXT NOT NULL, previous_id TEXT, manifest BYTEA NOT NULL)",
                """
                CREATE TABLE llvs_snapshot_chunks (store TEXT NOT NULL, snapshot_id TEXT NOT NULL, chunk_index INTEGER NOT NULL,
                    data BYTEA NOT NULL, PRIMARY KEY (store, snapshot_id, chunk_index))
                """,
                "INSERT INTO llvs_stores VALUES ('notes', 'IDENTITY-1', 2)",
            ]
            for (index, version) in old.enumerated() {
                statements.append("""
                    INSERT INTO llvs_versions VALUES ('notes', \(index + 1), '\(version.id.rawValue)', '\\x\(hex(version.record))'::BYTEA, '\\x\(hex(version.changes))'::BYTEA)
                    """)
            }
            try await PostgresSyncStorage.execute(statements, url: url)

            let storage = try await PostgresSyncStorage(url: url)
            try await expectUpgraded(storage, old: old)
            storage.close()
            let again = try await PostgresSyncStorage(url: url)
            try await expectUpgraded(again, old: old, pushed: true)
            again.close()
        } catch {
            try? await PostgresSyncStorage.execute(["DROP DATABASE IF EXISTS \(database) WITH (FORCE)"], url: baseURL)
            throw error
        }
        try await PostgresSyncStorage.execute(["DROP DATABASE IF EXISTS \(database) WITH (FORCE)"], url: baseURL)
    }

    /// The old versions are listed and fetched as before, under the old identity; a push
    /// building on them (and holding a NUL identifier) works; with `pushed`, it was made already.
    private func expectUpgraded(_ storage: any SyncStorage, old: [StoredVersion], pushed: Bool = false) async throws {
        let store = SyncStoreName(rawValue: "notes")!
        let new = try storedVersion("NEW\0after", ["OLD-2"], timestamp: 3)
        let listing = try await storage.listVersions(in: store, after: nil, limit: 10)
        #expect(listing.versionIds == old.map(\.id) + (pushed ? [new.id] : []))
        #expect(listing.cursor.storeIdentity == "IDENTITY-1")
        #expect(try await storage.versionRecords(in: store, identifiedBy: old.map(\.id)).count == old.count)
        let changes = try await storage.valueChanges(in: store, identifiedBy: [old[0].id])
        #expect(changes.first?.1 == old[0].changes)
        let cursor = try await storage.latestCursor(in: store)
        #expect(cursor.sequence == (pushed ? 3 : 2))
        let outcome = try await storage.push([old[1], new], to: store)
        #expect(outcome.alreadyPresentCount == (pushed ? 2 : 1), "the old version is found by its identifier after the conversion")
        #expect(outcome.added == (pushed ? [] : [new.id]))
    }

    private func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}

/// Hostile pushes as raw HTTP requests, valid JSON with odd bytes: each is stored exactly
/// or refused with a 4xx and a JSON error body, never a 5xx (issue 21).
@Suite("Hostile pushes over HTTP")
struct HostilePushTests {
    /// A push request body of one version, its identifier and value identifier spelled
    /// as raw JSON string contents (escapes included).
    static func body(versionId: String, predecessor: String? = nil, valueId: String = "k") -> Data {
        let predecessors = predecessor.map { #","predecessors":{"idOfFirst":"\#($0)"}"# } ?? ""
        return Data(#"""
            {"versions":[{"valueChanges":[{"insert":{"data":"eA==","id":"\#(valueId)"}}],"version":{"identifier":"\#(versionId)"\#(predecessors),"timestamp":1}}]}
            """#.utf8)
    }

    /// ``body(versionId:predecessor:valueId:)`` with the bytes of `marker` replaced by raw `bytes`.
    static func body(versionId: String, valueId: String = "k", replacing marker: String, with bytes: [UInt8]) -> Data {
        let body = Array(body(versionId: versionId, valueId: valueId))
        let needle = Array(marker.utf8)
        guard let start = body.indices.first(where: { body[$0...].starts(with: needle) }) else { return Data(body) }
        return Data(body[..<start] + bytes + body[(start + needle.count)...])
    }

    @Test("NUL, lone surrogates, invalid UTF-8, huge and empty identifiers: stored exactly or refused with a 4xx", arguments: StorageKind.available)
    func hostilePushes(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-hostile-push")
        let server = try await RunningServer(storage: makeStorage(kind, in: directory))
        defer { Task { await server.stop() } }
        let raw = RawClient()
        let name = uniqueStoreName("hostile")
        let push = "\(server.storeURL(name).absoluteString)/push"

        // Two versions whose identifiers differ after a NUL: both stored, both listed whole.
        for (json, id) in [(#"X\u0000y"#, "X\0y"), (#"X\u0000z"#, "X\0z")] {
            let answer = try await raw.request(.POST, push, token: testToken, body: Self.body(versionId: json, valueId: #"a\u0000b"#))
            #expect(answer.status == 200, "\(kind): \(json) answered \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            let response = try JSONDecoder().decode(PushResponse.self, from: answer.body)
            #expect(response.added.map { Array($0.rawValue.utf8) } == [Array(id.utf8)])
        }
        let listing = try await raw.request(.GET, "\(server.storeURL(name).absoluteString)/versions", token: testToken)
        let listed = try JSONDecoder().decode(VersionListing.self, from: listing.body).versionIds
        #expect(listed.map { Array($0.rawValue.utf8) } == [Array("X\0y".utf8), Array("X\0z".utf8)])
        let fetch = try CanonicalJSON.encode(VersionIdentifiersRequest(versionIds: [Version.ID("X\0y")]))
        let changesAnswer = try await raw.request(.POST, "\(server.storeURL(name).absoluteString)/changes/fetch", token: testToken, body: fetch)
        #expect(changesAnswer.status == 200)
        let changes = try JSONDecoder().decode(ValueChangesResponse.self, from: changesAnswer.body).changes
        #expect(changes.map { Array($0.versionId.rawValue.utf8) } == [Array("X\0y".utf8)])
        #expect(changes.first?.valueChanges.map { Array($0.valueId.rawValue.utf8) } == [Array("a\0b".utf8)])

        // Lone surrogates, an identifier over the limit, an empty one, a NUL predecessor
        // the server lacks: 4xx with a JSON error body, nothing stored.
        let refused: [(String, Data)] = [
            ("lone high surrogate", Self.body(versionId: #"S\ud800"#)),
            ("lone low surrogate", Self.body(versionId: #"S\udc00x"#)),
            ("surrogate value id", Self.body(versionId: "S-value", valueId: #"\udfff"#)),
            ("huge id", Self.body(versionId: String(repeating: #"\u0000"#, count: SyncLimits.maximumIdentifierByteCount + 1))),
            ("huge value id", Self.body(versionId: "S-huge", valueId: String(repeating: "é", count: 200))),
            ("empty id", Self.body(versionId: "")),
            ("unknown NUL predecessor", Self.body(versionId: "S-orphan", predecessor: #"X\u0000"#)),
            ("invalid UTF-8", Self.body(versionId: "S-BAD", replacing: "BAD", with: [0xFF, 0xFE])),
            ("overlong UTF-8 NUL", Self.body(versionId: "S-BAD", replacing: "BAD", with: [0xC0, 0x80])),
            ("UTF-8 of a surrogate", Self.body(versionId: "S-BAD", replacing: "BAD", with: [0xED, 0xA0, 0x80])),
            ("unescaped NUL byte", Self.body(versionId: "S-BAD", replacing: "BAD", with: [0x00])),
            ("unescaped LF byte", Self.body(versionId: "S-BAD", replacing: "BAD", with: [0x0A])),
            ("a value changed twice", Self.body(versionId: "S-twice", valueId: #"a\u0000b"#, replacing: #"{"insert""#,
                                                 with: Array(#"{"remove":"a\u0000b"},{"insert""#.utf8))),
            ("infinite timestamp", Self.body(versionId: "S-inf", replacing: #""timestamp":1"#, with: Array(#""timestamp":1e400"#.utf8))),
            ("negative infinite timestamp", Self.body(versionId: "S-inf", replacing: #""timestamp":1"#, with: Array(#""timestamp":-1e400"#.utf8))),
            ("huge data size", Self.body(versionId: "S-size", replacing: #""timestamp":1"#, with: Array(#""timestamp":1,"valueDataSize":1e30"#.utf8))),
            ("negative data size", Self.body(versionId: "S-size", replacing: #""timestamp":1"#, with: Array(#""timestamp":1,"valueDataSize":-5"#.utf8))),
        ]
        for (label, body) in refused {
            let answer = try await raw.request(.POST, push, token: testToken, body: body)
            #expect((400..<500).contains(answer.status), "\(kind): \(label) answered \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            let error = try? JSONDecoder().decode(SyncErrorBody.self, from: answer.body)
            #expect(error != nil && error?.message.isEmpty == false, "\(kind): \(label) has no JSON error body")
        }
        let after = try await server.storage.listVersions(in: name, after: nil, limit: 100).versionIds
        #expect(after.map { Array($0.rawValue.utf8) } == [Array("X\0y".utf8), Array("X\0z".utf8)])
        (server.storage as? PostgresSyncStorage)?.close()
    }

    @Test("A peer answers a push its store refuses with 422, not 503; NUL identifiers land in its store")
    func peerRefusals() async throws {
        let peer = try Client("hostile-peer")
        let name = SyncStoreName(rawValue: "peer")!
        let server = try await RunningServer(storage: StoreSyncStorage(store: peer.store, storeName: name))
        defer { Task { await server.stop() } }
        let push = "\(server.storeURL(name).absoluteString)/push"
        let raw = RawClient()
        let stored = try await raw.request(.POST, push, token: testToken, body: Self.body(versionId: #"P\u0000a"#, valueId: #"a\u0000b"#))
        #expect(stored.status == 200)
        #expect(peer.versionIds.map { Array($0.rawValue.utf8) } == [Array("P\0a".utf8)])
        // A preserve of data the peer does not hold: the store refuses it, whatever the retry.
        let preserve = Self.body(versionId: "P-preserve", replacing: #"{"insert":{"data":"eA==","id":"k"}}"#,
                                 with: Array(#"{"preserve":{"storedVersionId":"nowhere","valueId":"k"}}"#.utf8))
        let refused = try await raw.request(.POST, push, token: testToken, body: preserve)
        #expect(refused.status == 422, "\(String(decoding: refused.body, as: UTF8.self))")
        #expect((try? JSONDecoder().decode(SyncErrorBody.self, from: refused.body))?.error == SyncErrorCode.invalidContent.rawValue)
        #expect(peer.versionIds.count == 1)
    }
}
