import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSStoreTesting
import LLVSSyncProtocol
import LLVSSyncServer
import LLVSSyncStorage
import LLVSTesting
import Testing

/// The identifiers SPEC.md section 1 allows that storage is most likely to get wrong: NUL
/// (SQLite binds text as C strings, PostgreSQL `text` cannot hold it), canonically
/// equivalent strings (Swift's `String ==` calls them equal), control characters, path
/// syntax, noncharacters and sizes far past any file name.
enum HostileIdentifiers {
    /// One identifier of the list: what it stands for, and the identifier.
    struct Case: Sendable {
        let label: String
        let identifier: String
        /// False for the identifiers the sync server refuses by design (SPEC.md section
        /// 15: empty, or over 256 UTF-8 bytes): through HTTP they are refused with a 4xx.
        var travelsOverHTTP: Bool { !identifier.isEmpty && identifier.utf8.count <= SyncLimits.maximumIdentifierByteCount }
    }

    /// Value identifiers: `a\0b` and `a` side by side, `é` composed and decomposed.
    static let valueIds: [Case] = [
        Case(label: "empty", identifier: ""),
        Case(label: "a NUL b", identifier: "a\0b"),
        Case(label: "a", identifier: "a"),
        Case(label: "NUL", identifier: "\0"),
        Case(label: "NUL a", identifier: "\0a"),
        Case(label: "10,000 characters", identifier: String(repeating: "k", count: 10_000)),
        Case(label: "U+FFFF", identifier: "\u{FFFF}"),
        Case(label: "emoji", identifier: "👩‍👩‍👧‍👦🏳️‍🌈"),
        Case(label: "é NFC", identifier: "caf\u{E9}"),
        Case(label: "é NFD", identifier: "cafe\u{301}"),
        Case(label: "CR", identifier: "\r"),
        Case(label: "LF", identifier: "\n"),
        Case(label: "tab", identifier: "\t"),
        Case(label: "../x", identifier: "../x"),
        Case(label: "%00", identifier: "%00"),
        Case(label: "slash and backslash", identifier: "/\\"),
        // The same UUID in either case, mixed case and with a NUL: a UUID is held in memory
        // as its 128 bits and its letter case, so each must stay an identifier of its own.
        Case(label: "UUID upper", identifier: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9"),
        Case(label: "UUID lower", identifier: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"),
        Case(label: "UUID mixed", identifier: "0a1b2c3d-4E5F-6071-8293-a4b5c6d7e8f9"),
        Case(label: "UUID with NUL", identifier: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8\0"),
    ]

    /// Version identifiers, in the order of a chain: `W\0a` and `W\0b` first (two versions).
    static let versionIds: [Case] = [
        Case(label: "W NUL a", identifier: "W\0a"),
        Case(label: "W NUL b", identifier: "W\0b"),
        Case(label: "W", identifier: "W"),
        Case(label: "NUL", identifier: "\0"),
        Case(label: "é NFC", identifier: "\u{E9}"),
        Case(label: "é NFD", identifier: "e\u{301}"),
        Case(label: "../x", identifier: "../x"),
        Case(label: "%00", identifier: "%00"),
        Case(label: "CR LF tab", identifier: "\r\n\t"),
        Case(label: "U+FFFF", identifier: "\u{FFFF}"),
        Case(label: "emoji", identifier: "🧪\u{200D}🔥"),
        Case(label: "empty", identifier: ""),
        Case(label: "10,000 characters", identifier: String(repeating: "v", count: 10_000)),
        Case(label: "UUID upper", identifier: "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9"),
        Case(label: "UUID lower", identifier: "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9"),
    ]

    /// Writes the hostile history into `store`: the first version inserts every value (its
    /// data names the value and the version), each later version, based on the one before,
    /// updates two values. Returns the versions in the order written.
    @discardableResult
    static func write(into store: Store, overHTTP: Bool) throws -> [Version.ID] {
        let values = valueIds.filter { !overHTTP || $0.travelsOverHTTP }
        let versions = versionIds.filter { !overHTTP || $0.travelsOverHTTP }
        var written: [Version.ID] = []
        for (index, versionCase) in versions.enumerated() {
            let id = Version.ID(versionCase.identifier)
            let changes: [Value.Change]
            if index == 0 {
                changes = values.map { .insert(Value(idString: $0.identifier, data: data(value: $0, version: versionCase))) }
            } else {
                let touched = [values[index % values.count], values[(index * 7 + 1) % values.count]]
                let unique = touched.count == 2 && Array(touched[0].identifier.utf8) == Array(touched[1].identifier.utf8) ? [touched[0]] : touched
                changes = unique.map { .update(Value(idString: $0.identifier, data: data(value: $0, version: versionCase))) }
            }
            let version = Version(id: id, predecessors: written.last.map { Version.Predecessors(idOfFirst: $0) },
                                  timestamp: 1_000 + Double(index))
            try store.addVersion(version, storing: changes)
            written.append(id)
        }
        return written
    }

    /// The data a version stores for a value: both labels and the identifiers' bytes in hex.
    static func data(value: Case, version: Case) -> Data {
        Data("\(value.label) @ \(version.label): \(hex(value.identifier)) \(hex(version.identifier))".utf8)
    }

    static func hex(_ string: String) -> String {
        string.utf8.prefix(32).map { String(format: "%02x", $0) }.joined()
    }

    /// Every version of `store` (identifier bytes) with every value at it (identifier bytes → data).
    static func content(of store: Store) throws -> [[UInt8]: [[UInt8]: Data]] {
        var result: [[UInt8]: [[UInt8]: Data]] = [:]
        for id in store.queryHistory({ $0.allVersionIdentifiers }) {
            var values: [[UInt8]: Data] = [:]
            for reference in try store.valueReferences(at: id) {
                let value = try #require(try store.value(storedAt: reference), "no data for \(reference)")
                #expect(values.updateValue(value.data, forKey: Array(reference.valueId.rawValue.utf8)) == nil,
                        "value \(reference.valueId.rawValue.debugDescription) is listed twice at \(id.rawValue.debugDescription)")
            }
            result[Array(id.rawValue.utf8)] = values
        }
        return result
    }

    /// Checks that `received` holds exactly the versions and values of `sent`, byte for
    /// byte, and that the sent history has every version and every value it was written with.
    static func expectSameContent(_ received: Store, as sent: Store, written: [Version.ID], overHTTP: Bool,
                                  _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try content(of: sent)
        #expect(Set(expected.keys) == Set(written.map { Array($0.rawValue.utf8) }), "\(what): the sender lists other versions than it wrote",
                sourceLocation: sourceLocation)
        let valueCount = valueIds.filter { !overHTTP || $0.travelsOverHTTP }.count
        for (id, values) in expected {
            #expect(values.count == valueCount, "\(what): the sender holds \(values.count) values at \(String(decoding: id, as: UTF8.self).debugDescription), not \(valueCount)",
                    sourceLocation: sourceLocation)
        }
        let actual = try content(of: received)
        #expect(Set(actual.keys) == Set(expected.keys), "\(what): versions \(describe(Set(expected.keys).symmetricDifference(actual.keys))) differ",
                sourceLocation: sourceLocation)
        for (id, values) in expected {
            let got = actual[id] ?? [:]
            let wrong = Set(values.keys).union(got.keys).filter { values[$0] != got[$0] }
            #expect(wrong.isEmpty, "\(what): at version \(String(decoding: id, as: UTF8.self).debugDescription), values \(describe(wrong)) differ",
                    sourceLocation: sourceLocation)
        }
    }

    static func describe(_ ids: Set<[UInt8]>) -> String {
        ids.map { String(decoding: $0, as: UTF8.self).debugDescription.prefix(40) }.sorted().joined(separator: ", ")
    }
}

