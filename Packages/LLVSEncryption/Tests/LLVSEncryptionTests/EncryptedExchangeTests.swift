import Crypto
import Foundation
import LLVSCore
import LLVSEncryption
import LLVSExchange
import LLVSMerge
import LLVSStore
import LLVSTesting
import Testing

/// What the other side of an encrypted exchange sees (nothing in the clear), what it cannot
/// do (tamper, swap, replay), and how versions of an epoch without a key wait.
@Suite struct EncryptedExchangeTests {
    let root: TemporaryDirectory

    init() throws {
        root = try TemporaryDirectory(prefix: "llvs-encrypted")
    }

    func makeStore() throws -> Store {
        try Store(rootDirectoryURL: root.url.appendingPathComponent("store-\(UUID().uuidString)"))
    }

    /// A corpus of versions whose every identifier, timestamp, metadata key and value is
    /// distinctive, on two branches and a merge.
    static func corpus(in store: Store) throws -> [Version] {
        var made: [Version] = []
        var metadata: Version.Metadata = [:]
        metadata[.init(rawValue: "author-Leakcheck-Metadata-Key")] = .init(data: Data("Leakcheck-Author-Name".utf8))
        let first = try store.makeVersion(basedOnPredecessor: nil, storing: (0..<20).map { index in
            .insert(Value(idString: "leak-value-\(index)", data: Data("Leakcheck secret number \(index) of twenty, with padding text".utf8)))
        }, metadata: metadata)
        made.append(first)
        var left = first.id, right = first.id
        for round in 0..<5 {
            let l = try store.makeVersion(basedOnPredecessor: left, storing: [
                .update(Value(idString: "leak-value-\(round)", data: Data("Left branch private note \(round) Leakcheck".utf8))),
            ])
            let r = try store.makeVersion(basedOnPredecessor: right, storing: [
                .update(Value(idString: "leak-value-\(round + 10)", data: Data((0..<64).map { UInt8(($0 * 13 + round) % 256) }))),
                .remove(.init("leak-value-\(round + 15)")),
            ])
            made += [l, r]
            left = l.id
            right = r.id
        }
        let merge = try store.merge(version: left, with: right, resolvingWith: MostRecentChangeFavoringArbiter())
        made.append(merge)
        return made
    }

    /// Every byte string that would betray the corpus: identifiers (raw, hex, base64),
    /// timestamps (as text and as seconds), metadata keys, every 8-byte window of every
    /// value.
    static func secrets(of store: Store, versions: [Version]) throws -> [(String, [UInt8])] {
        var needles: [(String, [UInt8])] = []
        func identifier(_ text: String) {
            let bytes = Array(text.utf8)
            needles.append(("id \(text)", bytes))
            needles.append(("hex of id \(text)", Array(bytes.map { String(format: "%02x", $0) }.joined().utf8)))
            needles.append(("base64 of id \(text)", Array(Data(bytes).base64EncodedString().dropLast(2).utf8)))
        }
        for version in versions {
            identifier(version.id.rawValue)
            version.predecessorIds.forEach { identifier($0.rawValue) }
            needles.append(("timestamp text of \(version.id)", Array("\(version.timestamp)".utf8)))
            needles.append(("timestamp seconds of \(version.id)", Array("\(Int(version.timestamp))".utf8)))
            withUnsafeBytes(of: version.timestamp.bitPattern.littleEndian) { needles.append(("timestamp bits of \(version.id)", Array($0))) }
            for (key, _) in version.metadata { needles.append(("metadata key \(key.rawValue)", Array(key.rawValue.utf8))) }
            for change in try store.valueChanges(madeInVersionIdentifiedBy: version.id) {
                identifier(change.valueId.rawValue)
                if case .insert(let value) = change, value.data.count >= 8 {
                    let bytes = [UInt8](value.data)
                    for start in 0...(bytes.count - 8) { needles.append(("value window of \(value.id) at \(start)", Array(bytes[start..<start + 8]))) }
                }
                if case .update(let value) = change, value.data.count >= 8 {
                    let bytes = [UInt8](value.data)
                    for start in 0...(bytes.count - 8) { needles.append(("value window of \(value.id) at \(start)", Array(bytes[start..<start + 8]))) }
                }
            }
        }
        return needles
    }

