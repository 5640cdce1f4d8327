import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSupport
import LLVSTesting
import LLVSZones
import PropertyBased
import Testing

/// Format 2 of the file-system exchange (SPEC.md section 11): one batch file per send, named
/// by its SHA-256, and log records naming it; format 1 directories keep their layout.
///
/// Replay a property failure by adding the `.fixedSeed("…")` trait the failure message prints.
@Suite struct ExchangeBatchFormatTests {
    /// The batch files of a directory.
    static func batchFiles(_ root: URL) -> [URL] {
        (FileManager.default.enumerator(at: root.appendingPathComponent("batches"), includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "batch" } ?? []).sorted { $0.path < $1.path }
    }

    /// A source store with `count` serial versions.
    static func source(_ count: Int) throws -> Replica {
        let source = try Replica("batch-source")
        for step in 0..<count { try source.save(["k\(step % 3)": "value \(step)"]) }
        return source
    }

    @Test func aNewDirectoryGetsOneBatchFileNamedByItsDigestPerSend() async throws {
        let source = try Self.source(5)
        let shared = try makeSharedDirectory()
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        #expect(try await exchange.send().count == 5)
        let marker = try String(decoding: Data(contentsOf: shared.url.appendingPathComponent("llvs-exchange.json")), as: UTF8.self)
        #expect(marker.hasPrefix(#"{"checksums":true,"format":"llvs-file-exchange","formatVersion":2,"identifier":""#), "\(marker)")
        #expect(!FileManager.default.fileExists(atPath: shared.url.appendingPathComponent("versions").path))
        #expect(!FileManager.default.fileExists(atPath: shared.url.appendingPathComponent("changes").path))
        let files = Self.batchFiles(shared.url)
        #expect(files.count == 1)
        for url in files {
            let digest = FileNaming.sha256Hex(try Data(contentsOf: url))
            #expect(url.lastPathComponent == digest + ".batch")
            #expect(url.deletingLastPathComponent().lastPathComponent == String(digest.prefix(2)))
            #expect(try Data(contentsOf: url).prefix(8) == Data("LLVSXBT1".utf8))
        }
        // One log record: 0xFF 0x01, the digest, the five identifiers.
        let log = shared.url.appendingPathComponent("log")
        let segment = try Data(contentsOf: log.appendingPathComponent(try #require(FileManager.default.contentsOfDirectory(atPath: log.path).first)))
        #expect(segment.prefix(8) == Data("LLVSLOG1".utf8))
        #expect(Array(segment.dropFirst(12).prefix(2)) == [0xFF, 0x01])

        try source.save(["k0": "later"])
        try source.save(["k1": "later"])
        #expect(try await exchange.send().count == 2)
        #expect(Self.batchFiles(shared.url).count == 2, "one more send, one more file")
        let target = try Replica("batch-target")
        #expect(try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve().count == 7)
        #expect(target.versionIds == source.versionIds)
        #expect(try target.texts() == source.texts())
    }

    /// Parts a folder exchange prepared (``FolderExchange/prepare(forSending:)`` encodes each
    /// version's entry), joined, make byte for byte the batch file a send of the same
    /// versions writes (a batch file is named by its SHA-256); a part prepared by no folder,
    /// or carrying another part's work, is encoded when sent; a prepared version the log holds with other content is refused
    /// as in any send, and nothing is written.
    @Test func aBatchOfPreparedPartsIsTheBatchFileASendWrites() async throws {
        let source = try Self.source(9)
        let shipped: [VersionChanges] = try source.store.queryHistory { $0.versionIdentifiers(addedAt: 0..<$0.count) }.map { id in
            (try #require(source.store.version(identifiedBy: id)), try source.store.valueChanges(madeInVersionIdentifiedBy: id))
        }
        let sent = try makeSharedDirectory(), joined = try makeSharedDirectory()
        try await FileSystemExchange(rootDirectoryURL: sent.url, store: source.store).send(versionChanges: shipped)
        let exchange = FileSystemExchange(rootDirectoryURL: joined.url, store: source.store)
        let parts = [Array(shipped[..<3]), Array(shipped[3..<6]), Array(shipped[6...])]
        let prepared = try parts.map { try exchange.prepare(forSending: $0) }
        #expect(prepared.allSatisfy { $0.work != nil }, "each part's entries encoded ahead")
        #expect(PreparedBatch(joining: prepared).workOfEachPart(as: (any Sendable).self)?.count == 3)
        // A part prepared by no folder, or with the work of another part (entries of other
        // versions), is encoded when sent: each gives the file a plain send writes.
        for stranger in [PreparedBatch(versionChanges: parts[1]), PreparedBatch(versionChanges: parts[1], work: prepared[0].work)] {
            let directory = try makeSharedDirectory()
            try await FileSystemExchange(rootDirectoryURL: directory.url, store: source.store)
                .send(prepared: PreparedBatch(joining: [prepared[0], stranger, prepared[2]]))
            #expect(Self.batchFiles(directory.url).map(\.lastPathComponent) == Self.batchFiles(sent.url).map(\.lastPathComponent))
            #expect(PreparedBatch(joining: [prepared[0], stranger]).workOfEachPart(as: Int.self) == nil)
        }
        try await exchange.send(prepared: PreparedBatch(joining: prepared))
        let files = Self.batchFiles(joined.url)
        #expect(files.count == 1)
        #expect(files.map(\.lastPathComponent) == Self.batchFiles(sent.url).map(\.lastPathComponent))

        // One part, prepared and sent alone, is its own batch file; sent again, nothing changes.
        try source.save(["k0": "later"])
        let later = try #require(source.store.queryHistory { $0.versionIdentifiers(addedAt: ($0.count - 1)..<$0.count) }.first)
        let laterChanges: [VersionChanges] = [(try #require(source.store.version(identifiedBy: later)), try source.store.valueChanges(madeInVersionIdentifiedBy: later))]
        try await exchange.send(prepared: try exchange.prepare(forSending: laterChanges))
        try await exchange.send(prepared: try exchange.prepare(forSending: laterChanges))
        #expect(Self.batchFiles(joined.url).count == 2)
        let before = fileListing(joined.url)
        var other = laterChanges[0].version
        other.timestamp += 1
        let error = await #expect(throws: ExchangeError.self) {
            try await exchange.send(prepared: try exchange.prepare(forSending: [(other, laterChanges[0].valueChanges)]))
        }
        guard case .conflictingVersion(let id, _)? = error else {
            Issue.record("expected conflictingVersion, got \(String(describing: error))")
            return
        }
        #expect(id == later)
        #expect(fileListing(joined.url) == before)
        let reader = try Replica("prepared-reader")
        #expect(try await FileSystemExchange(rootDirectoryURL: joined.url, store: reader.store).retrieve().count == 10)
        #expect(try reader.texts() == source.texts())
    }

    /// A directory an LLVS from before format 2 made (marker of format 1) is read and
    /// written in format 1 by this one: two JSON files per version, a log of identifiers,
    /// no batch file, the marker untouched.
    @Test func aDirectoryOfFormat1IsStillReadAndWrittenInFormat1() async throws {
        let source = try Self.source(3)
        let shared = try makeSharedDirectory(.versionFiles)
        let markerURL = shared.url.appendingPathComponent("llvs-exchange.json")
        let marker = try Data(contentsOf: markerURL)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        try source.save(["k9": "new"])
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try await exchange.send()
        #expect(try exchange.prepare(forSending: []).work == nil, "format 1 has no batch entries to encode ahead")
        #expect(try Data(contentsOf: markerURL) == marker)
        #expect(Self.batchFiles(shared.url).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: shared.url.appendingPathComponent("batches").path))
        for id in source.versionIds {
            for folder in ["versions", "changes"] {
                let url = shared.url.appendingPathComponent(folder).appendingPathComponent(FileNaming.shardName(for: id))
                    .appendingPathComponent(FileNaming.directoryName(for: id) + ".json")
                #expect(try String(decoding: Data(contentsOf: url), as: UTF8.self).hasPrefix(#"{"checksum":""#), "\(url.path)")
            }
        }
        // The log holds identifiers, as readers of format 1 expect.
        let listed = try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).retrieveAllVersionIdentifiers()
        #expect(Set(listed) == source.versionIds)
        let target = try Replica("format1-target")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        #expect(target.versionIds == source.versionIds)
        #expect(try target.texts() == source.texts())
    }

    @Test func aFormatThisLibraryDoesNotKnowIsRefused() async throws {
        let shared = try makeSharedDirectory()
        let markerURL = shared.url.appendingPathComponent("llvs-exchange.json")
        try Data(#"{"checksums":true,"format":"llvs-file-exchange","formatVersion":3,"identifier":"x"}"#.utf8).write(to: markerURL)
        let target = try Replica("format3-target")
        await #expect(throws: ExchangeError.unsupportedFormat(location: markerURL.path, found: "llvs-file-exchange version 3")) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        }
    }

    /// A flipped byte or a truncated batch fails the retrieve with `damagedFile` naming the
    /// file, before any version of it is added; a missing one with `missingVersion`.
    @Test(arguments: ["flipped", "truncated", "missing"])
    func aDamagedBatchFileGivesAnErrorNamingIt(_ damage: String) async throws {
        let source = try Self.source(4)
        let shared = try makeSharedDirectory()
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        let url = try #require(Self.batchFiles(shared.url).first)
        var bytes = try Data(contentsOf: url)
        switch damage {
        case "flipped":
            bytes[bytes.count / 2] ^= 0x10
            try bytes.write(to: url)
        case "truncated": try bytes.prefix(bytes.count - 1).write(to: url)
        default: try FileManager.default.removeItem(at: url)
        }
        let target = try Replica("damaged-target")
        do {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
            Issue.record("a damaged batch must fail the retrieve")
        } catch let ExchangeError.damagedFile(version, location, reason) {
            #expect(damage != "missing")
            #expect(location == url.path)
            #expect(source.versionIds.contains(version))
            #expect(reason.contains("SHA-256"), "\(reason)")
        } catch let ExchangeError.missingVersion(version) {
            #expect(damage == "missing")
            #expect(source.versionIds.contains(version))
        }
        #expect(target.versionIds.isEmpty)
    }

    /// A sender killed after writing its batch file but before logging it leaves a file
    /// nobody reads; the next send of the same versions reuses it (the same name is the
    /// same content) or, if the kill left it damaged, writes it again.
    @Test(arguments: [false, true])
    func aSenderKilledBeforeLoggingLeavesNothingListed(damaged: Bool) async throws {
        let source = try Self.source(4)
        let complete = try makeSharedDirectory()
        try await FileSystemExchange(rootDirectoryURL: complete.url, store: source.store).send()
        let batch = try #require(Self.batchFiles(complete.url).first)

        // The killed sender's directory: the marker and the batch file, nothing logged.
        let shared = try makeSharedDirectory()
        let target = try Replica("killed-target")
        let reader = FileSystemExchange(rootDirectoryURL: shared.url, store: target.store)
        try await reader.prepareToRetrieve()
        let relative = String(batch.path.dropFirst(complete.url.path.count + 1))
        let copy = shared.url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        let bytes = try Data(contentsOf: batch)
        try (damaged ? bytes.prefix(bytes.count / 3) : bytes).write(to: copy)
        #expect(try await reader.retrieveAllVersionIdentifiers().isEmpty)
        #expect(try await reader.retrieve().isEmpty)

        #expect(try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send().count == 4)
        #expect(Self.batchFiles(shared.url) == [copy], "the same file, reused")
        #expect(try Data(contentsOf: copy) == bytes)
        #expect(try await reader.retrieve().count == 4)
        #expect(target.versionIds == source.versionIds)
    }

    /// A logged version sent again with the same content is a no-op (no file, no record);
    /// with another record or other changes it is refused and nothing is written.
    @Test func aLoggedVersionIsNeverWrittenAgain() async throws {
        let source = try Replica("resend-source")
        let version = try source.save(["k": "first"])
        let shared = try makeSharedDirectory()
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: source.store)
        try await exchange.send()
        let before = fileListing(shared.url)

        let changes = try source.store.valueChanges(madeInVersionIdentifiedBy: version.id)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send(versionChanges: [(version, changes)])
        #expect(fileListing(shared.url) == before)
        var other = version
        other.timestamp += 1
        let otherChanges = [Value.Change.update(Value(idString: "k", data: Data("second".utf8)))]
        for (record, recordChanges) in [(other, changes), (version, otherChanges)] {
            let error = await #expect(throws: ExchangeError.self) { try await exchange.send(versionChanges: [(record, recordChanges)]) }
            guard case .conflictingVersion(let id, let location)? = error else {
                Issue.record("expected conflictingVersion, got \(String(describing: error))")
                continue
            }
            #expect(id == version.id)
            #expect(location == Self.batchFiles(shared.url).first?.path)
        }
        #expect(fileListing(shared.url) == before)
        let reader = try Replica("resend-reader")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: reader.store).retrieve()
        #expect(try reader.texts(at: version.id) == ["k": "first"])
    }

    /// Identifiers are any UTF-8, stored byte for byte: NUL, 10,000 characters, canonically
    /// equivalent spellings, path-like text, the empty one.
    @Test func hostileIdentifiersRoundTripThroughBatches() async throws {
        let hostile = ["nul\u{0}byte", String(repeating: "x", count: 10_000), "caf\u{E9}", "cafe\u{301}", "../../escape", "/etc/passwd",
                       "", "\u{1F600}", " space ", "\u{0}"]
        let source = try Replica("hostile-source")
        var previous: Version.ID?
        for (index, id) in hostile.enumerated() {
            let version = Version(id: Version.ID("v" + id), predecessors: previous.map { .init(idOfFirst: $0) }, timestamp: Double(index),
                                  metadata: [Version.MetadataKey(rawValue: "m" + id): .init(data: Data(id.utf8))])
            try source.store.addVersion(version, storing: [.insert(Value(id: Value.ID(id), data: Data("\(index)|".utf8) + Data(id.utf8)))])
            previous = version.id
        }
        let shared = try makeSharedDirectory()
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        let target = try Replica("hostile-target")
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: target.store)
        let listed = try await exchange.retrieveAllVersionIdentifiers()
        #expect(sortedBytes(listed.map(\.rawValue)) == sortedBytes(hostile.map { "v" + $0 }))
        try await exchange.retrieve()
        #expect(target.versionIds == source.versionIds)
        for id in source.versionIds {
            let sent = try #require(source.store.version(identifiedBy: id))
            let added = try #require(target.store.version(identifiedBy: id))
            #expect(added.hasSameRecord(as: sent), "\(id.rawValue.utf8.count) bytes")
            #expect(try target.store.valueChanges(madeInVersionIdentifiedBy: id) == source.store.valueChanges(madeInVersionIdentifiedBy: id))
        }
        let head = try #require(previous)
        for (index, id) in hostile.enumerated() {
            let value = try target.store.value(id: Value.ID(id), at: head)
            #expect(value?.data == Data("\(index)|".utf8) + Data(id.utf8), "value \(index)")
        }
    }

    // MARK: Property

    /// Strings over a range with control characters, `/`, `.`, NUL and combining marks.
    static let idString = Gen.unicodeScalar(in: "\u{0}"..."\u{36F}").map(Character.init).string(of: 0...8)
    static let data = Gen<UInt8>.value(in: 0...255).array(of: 0...12).map { Data($0) }

    static let change = zip(Gen.int(in: 0...5), idString, data, idString).map { kind, id, data, other -> Value.Change in
        switch kind {
        case 0: return .insert(Value(id: Value.ID(id), data: data))
        case 1: return .update(Value(id: Value.ID(id), data: data, storedVersionId: Version.ID(other)))
        case 2: return .remove(Value.ID(id))
        case 3: return .preserve(.init(valueId: Value.ID(id), storedVersionId: Version.ID(other)))
        case 4: return .insert(Value(id: Value.ID(id), data: data, storedVersionId: Version.ID(other)))
        default: return .preserveRemoval(Value.ID(id))
        }
    }

    /// One version: its identifier suffix, predecessor count and names, timestamp, size,
    /// metadata (key, bytes), changes.
    static let entry = zip(idString, Gen.int(in: 0...2), idString, Gen.double(in: -1e9...1e10), Gen<Int64>.value(in: -1...1_000_000),
                           zip(idString, data).array(of: 0...3), change.array(of: 0...6))

    /// Up to eight versions with distinct identifiers, as one send would ship them.
    static let batch = entry.array(of: 1...8).map { entries -> [VersionChanges] in
        entries.enumerated().map { index, entry -> VersionChanges in
            let (suffix, predecessorCount, predecessor, timestamp, size, metadata, changes) = entry
            let predecessors: Version.Predecessors? = switch predecessorCount {
            case 0: nil
            case 1: .init(idOfFirst: Version.ID("p" + predecessor))
            default: .init(idOfFirst: Version.ID("p" + predecessor), idOfSecond: Version.ID("q" + predecessor))
            }
            var keyed: Version.Metadata = [:]
            for (key, value) in metadata { keyed[Version.MetadataKey(rawValue: key)] = .init(data: value) }
            let version = Version(id: Version.ID("v\(index)-" + suffix), predecessors: predecessors, timestamp: timestamp,
                                  valueDataSize: size < 0 ? nil : size, metadata: keyed)
            return (version, changes)
        }
    }

    /// `LLVS_PROPERTY_CASES` lowers the count (the thread-sanitizer run of `Scripts/test --extended`).
    static func cases(_ count: Int) -> Int {
        ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
    }

    /// Random batches sent through a directory of format 2 come back as they were sent:
    /// every record field and every change, identifiers byte for byte (a fresh directory
    /// per case, each batch one file; 300 cases).
    @Test func randomBatchesRoundTripThroughADirectory() async throws {
        let store = try Replica("batch-property", backend: .memory).store
        await propertyCheck(count: Self.cases(300), input: Self.batch) { sent in
            let shared = try makeSharedDirectory()
            let sender = FileSystemExchange(rootDirectoryURL: shared.url, store: store)
            try await sender.send(versionChanges: sent)
            let reader = FileSystemExchange(rootDirectoryURL: shared.url, store: store)
            let ids = sent.map(\.version.id)
            #expect(try await reader.retrieveAllVersionIdentifiers().map { Array($0.rawValue.utf8) } == ids.map { Array($0.rawValue.utf8) })
            let versions = try await reader.retrieveVersions(identifiedBy: ids.reversed())
            let changes = try await reader.retrieveValueChanges(forVersionsIdentifiedBy: ids)
            #expect(versions.count == sent.count)
            for (version, valueChanges) in sent {
                let read = try #require(versions.first { $0.id.rawValue.utf8.elementsEqual(version.id.rawValue.utf8) })
                #expect(read.hasSameRecord(as: version))
                #expect(read.timestamp.bitPattern == version.timestamp.bitPattern)
                #expect(sortedBytes(read.metadata.keys.map(\.rawValue)) == sortedBytes(version.metadata.keys.map(\.rawValue)))
                #expect(changes[version.id] == valueChanges)
            }
            // Sending the same batch again is a no-op.
            let before = fileListing(shared.url)
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: store).send(versionChanges: sent)
            #expect(fileListing(shared.url) == before)
        }
    }