/// How versions travel in the conformance test.
enum HostileExchangeKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, fileSystem, httpSQLite, httpPostgres, peer

    static var available: [HostileExchangeKind] { allCases.filter { $0 != .httpPostgres || postgresURL != nil } }

    var testDescription: String { rawValue }
    var overHTTP: Bool { [.httpSQLite, .httpPostgres, .peer].contains(self) }
}

/// The same hostile identifiers through every zone backend, every exchange and every
/// server storage: written into a store, sent, retrieved by a fresh store, read back byte
/// for byte (issue 21, point 1).
@Suite("Hostile identifiers")
struct HostileIdentifierTests {
    @Test("Every zone backend keeps hostile identifiers apart and reads back their data", arguments: StoreReplica.Backend.allCases)
    func backends(backend: StoreReplica.Backend) throws {
        let replica = try StoreReplica(backend: backend)
        let written = try HostileIdentifiers.write(into: replica.store, overHTTP: false)
        try HostileIdentifiers.expectSameContent(replica.store, as: replica.store, written: written, overHTTP: false, "\(backend)")
        // Reopened from disk (memory keeps its zones in the storage object).
        let reopened = try replica.reopened()
        try HostileIdentifiers.expectSameContent(reopened.store, as: replica.store, written: written, overHTTP: false, "\(backend), reopened")
    }