    /// The hits of `needles` in every file under `directory`.
    static func hits(of needles: [(String, [UInt8])], under directory: URL) throws -> [String] {
        var hits: [String] = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let data = try Data(contentsOf: url)
            hits += needles.filter { data.range(of: Data($0.1)) != nil }.map { "\($0.0) in \(url.lastPathComponent)" }
            // The file's name is on the other side too.
            hits += needles.filter { url.path.utf8.count >= $0.1.count && Data(url.path.utf8).range(of: Data($0.1)) != nil }.map { "\($0.0) in path \(url.path)" }
        }
        return hits
    }

    @Test(arguments: FileSystemExchange.DirectoryFormat.allCases)
    func aSharedDirectoryHoldsNoIdentifierTimestampMetadataKeyOrValueInTheClear(format: FileSystemExchange.DirectoryFormat) async throws {
        let sender = try makeStore(), receiver = try makeStore()
        let versions = try Self.corpus(in: sender)
        let shared = root.url.appendingPathComponent("shared-\(format)")
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        try await EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: shared, store: sender, newDirectoryFormat: format), keys: keys).send()

        let needles = try Self.secrets(of: sender, versions: versions)
        #expect(needles.count > 1_000)
        let hits = try Self.hits(of: needles, under: shared)
        #expect(hits.isEmpty, "\(hits.count) leaks, first \(hits.prefix(5))")

        let added = try await EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: shared, store: receiver), keys: keys).retrieve()
        #expect(Set(added) == Set(versions.map(\.id)))
        for version in versions {
            #expect(receiver.version(identifiedBy: version.id)?.timestamp == version.timestamp)
            #expect(try receiver.valueChanges(madeInVersionIdentifiedBy: version.id) == sender.valueChanges(madeInVersionIdentifiedBy: version.id))
        }
    }

    /// Blobs changed on the other side: each is refused with a typed error, and nothing
    /// from the retrieve is added.
    @Test(arguments: Tampering.allCases)
    func aTamperedBlobIsRefusedAndNothingIsAdded(_ tampering: Tampering) async throws {
        let sender = try makeStore(), receiver = try makeStore()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let versions = try Self.corpus(in: sender)
        let honest = MemoryExchangeSpace()
        try await EncryptedExchange(sealing: MemoryExchange(space: honest, store: sender), keys: keys).send()

        // The carriers as the other side holds them.
        let reader = MemoryExchange(space: honest, store: try makeStore())
        let names = try await reader.retrieveAllVersionIdentifiers()
        let records = try await reader.retrieveVersions(identifiedBy: names)
        let blobs = try await reader.retrieveValueChanges(forVersionsIdentifiedBy: names)
        func blob(_ name: Version.ID) throws -> Data {
            guard case .insert(let value)? = blobs[name]?.first else { throw EncryptionError.notSealed(name: name.rawValue, reason: "test") }
            return value.data
        }
        let (a, b) = (names[0], names[1])
        var replaced: [Version.ID: Data] = [:]
        switch tampering {
        case .flippedBit:
            var damaged = try blob(a)
            damaged[damaged.count / 2] ^= 0x10
            replaced[a] = damaged
        case .swappedBetweenNames:
            replaced[a] = try blob(b)
            replaced[b] = try blob(a)
        case .replayedFromAnotherStore:
            // The same version sealed for another store, put under this store's name.
            let other = try makeStore()
            let version = try #require(sender.version(identifiedBy: versions[0].id))
            _ = try other.addVersion(version, storing: try sender.valueChanges(madeInVersionIdentifiedBy: version.id))
            let foreignSpace = MemoryExchangeSpace()
            try await EncryptedExchange(sealing: MemoryExchange(space: foreignSpace, store: other), keys: EncryptionKeys(storeKey: StoreEncryptionKey())).send()
            let foreignReader = MemoryExchange(space: foreignSpace, store: try makeStore())
            let foreignName = try #require(try await foreignReader.retrieveAllVersionIdentifiers().first)
            guard case .insert(let value)? = try await foreignReader.retrieveValueChanges(forVersionsIdentifiedBy: [foreignName])[foreignName]?.first else {
                Issue.record("no foreign blob")
                return
            }
            let name = Version.ID(hex(keys.name(of: version.id)))
            replaced[name] = value.data
        case .truncated:
            replaced[a] = try blob(a).dropLast(7)
        }
        let forged = MemoryExchangeSpace()
        let writer = MemoryExchange(space: forged, store: try makeStore())
        try await writer.send(versionChanges: records.map { record in
            (record, replaced[record.id].map { [.insert(Value(id: EncryptedExchange.sealedValueId, data: $0))] } ?? (blobs[record.id] ?? []))
        })

        let exchange = EncryptedExchange(sealing: MemoryExchange(space: forged, store: receiver), keys: keys)
        await #expect(throws: EncryptionError.self) { try await exchange.retrieve() }
        #expect(receiver.queryHistory { $0.allVersionIdentifiers }.isEmpty, "something of a refused retrieve was added")
        #expect(exchange.restorationState == nil, "the cursor moved past a refused blob")
    }

    enum Tampering: String, CaseIterable, Sendable {
        case flippedBit, swappedBetweenNames, replayedFromAnotherStore, truncated
    }

    @Test func theSameDataInTwoStoresGivesOtherNamesAndBlobs() async throws {
        let first = try makeStore(), second = try makeStore()
        let versions = try Self.corpus(in: first)
        for id in first.queryHistory({ $0.versionIdentifiers(addedAt: 0..<$0.count) }) {
            let version = try #require(first.version(identifiedBy: id))
            _ = try second.addVersion(version, storing: try first.valueChanges(madeInVersionIdentifiedBy: version.id))
        }
        var carriers: [[Version.ID: Data]] = []
        for store in [first, second] {
            let space = MemoryExchangeSpace()
            try await EncryptedExchange(sealing: MemoryExchange(space: space, store: store), keys: EncryptionKeys(storeKey: StoreEncryptionKey())).send()
            let reader = MemoryExchange(space: space, store: try makeStore())
            let names = try await reader.retrieveAllVersionIdentifiers()
            let changes = try await reader.retrieveValueChanges(forVersionsIdentifiedBy: names)
            carriers.append(changes.compactMapValues { changes in
                if case .insert(let value)? = changes.first { return value.data }
                return nil
            })
        }
        #expect(carriers[0].count == versions.count && carriers[1].count == versions.count)
        #expect(Set(carriers[0].keys).isDisjoint(with: carriers[1].keys), "a name links the two stores")
        #expect(Set(carriers[0].values).isDisjoint(with: carriers[1].values), "a blob links the two stores")
    }

    /// Two replicas that hold the same version (the same merge, made on each) both send it:
    /// the other side keeps one blob, and neither send fails.
    @Test func twoReplicasSendingTheSameVersionUploadItOnce() async throws {
        let a = try makeStore(), b = try makeStore()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let version = Version(id: .init("same-merge"), timestamp: 1_234)
        let changes: [Value.Change] = [.insert(Value(idString: "x", data: Data("merged".utf8)))]
        _ = try a.addVersion(version, storing: changes)
        _ = try b.addVersion(version, storing: changes)
        let space = MemoryExchangeSpace()
        try await EncryptedExchange(sealing: MemoryExchange(space: space, store: a), keys: keys).send()
        // Offered straight from b's store, as a send that had not listed the other side would.
        let stored = try #require(b.version(identifiedBy: version.id))
        try await EncryptedExchange(sealing: MemoryExchange(space: space, store: b), keys: keys)
            .send(versionChanges: [(stored, try b.valueChanges(madeInVersionIdentifiedBy: version.id))])
        #expect(space.versionCount == 1)
    }

    /// Versions sealed under an epoch whose key a replica lacks wait: the retrieve adds the
    /// rest without an error, and a later retrieve adds them once the key has arrived.
    @Test func versionsOfAnEpochWithoutAKeyWaitAndArriveWithTheKey() async throws {
        let sender = try makeStore(), receiver = try makeStore()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let space = MemoryExchangeSpace()
        let senderExchange = EncryptedExchange(sealing: MemoryExchange(space: space, store: sender), keys: keys)
        let early = try sender.makeVersion(basedOnPredecessor: nil, storing: [.insert(Value(idString: "a", data: Data("early".utf8)))])
        try await senderExchange.send()

        let epochKey = SymmetricKey(size: .bits256)
        try senderExchange.updateKeys { $0 = try $0.adding(epoch: 1, key: epochKey, makingCurrent: true) }
        let late = try sender.makeVersion(basedOnPredecessor: early.id, storing: [.update(Value(idString: "a", data: Data("late".utf8)))])
        try await senderExchange.send()

        let receiving = EncryptedExchange(sealing: MemoryExchange(space: space, store: receiver), keys: keys)
        #expect(try await receiving.retrieve() == [early.id])
        #expect(receiving.pendingVersionCount == 1)
        #expect(try await receiving.retrieve().isEmpty, "a pending blob is listed again and waits again")
        #expect(receiving.pendingVersionCount == 1)

        try receiving.updateKeys { $0 = try $0.adding(epoch: 1, key: epochKey, makingCurrent: false) }
        #expect(try await receiving.retrieve() == [late.id])
        #expect(receiving.pendingVersionCount == 0)
        #expect(try receiver.value(idString: "a", at: late.id)?.data == Data("late".utf8))
    }

    /// What is on the other side is a carrier per version: no predecessors, timestamp 0,
    /// no metadata, one value.
    @Test func theOtherSideSeesOnlyCarriers() async throws {
        let sender = try makeStore()
        let versions = try Self.corpus(in: sender)
        let space = MemoryExchangeSpace()
        try await EncryptedExchange(sealing: MemoryExchange(space: space, store: sender), keys: EncryptionKeys(storeKey: StoreEncryptionKey())).send()
        let reader = MemoryExchange(space: space, store: try makeStore())
        let records = try await reader.retrieveVersions(identifiedBy: try await reader.retrieveAllVersionIdentifiers())
        #expect(records.count == versions.count)
        for record in records {
            #expect(record.predecessors == nil && record.timestamp == 0 && record.metadata.isEmpty)
            #expect(record.id.rawValue.utf8.count == 64 && record.id.rawValue.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
