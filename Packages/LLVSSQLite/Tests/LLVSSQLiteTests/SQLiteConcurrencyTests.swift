import Foundation
import LLVSSQLite
import LLVSTesting
import LLVSZones
import Testing

/// Several connections to one database at once.
@Suite struct SQLiteConcurrencyTests {
    /// Many openers of one new database at once (as processes sharing an app-group store
    /// at first launch): each must open it, whichever creates the schema.
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