    @Test("Hostile identifiers travel through every exchange to a fresh store of every backend",
          arguments: HostileExchangeKind.available, StoreReplica.Backend.allCases)
    func exchanges(kind: HostileExchangeKind, backend: StoreReplica.Backend) async throws {
        let sender = try StoreReplica(backend: backend)
        let receiver = try StoreReplica(backend: backend)
        let written = try HostileIdentifiers.write(into: sender.store, overHTTP: kind.overHTTP)
        let what = "\(kind) on \(backend)"
        switch kind {
        case .memory:
            let space = MemoryExchangeSpace()
            _ = try await MemoryExchange(space: space, store: sender.store).send()
            _ = try await MemoryExchange(space: space, store: receiver.store).retrieve()
        case .fileSystem:
            let directory = try TemporaryDirectory(prefix: "llvs-hostile-exchange")
            _ = try await FileSystemExchange(rootDirectoryURL: directory.url, store: sender.store).send()
            _ = try await FileSystemExchange(rootDirectoryURL: directory.url, store: receiver.store).retrieve()
        case .httpSQLite, .httpPostgres:
            let directory = try TemporaryDirectory(prefix: "llvs-hostile-server")
            let server = try await RunningServer(storage: makeStorage(kind == .httpSQLite ? .sqlite : .postgres, in: directory))
            let name = uniqueStoreName("hostile")
            do {
                _ = try await HTTPExchange(storeURL: server.storeURL(name), store: sender.store, accessToken: testToken).send()
                _ = try await HTTPExchange(storeURL: server.storeURL(name), store: receiver.store, accessToken: testToken).retrieve()
                let listed = try await server.storage.listVersions(in: name, after: nil, limit: 1_000).versionIds
                #expect(listed.map { Array($0.rawValue.utf8) } == written.map { Array($0.rawValue.utf8) },
                        "\(what): the server lists the versions in push order, byte for byte")
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        case .peer:
            // A peer (`llvs serve`) on the same backend: the sender pushes into it, the receiver pulls from it.
            let peer = try StoreReplica(backend: backend)
            let name = SyncStoreName(rawValue: "peer")!
            let server = try await RunningServer(storage: StoreSyncStorage(store: peer.store, storeName: name))
            do {
                _ = try await HTTPExchange(storeURL: server.storeURL(name), store: sender.store, accessToken: testToken).send()
                _ = try await HTTPExchange(storeURL: server.storeURL(name), store: receiver.store, accessToken: testToken).retrieve()
                try HostileIdentifiers.expectSameContent(peer.store, as: sender.store, written: written, overHTTP: true, "\(what), the peer's store")
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
        try HostileIdentifiers.expectSameContent(receiver.store, as: sender.store, written: written, overHTTP: kind.overHTTP, what)
    }

    @Test("Hostile identifiers travel in snapshots (file-system directory, server storages) of every snapshot-capable backend",
          arguments: [HostileExchangeKind.fileSystem] + HostileExchangeKind.available.filter { $0 == .httpSQLite || $0 == .httpPostgres },
          [StoreReplica.Backend.file, .sqlite])
    func snapshots(kind: HostileExchangeKind, backend: StoreReplica.Backend) async throws {
        let sender = try StoreReplica(backend: backend)
        let receiver = try StoreReplica(backend: backend)
        let written = try HostileIdentifiers.write(into: sender.store, overHTTP: false)
        let what = "snapshot through \(kind) on \(backend)"
        switch kind {
        case .fileSystem:
            let directory = try TemporaryDirectory(prefix: "llvs-hostile-snapshot")
            #expect(try await FileSystemExchange(rootDirectoryURL: directory.url, store: sender.store).sendSnapshot(chunkSize: 4_096) != nil)
            #expect(try await FileSystemExchange(rootDirectoryURL: directory.url, store: receiver.store).restoreSnapshot() != nil)
        default:
            let directory = try TemporaryDirectory(prefix: "llvs-hostile-snapshot-server")
            let server = try await RunningServer(storage: makeStorage(kind == .httpSQLite ? .sqlite : .postgres, in: directory))
            let name = uniqueStoreName("hostile-snapshot")
            do {
                let sent = try await HTTPExchange(storeURL: server.storeURL(name), store: sender.store, accessToken: testToken).sendSnapshot(chunkSize: 4_096)
                #expect(sent != nil)
                #expect(try await HTTPExchange(storeURL: server.storeURL(name), store: receiver.store, accessToken: testToken).restoreSnapshot() != nil)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
        try HostileIdentifiers.expectSameContent(receiver.store, as: sender.store, written: written, overHTTP: false, what)
    }

    @Test("The identifiers the server refuses by design (empty, over 256 bytes) are refused with a 4xx, not stored cut",
          arguments: StorageKind.available)
    func refusedOverHTTP(kind: StorageKind) async throws {
        let directory = try TemporaryDirectory(prefix: "llvs-hostile-refused")
        let server = try await RunningServer(storage: makeStorage(kind, in: directory))
        defer { Task { await server.stop() } }
        let name = uniqueStoreName("refused")
        for refused in (HostileIdentifiers.valueIds + HostileIdentifiers.versionIds).filter({ !$0.travelsOverHTTP }) {
            let isValue = HostileIdentifiers.valueIds.contains { $0.label == refused.label && $0.identifier == refused.identifier }
            let version = Version(id: isValue ? Version.ID() : Version.ID(refused.identifier))
            let change = Value.Change.insert(Value(idString: isValue ? refused.identifier : "k", data: Data("x".utf8)))
            let body = try CanonicalJSON.encode(PushRequest(versions: [VersionChangesMessage(version: version, valueChanges: [change])]))
            let answer = try await RawClient().request(.POST, "\(server.storeURL(name).absoluteString)/push", token: testToken, body: body)
            #expect(answer.status == 422, "\(kind): \(refused.label) answered \(answer.status)")
            let error = try? JSONDecoder().decode(SyncErrorBody.self, from: answer.body)
            #expect(error?.error == SyncErrorCode.limitExceeded.rawValue)
        }
        #expect(try await server.storage.listVersions(in: name, after: nil, limit: 100).versionIds.isEmpty)
    }
}
