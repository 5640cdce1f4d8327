import Crypto
import Foundation
import LLVSCore
@testable import LLVSEncryption
import LLVSEncryptionTesting
import LLVSExchange
import LLVSExchangeTesting
import LLVSStore
import LLVSStoreTesting
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

    /// A new store holding `count` versions in a chain, each inserting one value of
    /// `valueByteCount` zero bytes, and the last version's identifier.
    func makeChain(of count: Int, valueByteCount: Int) throws -> (store: Store, tip: Version.ID?) {
        let store = try makeStore()
        var tip: Version.ID?
        for step in 0..<count {
            tip = try store.makeVersion(basedOnPredecessor: tip, inserting: [Value(idString: "v\(step)", data: Data(count: valueByteCount))]).id
        }
        return (store, tip)
    }

    /// A send seals batches of at most ``EncryptedExchange/sealingBatchByteCount`` bytes of
    /// value data (each sealed while the next is read); a retrieve fetches and opens batches
    /// as large as the transport takes, and adds them as large too (their changes are made
    /// while the group of blobs before them is added).
    @Test func sendsSealSmallBatchesAndRetrievesTakeTheTransportsBatches() async throws {
        let (sender, tip) = try makeChain(of: 12, valueByteCount: 100_000), receiver = try makeStore()
        let space = MemoryExchangeSpace()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let carriers = FaultyExchange(MemoryExchange(space: space, store: sender))
        let exchange = EncryptedExchange(sealing: carriers, keys: keys)
        #expect(exchange.sendBatchByteCount == EncryptedExchange.sealingBatchByteCount)
        #expect(exchange.firstSendBatchByteCount == EncryptedExchange.firstSealingBatchByteCount)
        #expect(exchange.firstRetrieveBatchByteCount == exchange.maximumBatchByteCount)
        #expect(exchange.maximumBatchByteCount == carriers.maximumBatchByteCount)
        #expect(try await exchange.send().count == 12)
        // 100 kB versions, the two ends taking turns (the smaller limit first): the first
        // batches within 64 and 128 KiB (one each), the last four within 216, 144, 96 and 64
        // KiB (two, one, one, one), and the five between in two within 324 KiB.
        #expect(carriers.sentBatches.map(\.count) == [1, 1, 3, 2, 2, 1, 1, 1])
        let fetching = FaultyExchange(MemoryExchange(space: space, store: receiver))
        let adding = FaultyExchange(EncryptedExchange(sealing: fetching, keys: keys))
        #expect(try await adding.retrieve().count == 12)
        #expect(fetching.callCount("retrieveValueChanges") == 1, "1.2 MB of blobs fit one batch of 5 MB")
        // One group of blobs (fewer than 64), one batch of 1.2 MB.
        #expect(adding.retrievedBatches.map(\.count) == [12])
        #expect(try receiver.valueReferences(at: #require(tip)).count == 12)
    }

    /// Through a transport that prefers few batches (a WebDAV folder, a directory), a send
    /// seals the same small parts as over memory, each while the next is read, and the
    /// transport gets them joined: one batch for what fits its maximum.
    @Test func aTransportPreferringFewBatchesGetsThePartsSealedJoined() async throws {
        let (sender, tip) = try makeChain(of: 12, valueByteCount: 100_000), receiver = try makeStore()
        let space = MemoryExchangeSpace()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let carriers = FaultyExchange(MemoryExchange(space: space, store: sender), prefersFewBatches: true)
        let exchange = EncryptedExchange(sealing: carriers, keys: keys)
        #expect(exchange.prefersFewBatches)
        #expect(exchange.sendBatchByteCount == EncryptedExchange.sealingBatchByteCount)
        #expect(exchange.firstSendBatchByteCount == EncryptedExchange.firstSealingBatchByteCount)
        let sealing = FaultyExchange(exchange)
        #expect(try await sealing.send().count == 12)
        #expect(sealing.callCount("prepare") == 8, "sealed in the parts a send over memory sends: 1, 1, 3, 2, 2, 1, 1, 1 versions")
        #expect(carriers.sentBatches.map(\.count) == [12], "1.2 MB of blobs joined into one batch within 5 MB")
        #expect(try await EncryptedExchange(sealing: MemoryExchange(space: space, store: receiver), keys: keys).retrieve().count == 12)
        #expect(try receiver.valueReferences(at: #require(tip)).count == 12)
        // A directory prefers few batches too: each costs a file, a log record and their syncs.
        let directory = FaultyExchange(FileSystemExchange(rootDirectoryURL: root.url.appendingPathComponent("shared"), store: sender))
        #expect(directory.prefersFewBatches)
        let sealedToDirectory = FaultyExchange(EncryptedExchange(sealing: directory, keys: keys))
        #expect(try await sealedToDirectory.send().count == 12)
        #expect(sealedToDirectory.callCount("prepare") == 8)
        #expect(directory.sentBatches.map(\.count) == [12])
    }

    /// A batch joining parts puts the blobs each part was sealed into (sealed once: a second
    /// sealing has other nonces); parts sealed under two epochs are sealed again.
    @Test func aJoinedBatchPutsTheBlobsItsPartsSealed() async throws {
        let store = try makeStore()
        var versionChanges: [VersionChanges] = []
        for step in 0..<4 {
            let version = try store.makeVersion(basedOnPredecessor: versionChanges.last?.version.id,
                                                inserting: [Value(idString: "v\(step)", data: Data("value \(step)".utf8))])
            versionChanges.append((version, try store.valueChanges(madeInVersionIdentifiedBy: version.id)))
        }
        let space = MemoryExchangeSpace()
        let exchange = EncryptedExchange(sealing: MemoryExchange(space: space, store: store), keys: EncryptionKeys(storeKey: StoreEncryptionKey()))
        let parts = [try exchange.prepare(forSending: Array(versionChanges[..<1])), try exchange.prepare(forSending: Array(versionChanges[1...]))]
        try await exchange.send(prepared: PreparedBatch(joining: parts))
        let sealed = parts.compactMap { $0.work as? EncryptedExchange.SealedBatch }.flatMap(\.blobs)
        #expect(sealed.count == 4)
        let carriers = try await SealedCarriers(in: space, readingWith: try makeStore())
        #expect(carriers.names.count == 4)
        for blob in sealed { #expect(try carriers.blob(Version.ID(blob.name)) == blob.data) }
        let newerEpoch = PreparedBatch(versionChanges: [], work: EncryptedExchange.SealedBatch(epoch: 1, versionIds: [], blobs: []))
        #expect(EncryptedExchange.sealedBatch(of: PreparedBatch(joining: [parts[0], newerEpoch])) == nil)
        #expect(EncryptedExchange.sealedBatch(of: PreparedBatch(joining: [parts[0], PreparedBatch(versionChanges: [])])) == nil)
        #expect(EncryptedExchange.sealedBatch(of: PreparedBatch(joining: parts))?.versionIds == versionChanges.map(\.version.id))
    }

    /// Carriers prepared ahead (a folder encodes their batch entries while the next part is
    /// sealed) go in one send; one the directory holds with other bytes is left out and
    /// reported, as a put of unprepared blobs reports it, and the rest is stored.
    @Test func preparedCarriersHeldWithOtherBytesAreReportedAndTheRestStored() async throws {
        let transport = CarrierBlobTransport(FileSystemExchange(rootDirectoryURL: root.url.appendingPathComponent("carriers"), store: try makeStore()))
        let held = (name: String(repeating: "a", count: 64), data: Data("the bytes held".utf8))
        #expect(try await transport.put([held], writeToken: nil) == [])
        let blobs = [(name: held.name, data: Data("other bytes".utf8)), (name: String(repeating: "b", count: 64), data: Data("new".utf8))]
        let prepared = try #require(try transport.prepare(forPutting: blobs))
        #expect(prepared.work != nil, "the directory encoded the carriers' entries")
        #expect(try await transport.put(blobs, prepared: prepared, writeToken: nil) == [held.name])
        #expect(try await transport.blobs(named: blobs.map(\.name)) == [held.name: held.data, blobs[1].name: blobs[1].data])
        let more = [(name: String(repeating: "c", count: 64), data: Data("more".utf8))]
        #expect(try await transport.put(Array(blobs[1...]), prepared: try #require(try transport.prepare(forPutting: Array(blobs[1...]))), writeToken: nil) == [],
                "the same bytes again are no conflict")
        // Carriers prepared for other blobs (or other bytes) are not sent: the blobs given are.
        let forOthers = try #require(try transport.prepare(forPutting: [(name: more[0].name, data: Data("not these".utf8))]))
        #expect(try await transport.put(more, prepared: forOthers, writeToken: nil) == [])
        #expect(try await transport.blobs(named: [more[0].name]) == [more[0].name: more[0].data])
    }

    /// A listing fetches the blobs in groups of 64 names, then 256, then 1,000, each fetched
    /// while the group before is opened and opened while the group before it is added;
    /// everything still arrives, in order, and is added, a group at a time.
    @Test func aListingFetchesBlobsInGrowingGroups() async throws {
        let (sender, tip) = try makeChain(of: 300, valueByteCount: 10), receiver = try makeStore()
        let space = MemoryExchangeSpace()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        #expect(try await EncryptedExchange(sealing: MemoryExchange(space: space, store: sender), keys: keys).send().count == 300)
        let fetching = FaultyExchange(MemoryExchange(space: space, store: receiver))
        let adding = FaultyExchange(EncryptedExchange(sealing: fetching, keys: keys))
        #expect(try await adding.retrieve().count == 300)
        #expect(fetching.retrievedBatches.map(\.count) == [64, 236])
        #expect(adding.retrievedBatches.map(\.count) == [64, 236])
        #expect(try receiver.valueReferences(at: #require(tip)).count == 300)
    }

    @Test(arguments: FileSystemExchange.DirectoryFormat.allCases)
    func aSharedDirectoryHoldsNoIdentifierTimestampMetadataKeyOrValueInTheClear(format: FileSystemExchange.DirectoryFormat) async throws {
        let sender = try makeStore(), receiver = try makeStore()
        let versions = try LeakCheck.makeCorpus(in: sender)
        let shared = root.url.appendingPathComponent("shared-\(format)")
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        try await EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: shared, store: sender, newDirectoryFormat: format), keys: keys).send()

        let needles = try LeakCheck.needles(of: versions, in: sender)
        #expect(needles.count > 1_000)
        let hits = try LeakCheck.hits(of: needles, under: shared)
        #expect(hits.isEmpty, "\(hits.count) leaks, first \(hits.prefix(5))")

        // The same search finds the corpus in a directory it was sent to in the clear.
        let clear = root.url.appendingPathComponent("clear-\(format)")
        try await FileSystemExchange(rootDirectoryURL: clear, store: sender, newDirectoryFormat: format).send()
        let clearHits = try LeakCheck.hits(of: needles, under: clear)
        #expect(LeakCheck.findsEveryVersionIdentifier(of: versions, in: clearHits), "the search missed the corpus sent in the clear")

        let added = try await EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: shared, store: receiver), keys: keys).retrieve()
        #expect(Set(added) == Set(versions.map(\.id)))
        for version in versions {
            #expect(receiver.version(identifiedBy: version.id)?.timestamp == version.timestamp)
            #expect(try receiver.valueChanges(madeInVersionIdentifiedBy: version.id) == sender.valueChanges(madeInVersionIdentifiedBy: version.id))
        }
    }

    /// Blobs changed on the other side, a shared directory or memory: each is refused with
    /// a typed error, and nothing from the retrieve is added (the corpus is fewer than 64
    /// versions: one group of blobs). (The blind server's store runs
    /// a forged blob in `LLVSHTTPTests.BlindStoreTests`.)
    @Test(arguments: Tampering.allCases, Carriers.allCases)
    func aTamperedBlobIsRefusedAndNothingIsAdded(_ tampering: Tampering, carriers: Carriers) async throws {
        let sender = try makeStore(), receiver = try makeStore()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let versions = try LeakCheck.makeCorpus(in: sender)
        let honest = MemoryExchangeSpace()
        try await EncryptedExchange(sealing: MemoryExchange(space: honest, store: sender), keys: keys).send()

        let held = try await SealedCarriers(in: honest, readingWith: try makeStore())
        let (a, b) = (held.names[0], held.names[1])
        var replaced: [Version.ID: Data] = [:]
        switch tampering {
        case .flippedBit:
            var damaged = try held.blob(a)
            damaged[damaged.count / 2] ^= 0x10
            replaced[a] = damaged
        case .swappedBetweenNames:
            replaced[a] = try held.blob(b)
            replaced[b] = try held.blob(a)
        case .replayedFromAnotherStore:
            // The same version sealed for another store, put under this store's name.
            let other = try makeStore()
            let version = try #require(sender.version(identifiedBy: versions[0].id))
            _ = try other.addVersion(version, storing: try sender.valueChanges(madeInVersionIdentifiedBy: version.id))
            let foreignSpace = MemoryExchangeSpace()
            try await EncryptedExchange(sealing: MemoryExchange(space: foreignSpace, store: other), keys: EncryptionKeys(storeKey: StoreEncryptionKey())).send()
            let foreign = try await SealedCarriers(in: foreignSpace, readingWith: try makeStore())
            let name = Version.ID(hex(keys.name(of: version.id)))
            replaced[name] = try foreign.blob(try #require(foreign.names.first))
        case .truncated:
            replaced[a] = try held.blob(a).dropLast(7)
        }
        let forged = carriers.location(under: root.url)
        try await held.send(to: forged(try makeStore()), replacing: replaced)

        let exchange = EncryptedExchange(sealing: forged(receiver), keys: keys)
        await #expect(throws: EncryptionError.self) { try await exchange.retrieve() }
        #expect(receiver.queryHistory { $0.allVersionIdentifiers }.isEmpty, "something of a refused retrieve was added")
        #expect(exchange.restorationState == nil, "the cursor moved past a refused blob")
    }

    /// A retrieve adds the blobs it opens group by group (64 names, then 256, then 1,000): a
    /// blob refused in a later group stops it with a typed error, with nothing of that group
    /// added and the groups before it (every blob of them opened and checked) kept; the
    /// cursor stays, so the next retrieve lists the refused blob again.
    @Test(arguments: Carriers.allCases)
    func aBlobRefusedInALaterGroupLeavesNothingOfItsGroupAdded(carriers: Carriers) async throws {
        let (sender, _) = try makeChain(of: 100, valueByteCount: 10), receiver = try makeStore()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let honest = MemoryExchangeSpace()
        try await EncryptedExchange(sealing: MemoryExchange(space: honest, store: sender), keys: keys).send()
        let held = try await SealedCarriers(in: honest, readingWith: try makeStore())
        #expect(held.names.count == 100)
        // A bit flipped in the blob of the 81st name listed: the second group (names 65–100).
        let refused = held.names[80]
        var damaged = try held.blob(refused)
        damaged[damaged.count / 2] ^= 0x01
        let forged = carriers.location(under: root.url)
        try await held.send(to: forged(try makeStore()), replacing: [refused: damaged])

        let exchange = EncryptedExchange(sealing: forged(receiver), keys: keys)
        await #expect(throws: EncryptionError.self) { try await exchange.retrieve() }
        let nameOf = Dictionary(uniqueKeysWithValues: sender.queryHistory { $0.allVersionIdentifiers }.map { (Version.ID(hex(keys.name(of: $0))), $0) })
        let listed = try await forged(try makeStore()).retrieveAllVersionIdentifiers()
        #expect(receiver.queryHistory { Set($0.allVersionIdentifiers) } == Set(listed.prefix(64).compactMap { nameOf[$0] }),
                "the first group, and nothing of the second, is added")
        #expect(exchange.restorationState == nil, "the cursor moved past a refused blob")
        await #expect(throws: EncryptionError.self) { try await exchange.retrieve() }
        // The honest blobs bring the rest.
        #expect(try await EncryptedExchange(sealing: MemoryExchange(space: honest, store: receiver), keys: keys).retrieve().count == 36)
    }

    /// The carriers an honest send left in a memory space, as the other side holds them:
    /// their names in the order listed, their records and their changes (each one blob).
    struct SealedCarriers {
        let names: [Version.ID]
        let records: [Version]
        let changes: [Version.ID: [Value.Change]]

        /// Reads every carrier in `space` through an exchange for `store`.
        init(in space: MemoryExchangeSpace, readingWith store: Store) async throws {
            let reader = MemoryExchange(space: space, store: store)
            names = try await reader.retrieveAllVersionIdentifiers()
            records = try await reader.retrieveVersions(identifiedBy: names)
            changes = try await reader.retrieveValueChanges(forVersionsIdentifiedBy: names)
        }

        /// The blob the carrier `name` holds.
        func blob(_ name: Version.ID) throws -> Data {
            guard case .insert(let value)? = changes[name]?.first else { throw EncryptionError.notSealed(name: name.rawValue, reason: "test") }
            return value.data
        }

        /// Sends every carrier to `location` as it is, except those whose blobs `replaced` gives.
        func send(to location: any Exchange, replacing replaced: [Version.ID: Data]) async throws {
            try await location.send(versionChanges: records.map { record in
                (record, replaced[record.id].map { [.insert(Value(id: EncryptedExchange.sealedValueId, data: $0))] } ?? (changes[record.id] ?? []))
            })
        }
    }

    enum Tampering: String, CaseIterable, Sendable {
        case flippedBit, swappedBetweenNames, replayedFromAnotherStore, truncated
    }

    /// Where carriers are kept: a shared directory (format 2) or memory.
    enum Carriers: String, CaseIterable, Sendable {
        case directory, memory

        /// A fresh location of this kind under `root`: an exchange with it for any store.
        func location(under root: URL) -> (Store) -> any Exchange {
            switch self {
            case .directory:
                let url = root.appendingPathComponent("carriers-\(UUID().uuidString)")
                return { FileSystemExchange(rootDirectoryURL: url, store: $0) }
            case .memory:
                let space = MemoryExchangeSpace()
                return { MemoryExchange(space: space, store: $0) }
            }
        }
    }

    /// What is not a sealed version in an encrypted location — a version sent in the clear,
    /// a carrier of the wrong shape under a well-formed name — is refused with
    /// `EncryptionError.notSealed`, and nothing is added.
    @Test func whatIsNotASealedVersionIsRefused() async throws {
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let hexName = Version.ID(String(repeating: "ab", count: 32))
        let cases: [(String, VersionChanges)] = [
            ("a version in the clear", (Version(id: .init("plain"), timestamp: 1), [.insert(Value(idString: "x", data: Data("clear".utf8)))])),
            ("two changes", (Version(id: hexName, timestamp: 0), [.insert(Value(id: EncryptedExchange.sealedValueId, data: Data(count: 40))),
                                                                 .insert(Value(idString: "extra", data: Data()))])),
            ("another value", (Version(id: hexName, timestamp: 0), [.insert(Value(idString: "other", data: Data(count: 40)))])),
            ("upper-case hex", (Version(id: .init(hexName.rawValue.uppercased()), timestamp: 0),
                                [.insert(Value(id: EncryptedExchange.sealedValueId, data: Data(count: 40)))])),
        ]
        for (title, carrier) in cases {
            let space = MemoryExchangeSpace()
            try await MemoryExchange(space: space, store: try makeStore()).send(versionChanges: [carrier])
            let receiver = try makeStore()
            let exchange = EncryptedExchange(sealing: MemoryExchange(space: space, store: receiver), keys: keys)
            do {
                try await exchange.retrieve()
                Issue.record("\(title): retrieved")
            } catch let error as EncryptionError {
                guard case .notSealed = error else {
                    Issue.record("\(title): \(error)")
                    continue
                }
            }
            #expect(receiver.queryHistory { $0.allVersionIdentifiers }.isEmpty, "\(title): something was added")
        }
    }

    @Test func theSameDataInTwoStoresGivesOtherNamesAndBlobs() async throws {
        let first = try makeStore(), second = try makeStore()
        let versions = try LeakCheck.makeCorpus(in: first)
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

    /// Devices sealing in either format (``SealingCipher``) read each other's versions, and the
    /// same version sent in one format and then in the other is already there, not a
    /// conflict: the second sender opens the blob held under its name and finds the version.
    @Test func devicesSealingInEitherFormatReadEachOtherAndNeverConflict() async throws {
        let storeKey = StoreEncryptionKey()
        var chaChaKeys = EncryptionKeys(storeKey: storeKey)
        chaChaKeys.sealingCipher = .chaCha20Poly1305
        let gcmSIVKeys = EncryptionKeys(storeKey: storeKey)
        let a = try makeStore(), b = try makeStore(), reader = try makeStore()
        let shared = try a.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "shared", data: Data("both".utf8))])
        _ = try b.addVersion(shared, storing: try a.valueChanges(madeInVersionIdentifiedBy: shared.id))
        let onA = try a.makeVersion(basedOnPredecessor: shared.id, inserting: [Value(idString: "a", data: Data("from a".utf8))])
        let onB = try b.makeVersion(basedOnPredecessor: shared.id, inserting: [Value(idString: "b", data: Data("from b".utf8))])
        let space = MemoryExchangeSpace()
        let fromA = EncryptedExchange(sealing: MemoryExchange(space: space, store: a), keys: chaChaKeys)
        #expect(try await fromA.send().count == 2)
        // b offers the shared version again, sealed in the other format, straight from its store.
        let fromB = EncryptedExchange(sealing: MemoryExchange(space: space, store: b), keys: gcmSIVKeys)
        let stored = try #require(b.version(identifiedBy: shared.id))
        try await fromB.send(versionChanges: [(stored, try b.valueChanges(madeInVersionIdentifiedBy: shared.id))])
        try await fromB.send()
        #expect(space.versionCount == 3)
        let carriers = MemoryExchange(space: space, store: try makeStore())
        let formats = try await carriers.retrieveValueChanges(forVersionsIdentifiedBy: try await carriers.retrieveAllVersionIdentifiers())
            .values.compactMap { changes -> UInt8? in
                guard case .insert(let value)? = changes.first else { return nil }
                return value.data.first
            }
        #expect(formats.sorted() == [1, 1, 2], "a's two versions in format 1, b's own in format 2")
        for (store, keys) in [(reader, gcmSIVKeys), (a, chaChaKeys), (b, gcmSIVKeys)] {
            _ = try await EncryptedExchange(sealing: MemoryExchange(space: space, store: store), keys: keys).retrieve()
            for id in [shared.id, onA.id, onB.id] { #expect(store.version(identifiedBy: id) != nil) }
        }
        #expect(try reader.value(idString: "b", at: onB.id)?.data == Data("from b".utf8))
        #expect(try reader.value(idString: "a", at: onA.id)?.data == Data("from a".utf8))
    }

    /// An exchange that reports a conflict on a version it was not given.
    final class ConflictElsewhereExchange: ForwardingExchange, @unchecked Sendable {
        let inner: any Exchange
        static let elsewhere = Version.ID("a version not in the batch")
        init(_ inner: any Exchange) { self.inner = inner }
        func send(versionChanges: [VersionChanges]) async throws {
            throw ExchangeError.conflictingVersion(Self.elsewhere, location: "the test")
        }
        func send(prepared batch: PreparedBatch) async throws {
            throw ExchangeError.conflictingVersion(Self.elsewhere, location: "the test")
        }
    }

    /// A carrier transport leaves out and reports only carriers of its own batch held with
    /// other bytes: a conflict the wrapped exchange reports on anything else is passed on as
    /// it is, and the send fails.
    @Test func aConflictOnAVersionOutsideTheBatchFailsTheSend() async throws {
        let store = try makeStore()
        try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "a", data: Data("alpha".utf8))])
        let exchange = EncryptedExchange(sealing: ConflictElsewhereExchange(MemoryExchange(space: MemoryExchangeSpace(), store: store)),
                                         keys: EncryptionKeys(storeKey: StoreEncryptionKey()))
        await #expect {
            try await exchange.send()
        } throws: { error in
            guard case ExchangeError.conflictingVersion(let id, _) = error else { return false }
            return id == ConflictElsewhereExchange.elsewhere
        }
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

    /// A batch sealed ahead of its send (while the batch before it was sent) is sealed again
    /// when the epoch changes before it is put: nothing of an older epoch goes out after a
    /// rotation.
    @Test func aBatchSealedAheadIsSealedAgainWhenTheEpochChanged() async throws {
        let sender = try makeStore()
        let version = try sender.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "x", data: Data("1".utf8))])
        let batch: [VersionChanges] = [(version, try sender.valueChanges(madeInVersionIdentifiedBy: version.id))]
        let space = MemoryExchangeSpace()
        let exchange = EncryptedExchange(sealing: MemoryExchange(space: space, store: sender), keys: EncryptionKeys(storeKey: StoreEncryptionKey()))
        let prepared = try exchange.prepare(forSending: batch)
        try exchange.updateKeys { $0 = try $0.adding(epoch: 1, key: SymmetricKey(size: .bits256), makingCurrent: true) }
        try await exchange.send(prepared: prepared)
        let reader = MemoryExchange(space: space, store: try makeStore())
        let carriers = try await reader.retrieveValueChanges(forVersionsIdentifiedBy: try await reader.retrieveAllVersionIdentifiers())
        let blobs = carriers.values.compactMap { changes -> Data? in
            guard case .insert(let value)? = changes.first else { return nil }
            return value.data
        }
        #expect(blobs.count == 1)
        #expect(blobs.allSatisfy { Array($0.prefix(5)) == [SealingCipher.aes256GCMSIV.rawValue, 0, 0, 0, 1] }, "format 2 (the default), epoch 1")

        // Prepared under the current epoch, a batch goes out, and both versions open.
        let next = try sender.makeVersion(basedOnPredecessor: version.id, inserting: [Value(idString: "y", data: Data("2".utf8))])
        let ahead = try exchange.prepare(forSending: [(next, try sender.valueChanges(madeInVersionIdentifiedBy: next.id))])
        try await exchange.send(prepared: ahead)
        let all = try await reader.retrieveValueChanges(forVersionsIdentifiedBy: try await reader.retrieveAllVersionIdentifiers())
        #expect(all.count == 2)
        #expect(try await EncryptedExchange(sealing: MemoryExchange(space: space, store: makeStore()), keys: exchange.currentKeys).retrieve().count == 2)
    }

    /// What is on the other side is a carrier per version: no predecessors, timestamp 0,
    /// no metadata, one value.
    @Test func theOtherSideSeesOnlyCarriers() async throws {
        let sender = try makeStore()
        let versions = try LeakCheck.makeCorpus(in: sender)
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

    /// A device holding the key publishes, under the identifier of a merge, other content
    /// (a value smuggled in, sealed and named correctly): the receiver recomputes the merge's
    /// identifier from the record it opened and refuses it before adding it, on every store
    /// backend. The honest merge, and a merge made by hand, travel as they are.
    @Test(arguments: StoreReplica.Backend.allCases)
    func aMergeWhoseContentIsNotItsIdentifiersIsRefused(_ backend: StoreReplica.Backend) async throws {
        func store() throws -> Store {
            try Store(rootDirectoryURL: root.url.appendingPathComponent("store-\(UUID().uuidString)"), storage: backend.makeStorage())
        }
        let honest = try store(), forger = try store()
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let base = try honest.makeVersion(basedOnPredecessor: nil, storing: [.insert(Value(idString: "x", data: Data("0".utf8)))])
        let left = try honest.makeVersion(basedOnPredecessor: base.id, storing: [.insert(Value(idString: "l", data: Data("L".utf8)))])
        let right = try honest.makeVersion(basedOnPredecessor: base.id, storing: [.update(Value(idString: "x", data: Data("R".utf8)))])
        let merge = try honest.merge(version: left.id, with: right.id, resolvingWith: MostRecentChangeFavoringArbiter())
        let handMade = try honest.makeVersion(basedOn: .init(idOfFirst: left.id, idOfSecond: right.id),
                                              storing: [.insert(Value(idString: "hand", data: Data("H".utf8)))])
        for version in [base, left, right] {
            try forger.addVersion(version, storing: try honest.valueChanges(madeInVersionIdentifiedBy: version.id))
        }
        let smuggled = try honest.valueChanges(madeInVersionIdentifiedBy: merge.id) + [.insert(Value(idString: "smuggled", data: Data("!".utf8)))]
        try forger.addVersion(merge, storing: smuggled)

        let forged = MemoryExchangeSpace()
        try await EncryptedExchange(sealing: MemoryExchange(space: forged, store: forger), keys: keys).send()
        let receiver = try store()
        let receiving = EncryptedExchange(sealing: MemoryExchange(space: forged, store: receiver), keys: keys)
        await #expect(throws: StoreError.self) { try await receiving.retrieve() }
        #expect(receiver.version(identifiedBy: merge.id) == nil, "the forged merge was added")

        let space = MemoryExchangeSpace()
        try await EncryptedExchange(sealing: MemoryExchange(space: space, store: honest), keys: keys).send()
        let other = try store()
        #expect(Set(try await EncryptedExchange(sealing: MemoryExchange(space: space, store: other), keys: keys).retrieve())
                == [base.id, left.id, right.id, merge.id, handMade.id])
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
