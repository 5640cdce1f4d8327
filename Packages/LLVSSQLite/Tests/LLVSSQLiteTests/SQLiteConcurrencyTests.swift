import Foundation
import LLVSSQLite
import LLVSTesting
import LLVSZones
import Testing

/// Several connections to one database at once.
@Suite struct SQLiteConcurrencyTests {
    /// Many openers of one new database at once (as processes sharing an app-group store
    /// at first launch): each must open it, whichever creates the schema.
    /// Openers on their own threads, released together, 60 times: switching a new
    /// database to WAL mode needs an exclusive lock, and SQLite refuses it at once with
    /// `SQLITE_BUSY` (no busy wait) when another opener holds a lock in the way; the open
    /// must try again rather than fail. (CI lost a writer process to exactly this.)
    @Test func openersReleasedAtOnceOnANewDatabaseAllSucceed() throws {
        let openers = 6
        for round in 0..<60 {
            let directory = try TemporaryDirectory()
            let start = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            let failures = LockedFailures()
            for index in 0..<openers {
                finished.enter()
                Thread.detachNewThread {
                    defer { finished.leave() }
                    start.wait()
                    do {
                        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
                        try zones.versions.append([Data("opener \(index)".utf8)])
                    } catch {
                        failures.append("opener \(index): \(error)")
                    }
                }
            }
            for _ in 0..<openers { start.signal() }
            finished.wait()
            #expect(failures.all.isEmpty, "round \(round): \(failures.all)")
            let records = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url).versions.records(after: .start).records
            #expect(records.count == openers)
        }
    }

    @Test func concurrentOpenersOfANewDatabaseAllSucceed() async throws {
        for _ in 0..<10 {
            let directory = try TemporaryDirectory()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let zones = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url)
                        try zones.versions.append([Data("opener \(index)".utf8)])
                    }
                }
                try await group.waitForAll()
            }
            let records = try SQLiteStorage().makeZones(rootDirectoryURL: directory.url).versions.records(after: .start).records
            #expect(records.count == 8)
        }
    }
}

/// Error descriptions collected from several threads.
private final class LockedFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [String] = []

    func append(_ failure: String) {
        lock.withLock { failures.append(failure) }
    }

    var all: [String] { lock.withLock { failures } }
}
