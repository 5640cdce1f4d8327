import Foundation
import LLVSCore
import LLVSStore
import LLVSSupport
import LLVSTesting
import LLVSZones
import Testing
@testable import LLVSExchange

/// The exchange vectors of `conformance/formats` (SPEC.md sections 11 and 13), which the
/// Python port made from the specification alone: batch files and their log records,
/// format-1 version and changes files, markers, whole directories read step by step (and
/// sends into them), and snapshot manifests with their chunks. Each is read by the code the
/// exchange itself runs.
@Suite struct ExchangeConformanceTests {
    static func text(_ value: some Encodable) throws -> String {
        String(decoding: try CanonicalJSON.encode(value), as: UTF8.self)
    }

    static func version(_ json: Any?) throws -> Version {
        try CanonicalJSON.decode(Version.self, from: Data(try #require(json as? String).utf8))
    }

    static func changes(_ json: Any?) throws -> [Value.Change] {
        try CanonicalJSON.decode([Value.Change].self, from: Data(try #require(json as? String).utf8))
    }

    /// The case name of an exchange error, as the vectors name it.
    static func name(of error: any Error) -> String {
        guard let error = error as? ExchangeError else { return "\(type(of: error)): \(error)" }
        switch error {
        case .missingVersion: return "missingVersion"
        case .missingValueChanges: return "missingValueChanges"
        case .missingPredecessors: return "missingPredecessors"
        case .malformedData: return "malformedData"
        case .unsupportedFormat: return "unsupportedFormat"
        case .transport: return "transport"
        case .corruptSnapshotChunk: return "corruptSnapshotChunk"
        case .invalidSnapshotManifest: return "invalidSnapshotManifest"
        case .snapshotNotRestorable: return "snapshotNotRestorable"
        case .conflictingVersion: return "conflictingVersion"
        case .damagedFile: return "damagedFile"
        }
    }

    // MARK: Format 2

    @Test func batchFilesAndLogRecords() throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("exchange-batches.json")
        for vector in valid where vector.fields["kind"] as? String == "batch" {
            let file = try ExchangeBatchFile(parsing: vector.bytes)
            let entries = try #require(vector.fields["entries"] as? [[String: Any]])
            var encoded: [[UInt8]] = []
            #expect(file.order.count == entries.count, "\(vector.name)")
            for (id, entry) in zip(file.order, entries) {
                let version = try Self.version(entry["version"]), changes = try Self.changes(entry["changes"])
                #expect(id == version.id, "\(vector.name)")
                #expect(try Self.text(try #require(file.entries[id]).version) == entry["version"] as? String, "\(vector.name)")
                #expect(try Self.text(try file.changes(of: id)) == entry["changes"] as? String, "\(vector.name)")
                encoded.append(ExchangeBatchFile.encodeEntry(version, changes: changes))
            }
            #expect(ExchangeBatchFile.encode(entries: encoded) == vector.bytes, "\(vector.name)")
            #expect(Hex.encode(ExchangeBatchFile.digest(of: vector.bytes)) == vector.fields["digest"] as? String, "\(vector.name)")
        }
        for vector in valid where vector.fields["kind"] as? String == "logRecord" {
            let (digest, ids) = try ExchangeLogRecord.decode(vector.bytes)
            #expect(Hex.encode(digest) == vector.fields["digest"] as? String, "\(vector.name)")
            #expect(ids.map(\.rawValue) == vector.fields["versionIds"] as? [String], "\(vector.name)")
            #expect(ExchangeLogRecord.encode(digest: digest, versionIds: ids) == vector.bytes, "\(vector.name)")
        }
        #expect(invalid.count > 20)
        for vector in invalid {
            #expect(throws: ExchangeBatchFile.Malformed.self, "\(vector.name)") {
                if vector.fields["kind"] as? String == "logRecord" {
                    _ = try ExchangeLogRecord.decode(vector.bytes)
                } else {
                    // A batch decodes when every entry's record and changes do.
                    let file = try ExchangeBatchFile(parsing: vector.bytes)
                    for id in file.order { _ = try file.changes(of: id) }
                }
            }
        }
    }

    // MARK: Format 1

    /// A format-1 file's content: the checksum checked (or required), then the JSON.
    static func content(of vector: ConformanceVectors.FormatCase) throws -> Data {
        switch ExchangeFileChecksum.check(vector.bytes) {
        case .verified(let content): return content
        case .mismatch(let reason): throw ExchangeError.damagedFile("", location: vector.name, reason: reason)
        case .unsealed:
            if vector.fields["checksumsRequired"] as? Bool == true {
                throw ExchangeError.damagedFile("", location: vector.name, reason: "no checksum")
            }
            return vector.bytes
        }
    }

    @Test func versionAndChangesFiles() throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("exchange-files.json")
        for vector in valid where vector.fields["kind"] as? String != "marker" {
            let content = try Self.content(of: vector)
            if vector.fields["kind"] as? String == "version" {
                let version = try CanonicalJSON.decode(Version.self, from: content)
                #expect(version.id.rawValue == vector.fields["versionId"] as? String, "\(vector.name)")
                #expect(try Self.text(version) == vector.fields["version"] as? String, "\(vector.name)")
            } else {
                let file = try CanonicalJSON.decode(FolderExchange.ChangesFile.self, from: content)
                #expect(file.version.rawValue == vector.fields["versionId"] as? String, "\(vector.name)")
                #expect(try Self.text(file.valueChanges) == vector.fields["changes"] as? String, "\(vector.name)")
            }
            if vector.fields["checksum"] is String {
                #expect(ExchangeFileChecksum.seal(content) == vector.bytes, "\(vector.name)")
            }
        }
        for vector in invalid where vector.fields["kind"] as? String != "marker" {
            #expect(throws: (any Error).self, "\(vector.name)") {
                let content = try Self.content(of: vector)
                let id: Version.ID
                if vector.fields["kind"] as? String == "version" {
                    id = try CanonicalJSON.decode(Version.self, from: content).id
                } else {
                    id = try CanonicalJSON.decode(FolderExchange.ChangesFile.self, from: content).version
                }
                guard id.rawValue == vector.fields["versionId"] as? String else {
                    throw ExchangeError.malformedData(location: vector.name, reason: "another version")
                }
            }
        }
    }

