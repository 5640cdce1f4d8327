import Foundation
import LLVSCoordinator
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSTesting
import Testing

/// The current version, the empty root and the state file.
@Suite struct CoordinatorStateTests {
    @Test func anEmptyStoreStartsAtTheSharedEmptyRoot() throws {
        let directories = try CoordinatorDirectories()
        let coordinator = try directories.makeCoordinator()
        #expect(coordinator.currentVersion == StoreCoordinator.emptyRootVersionID)
        #expect(versionIds(of: coordinator.store) == [StoreCoordinator.emptyRootVersionID])
        let root = try #require(coordinator.store.version(identifiedBy: StoreCoordinator.emptyRootVersionID))
        #expect(root.predecessors == nil)
        #expect(root.timestamp == 0)
        #expect(try coordinator.values().isEmpty)
        #expect(coordinator.recoveredStateProblem == nil)
        #expect(FileManager.default.fileExists(atPath: directories.stateFileURL.path))
    }

    @Test func currentVersionPersistsAcrossLaunches() throws {
        let directories = try CoordinatorDirectories()
        let saved: Version.ID
        do {
            let coordinator = try directories.makeCoordinator()
            try coordinator.save(updating: [textValue("A", "1")])
            saved = try #require(try coordinator.save(updating: [textValue("A", "2")])).id
            // A version made on the store directly is a newer head, but not the current version.
            try coordinator.store.makeVersion(basedOnPredecessor: saved, updating: [textValue("A", "3")])
            #expect(coordinator.currentVersion == saved)
        }
        let reopened = try directories.makeCoordinator()
        #expect(reopened.currentVersion == saved)
        #expect(text(of: try reopened.value(idString: "A")) == "2")
        #expect(reopened.recoveredStateProblem == nil)
    }

    @Test func aStoreWithVersionsStartsAtItsMostRecentHead() throws {
        let directories = try CoordinatorDirectories()
        let store = try Store(rootDirectoryURL: directories.store.url)
        let first = try store.makeVersion(basedOnPredecessor: nil, inserting: [textValue("A", "first")])
        let second = try store.makeVersion(basedOnPredecessor: first.id, updating: [textValue("A", "second")])
        let coordinator = try directories.makeCoordinator()
        #expect(coordinator.currentVersion == second.id)
        #expect(!versionIds(of: coordinator.store).contains(StoreCoordinator.emptyRootVersionID), "no root is added to a non-empty store")
        #expect(text(of: try coordinator.value(idString: "A")) == "second")
    }

    @Test func aCorruptStateFileFallsBackToTheMostRecentHeadAndIsRewritten() throws {
        let directories = try CoordinatorDirectories()
        let head: Version.ID
        do {
            let coordinator = try directories.makeCoordinator()
            try coordinator.save(updating: [textValue("A", "1")])
            head = try #require(try coordinator.save(updating: [textValue("A", "2")])).id
        }
        for garbage in [Data("{not json".utf8), Data(), Data(#"{"format":7,"currentVersion":"x"}"#.utf8),
                        Data(#"{"format":1,"currentVersion":"x","versionCountAtLastSnapshot":-3}"#.utf8)] {
            try garbage.write(to: directories.stateFileURL)
            let coordinator = try directories.makeCoordinator()
            #expect(coordinator.currentVersion == head)
            #expect(coordinator.recoveredStateProblem != nil)
            // The file was rewritten: the next launch reads it without complaint.
            let again = try directories.makeCoordinator()
            #expect(again.recoveredStateProblem == nil)
            #expect(again.currentVersion == head)
        }
    }

    @Test func aStateFileNamingAnUnknownVersionFallsBack() throws {
        let directories = try CoordinatorDirectories()
        _ = try directories.makeCoordinator()
        try Data(#"{"currentVersion":"NO-SUCH-VERSION","format":1,"versionCountAtLastSnapshot":0}"#.utf8).write(to: directories.stateFileURL)
        let coordinator = try directories.makeCoordinator()
        #expect(coordinator.currentVersion == StoreCoordinator.emptyRootVersionID)
        #expect(coordinator.recoveredStateProblem?.contains("NO-SUCH-VERSION") == true)
    }

    @Test func theExchangeRestorationStateIsKeptAcrossLaunches() async throws {
        let shared = try TemporaryDirectory(prefix: "llvs-coordinator-shared")
        let directories = try CoordinatorDirectories()
        let remembered: Data
        do {
            let coordinator = try directories.makeCoordinator()
            coordinator.exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: coordinator.store)
            try coordinator.save(updating: [textValue("A", "1")])
            try await coordinator.exchange()
            remembered = try #require(coordinator.exchange?.restorationState)
        }
        let reopened = try directories.makeCoordinator()
        let exchange = FileSystemExchange(rootDirectoryURL: shared.url, store: reopened.store)
        #expect(exchange.restorationState == nil)
        reopened.exchange = exchange
        #expect(exchange.restorationState == remembered)
    }

    #if !canImport(Darwin)
    @Test func defaultDirectoriesFollowTheXDGBaseDirectorySpecification() throws {
        let xdg = ["XDG_DATA_HOME": "/data/home", "XDG_CACHE_HOME": "/cache/home", "HOME": "/home/me"]
        #expect(try StoreCoordinator.defaultStoreDirectoryURL(environment: xdg).path == "/data/home/LLVS/DefaultStore")
        #expect(try StoreCoordinator.defaultCacheDirectoryURL(environment: xdg).path == "/cache/home/LLVS/CoordinatorCache")
        let homeOnly = ["HOME": "/home/me", "XDG_DATA_HOME": "relative/ignored", "XDG_CACHE_HOME": ""]
        #expect(try StoreCoordinator.defaultStoreDirectoryURL(environment: homeOnly).path == "/home/me/.local/share/LLVS/DefaultStore")
        #expect(try StoreCoordinator.defaultCacheDirectoryURL(environment: homeOnly).path == "/home/me/.cache/LLVS/CoordinatorCache")
    }
    #endif
}