    /// Edits of an encoded batch: each (where, mask, cut) flips the bits of `mask` at byte
    /// `where` (modulo the length), or, with `cut`, drops the bytes from there.
    static let edits = zip(Gen.int(in: 0...100_000), Gen.int(in: 0...255), Gen.int(in: 0...9)).array(of: 1...3)

    /// `ExchangeBatch.parse`, which makes only the records and checks the changes without
    /// making them, accepts exactly what `decode` accepts, and gives the same versions and
    /// changes: random batches with one to three bits flipped or cut short (300 cases). A
    /// sealed version is checked whole by `parse` before a retrieve adds anything, and its
    /// changes are made later, so a difference would let a malformed blob be half added.
    @Test func parsingAcceptsExactlyWhatDecodingAccepts() async {
        let tally = Locked((accepted: 0, refused: 0))
        await propertyCheck(count: Self.cases(300), input: zip(Self.batch, Self.edits)) { sent, edits in
            var bytes = [UInt8](ExchangeBatch.encode(sent))
            for (position, mask, cut) in edits where !bytes.isEmpty {
                let index = position % bytes.count
                if cut == 0 { bytes.removeSubrange(index...) } else { bytes[index] ^= UInt8(max(1, mask)) }
            }
            let data = Data(bytes)
            // Parsed from a slice of larger bytes (as a sealed blob's payload is), decoded
            // from a copy: offsets within the slice are the batch's own.
            let framing = edits.first.map { $0.0 % 64 } ?? 0
            let framed = Data(repeating: 0xEE, count: framing) + data + Data(repeating: 0xEE, count: framing)
            let decoded = Result { () throws(ExchangeError) in try ExchangeBatch.decode(data, location: "test") }
            let parsed = Result { () throws(ExchangeError) in
                try ExchangeBatch.parse(framed[(framed.startIndex + framing)..<(framed.endIndex - framing)], location: "test")
            }
            switch (decoded, parsed) {
            case (.success(let versionChanges), .success(let batch)):
                tally.withLock { $0.accepted += 1 }
                #expect(batch.versions.map(\.id) == versionChanges.map(\.version.id))
                for ((version, changes), parsedVersion) in zip(versionChanges, batch.versions) {
                    #expect(parsedVersion.hasSameRecord(as: version))
                    #expect((try? batch.changes(of: version.id)) == changes)
                }
            case (.failure(let decodeError), .failure(let parseError)):
                tally.withLock { $0.refused += 1 }
                #expect(decodeError.description == parseError.description, "both name the same fault")
            default:
                Issue.record("decode \(decoded), parse \(parsed) for edits \(edits)")
            }
        }
        let result = tally.withLock { $0 }
        print("batch parsing: \(result.accepted) edited batches accepted by both, \(result.refused) refused by both")
        #expect(result.refused > 0)
    }
}

/// The UTF-8 bytes of `strings`, sorted byte-wise (the order a hostile identifier keeps
/// whatever its Unicode).
func sortedBytes(_ strings: [String]) -> [[UInt8]] {
    strings.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
}
