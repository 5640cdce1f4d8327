import Foundation
import LLVSCore
import LLVSStoreTesting
import LLVSSupport
import LLVSTesting
import LLVSZones
import Testing
@testable import LLVSStore

/// Every backend's versions take one path to the disk, its `VersionCommitting`, and a commit
/// waiting there (for a slow disk) holds up no reader: the store appends the record without
/// the lock its readers take.
@Suite struct StoreCommitPathTests {
    @Test(arguments: Backend.allCases)
    func readersDoNotWaitForACommitThatWaitsForTheDisk(backend: Backend) throws {
        let directory = try TemporaryDirectory()
        let storage = GatedStorage(base: backend.makeStorage())
        let store = try Store(rootDirectoryURL: directory.url, storage: storage)
        let root = try store.makeVersion(basedOnPredecessor: nil, inserting: [value("a", "1"), value("b", "2")])

        storage.gate.arm()
        let committed = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        Thread {
            do {
                _ = try store.makeVersion(basedOnPredecessor: root.id, updating: [value("a", "changed")])
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
            committed.signal()
        }.start()
        #expect(storage.gate.entered.wait(timeout: .now() + 30) == .success, "the commit reached the committer")

        // The commit is held inside the committer; every kind of read still answers.
        let read = DispatchSemaphore(value: 0)
        let answers = Locked<[String]>([])
        Thread {
            let value = try? store.value(idString: "a", at: root.id)?.data
            let head = store.mostRecentHead?.id
            let heads = store.queryHistory { $0.headIdentifiers }
            let known = store.version(identifiedBy: root.id) != nil
            answers.withLock { $0 = [String(decoding: value ?? Data(), as: UTF8.self), "\(head == root.id)", "\(heads == [root.id])", "\(known)"] }
            read.signal()
        }.start()
        let readInTime = read.wait(timeout: .now() + 10) == .success
        storage.gate.release()
        #expect(readInTime, "a read waited for the held commit")
        #expect(committed.wait(timeout: .now() + 30) == .success)
        #expect(failure.withLock { $0 } == nil)
        #expect(answers.withLock { $0 } == ["1", "true", "true", "true"])
        let head = try #require(store.mostRecentHead)
        #expect(try store.value(idString: "a", at: head.id)?.data == Data("changed".utf8))
    }

    /// Reads take a version's root from the roots read lately, without the state lock; a
    /// root read before the roots were forgotten (a failed batch rereads the history) is
    /// not remembered after.
    @Test func recentRootsForgetAndRefuseARootFromAnEarlierGeneration() throws {
        let roots = RecentRoots()
        let (none, generation) = roots.root(of: "V1")
        #expect(none == nil)
        roots.remember(nil, of: "V1", generation: generation)
        #expect(roots.root(of: "V1").root == .some(nil), "an empty map's root is remembered as such")
        let (_, before) = roots.root(of: "V2")
        roots.forgetAll()
        roots.remember(nil, of: "V2", generation: before)
        #expect(roots.root(of: "V2").root == nil, "a root read before forgetAll is not remembered")
        #expect(roots.root(of: "V1").root == nil)
        for index in 0...RecentRoots.capacity { roots.remember(nil, of: Version.ID("R\(index)"), generation: roots.root(of: "x").generation) }
        #expect(roots.root(of: Version.ID("R\(RecentRoots.capacity)")).root == .some(nil), "past its capacity it starts again")
        #expect(roots.root(of: "R0").root == nil)
    }

    /// A backend that brings only zones and a log gets the zones' committer, written
    /// through whatever zones the store's storage holds when it commits.
    @Test func aBackendWithoutACommitterIsWrittenThroughItsZones() throws {
        let zones = try MemoryStorage().makeZones(rootDirectoryURL: URL(fileURLWithPath: "/unused"))
        var plain = StoreZones(values: zones.values, maps: zones.maps, versions: zones.versions)
        #expect(plain.committer is ZoneCommitter)
        let replaced = MemoryZone()
        plain.values = replaced
        let item = ZoneItem(reference: ZoneReference(key: "k", version: "V"), data: Data("v".utf8))
        try plain.committer.commit(values: [item], maps: [], records: [Data("r".utf8)])
        #expect(try replaced.data(for: [item.reference]) == [Data("v".utf8)])
        #expect(try plain.versions.records(after: .start).records == [Data("r".utf8)])
    }
}

/// A storage whose committer, once armed, stops at its next commit until released.
final class GatedStorage: Storage {
    let base: any Storage
    let gate = Gate()

    init(base: any Storage) {
        self.base = base
    }

    func makeZones(rootDirectoryURL: URL) throws -> StoreZones {
        var zones = try base.makeZones(rootDirectoryURL: rootDirectoryURL)
        zones.committer = GatedCommitter(base: zones.committer, gate: gate)
        return zones
    }

    /// Where an armed commit waits.
    final class Gate: Sendable {
        let entered = DispatchSemaphore(value: 0)
        private let released = DispatchSemaphore(value: 0)
        private let armed = Locked(false)

        func arm() { armed.withLock { $0 = true } }
        func release() { released.signal() }

        func pass() {
            guard armed.withLock({ armed in defer { armed = false }; return armed }) else { return }
            entered.signal()
            released.wait()
        }
    }
}

struct GatedCommitter: VersionCommitting {
    let base: any VersionCommitting
    let gate: GatedStorage.Gate

    func commit(values: [ZoneItem], maps: [ZoneItem], records: [Data]) throws {
        gate.pass()
        try base.commit(values: values, maps: maps, records: records)
    }

    func storePart(values: [ZoneItem], maps: [ZoneItem]) throws {
        try base.storePart(values: values, maps: maps)
    }

    func storeAhead(values: [ZoneItem], maps: [ZoneItem]) throws {
        try base.storeAhead(values: values, maps: maps)
    }
}