    /// Every marker, valid or not, as the only file of a directory a reader lists.
    @Test func markers() async throws {
        let (valid, invalid) = try ConformanceVectors.formatCases("exchange-files.json")
        for vector in valid + invalid where vector.fields["kind"] as? String == "marker" {
            let directory = try TemporaryDirectory()
            try vector.bytes.write(to: directory.url.appendingPathComponent("llvs-exchange.json"))
            let exchange = FileSystemExchange(rootDirectoryURL: directory.url, store: try Self.emptyStore())
            do {
                let ids = try await exchange.retrieveAllVersionIdentifiers()
                #expect(vector.errorClass == nil && vector.fields["exchangeError"] == nil && ids.isEmpty, "\(vector.name): accepted")
            } catch {
                #expect(Self.name(of: error) == vector.fields["exchangeError"] as? String, "\(vector.name): \(error)")
            }
        }
    }

    // MARK: Directories

    static func emptyStore() throws -> Store {
        try Store(rootDirectoryURL: try TemporaryDirectory().url, storage: MemoryStorage())
    }

    /// Writes a vector's files (path → hex) into a new directory.
    static func directory(_ files: Any?) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for (path, hex) in try #require(files as? [String: String]) {
            let url = directory.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try ConformanceVectors.bytes(hex).write(to: url)
        }
        return directory
    }

    /// The logged versions, each once, in the order first listed.
    static func listed(_ exchange: FileSystemExchange) async throws -> [Version.ID] {
        var seen = Set<Version.ID>()
        return try await exchange.retrieveAllVersionIdentifiers().filter { seen.insert($0).inserted }
    }

    @Test func directoriesReadStepByStep() async throws {
        let file = try ConformanceVectors.file("formats/exchange-directories.json")
        let valid = try #require(file["valid"] as? [[String: Any]]), invalid = try #require(file["invalid"] as? [[String: Any]])
        for vector in valid {
            let name = vector["name"] as? String ?? "?"
            let directory = try Self.directory(vector["files"])
            let exchange = FileSystemExchange(rootDirectoryURL: directory.url, store: try Self.emptyStore())
            let ids = try await Self.listed(exchange)
            #expect(ids.map(\.rawValue) == vector["versionIds"] as? [String], "\(name)")
            for expected in try #require(vector["versions"] as? [[String: Any]]) {
                let id = Version.ID(rawValue: try #require(expected["id"] as? String))
                let version = try #require(try await exchange.retrieveVersions(identifiedBy: [id]).first)
                #expect(try Self.text(version) == expected["version"] as? String, "\(name): \(id)")
                let changes = try #require(try await exchange.retrieveValueChanges(forVersionsIdentifiedBy: [id])[id])
                #expect(try Self.text(changes) == expected["changes"] as? String, "\(name): \(id)")
            }
            let manifest = try await exchange.retrieveSnapshotManifest()
            #expect(try manifest.map(Self.text) == vector["snapshot"] as? String, "\(name)")
        }
        #expect(invalid.count > 15)
        for vector in invalid {
            let name = vector["name"] as? String ?? "?"
            let directory = try Self.directory(vector["files"])
            let exchange = FileSystemExchange(rootDirectoryURL: directory.url, store: try Self.emptyStore())
            let step = vector["step"] as? String ?? "?"
            let id = (vector["versionId"] as? String).map(Version.ID.init(rawValue:))
            do {
                let ids = try await Self.listed(exchange)
                #expect(step != "marker" && step != "list", "\(name): listed")
                for listed in ids {
                    _ = try await exchange.retrieveVersions(identifiedBy: [listed])
                    #expect(step != "version" || listed != id, "\(name): read version \(listed)")
                    _ = try await exchange.retrieveValueChanges(forVersionsIdentifiedBy: [listed])
                    #expect(step != "changes" || listed != id, "\(name): read changes of \(listed)")
                }
                if let manifest = try await exchange.retrieveSnapshotManifest() {
                    for index in 0..<manifest.chunkCount {
                        guard manifest.matches(try await exchange.retrieveSnapshotChunk(index: index, of: manifest), chunk: index) else {
                            throw ExchangeError.corruptSnapshotChunk(snapshotId: manifest.snapshotId, index: index)
                        }
                    }
                }
                Issue.record("\(name): nothing refused (expected \(vector["error"] ?? "?") at \(step))")
            } catch {
                #expect(Self.name(of: error) == vector["error"] as? String, "\(name): \(error)")
            }
        }
    }

    /// Sends into a copy of a valid directory: a version the log does not list is logged; one
    /// it lists with what this sender writes is a no-op; with other content, a conflict that
    /// logs nothing.
    @Test func sends() async throws {
        let file = try ConformanceVectors.file("formats/exchange-directories.json")
        let directories = try #require(file["valid"] as? [[String: Any]])
        let sends = try #require(file["sends"] as? [[String: Any]])
        #expect(sends.count > 10)
        for send in sends {
            let name = send["name"] as? String ?? "?"
            let source = try #require(directories.first { $0["name"] as? String == send["directory"] as? String }, "\(name)")
            let directory = try Self.directory(source["files"])
            let exchange = FileSystemExchange(rootDirectoryURL: directory.url, store: try Self.emptyStore())
            let version = try Self.version(send["version"]), changes = try Self.changes(send["changes"])
            let logBefore = try Self.logBytes(directory.url)
            let before = try await Self.listed(exchange)
            do {
                try await exchange.send(versionChanges: [(version: version, valueChanges: changes)])
                let after = try await Self.listed(exchange)
                switch send["outcome"] as? String {
                case "new":
                    // Listed once more, wherever the sender's new segment sorts among the others.
                    #expect(after.count == before.count + 1 && Set(after) == Set(before + [version.id]), "\(name)")
                    #expect(try Self.text(try #require(try await exchange.retrieveValueChanges(forVersionsIdentifiedBy: [version.id])[version.id]))
                            == send["changes"] as? String, "\(name)")
                case "alreadyLogged":
                    // Format 2 leaves a logged version out; format 1 may log it again, a repeat
                    // readers skip (SPEC.md section 11).
                    let logAfter = try Self.logBytes(directory.url)
                    #expect(after == before, "\(name)")
                    #expect(source["format"] as? Int != 2 || logAfter == logBefore, "\(name): format 2 logged it again")
                default:
                    Issue.record("\(name): sent, expected \(send["outcome"] ?? "?")")
                }
            } catch {
                #expect(send["outcome"] as? String == "conflictingVersion" && Self.name(of: error) == "conflictingVersion", "\(name): \(error)")
                #expect(try Self.logBytes(directory.url) == logBefore, "\(name): logged after a conflict")
            }
        }
    }

    static func logBytes(_ root: URL) throws -> [String: Data] {
        let log = root.appendingPathComponent("log")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: log.path)) ?? []
        return try Dictionary(uniqueKeysWithValues: names.filter { !$0.hasPrefix(".") }.map { ($0, try Data(contentsOf: log.appendingPathComponent($0))) })
    }

    // MARK: Snapshots

    /// Each manifest as a file-system exchange publishes it, with its chunks, restored into
    /// an empty file store: valid ones give the archive's versions, invalid ones the error.
    @Test func snapshotManifests() async throws {
        let file = try ConformanceVectors.file("formats/snapshot-manifests.json")
        let valid = try #require(file["valid"] as? [[String: Any]]), invalid = try #require(file["invalid"] as? [[String: Any]])
        // The stores' folders, kept until the test ends (a store whose folder is gone would
        // write its packs into one made again, and leave it behind).
        var storeDirectories: [TemporaryDirectory] = []
        defer { withExtendedLifetime(storeDirectories) {} }
        func restore(_ vector: [String: Any]) async throws -> Store {
            let json = Data(try #require(vector["json"] as? String).utf8)
            let shared = try TemporaryDirectory()
            let snapshots = shared.url.appendingPathComponent("snapshots")
            try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
            try json.write(to: snapshots.appendingPathComponent("latest.json"))
            if let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any], let id = object["snapshotId"] as? String,
               SnapshotManifest.isPathSafe(snapshotId: id) {
                let folder = snapshots.appendingPathComponent(id)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for (index, hex) in ((vector["chunks"] as? [Any]) ?? []).enumerated() {
                    guard let hex = hex as? String else { continue }  // a missing chunk
                    try ConformanceVectors.bytes(hex).write(to: folder.appendingPathComponent(String(format: "chunk-%06d", index)))
                }
            }
            let storeDirectory = try TemporaryDirectory()
            storeDirectories.append(storeDirectory)
            let store = try Store(rootDirectoryURL: storeDirectory.url, storage: FileStorage())
            let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: store)
            let manifest = try #require(try await exchange.retrieveSnapshotManifest())
            #expect(try Self.text(manifest) == vector["json"] as? String, "\(vector["name"] ?? "?")")
            try await exchange.restoreSnapshot(manifest)
            return store
        }
        for vector in valid {
            let store = try await restore(vector)
            let manifest = try CanonicalJSON.decode(SnapshotManifest.self, from: Data(try #require(vector["json"] as? String).utf8))
            #expect(store.historyIncludesVersions(identifiedBy: [manifest.latestVersionId]), "\(vector["name"] ?? "?")")
            #expect(store.queryHistory { $0.allVersionIdentifiers }.count == manifest.versionCount, "\(vector["name"] ?? "?")")
        }
        #expect(invalid.count > 20)
        for vector in invalid {
            let name = vector["name"] as? String ?? "?"
            do {
                _ = try await restore(vector)
                Issue.record("\(name): restored")
            } catch {
                #expect(Self.name(of: error) == vector["error"] as? String, "\(name): \(error)")
                if case let .corruptSnapshotChunk(_, index) = error as? ExchangeError {
                    #expect(index == vector["chunkIndex"] as? Int, "\(name)")
                }
            }
        }
    }
}
