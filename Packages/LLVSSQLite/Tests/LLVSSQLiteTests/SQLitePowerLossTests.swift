import Foundation
import LLVSSQLite
import LLVSTesting
import LLVSZones
import Testing

/// Acknowledged commits survive a power loss: every write SQLite had not synced when the
/// power went is dropped (``PowerLossFileSystem``), and every version whose commit returned
/// must still be there. With ``SQLiteStorage/Durability/relaxed`` they are not, which shows
/// the test can fail.
@Suite(.serialized) struct SQLitePowerLossTests {
    /// Commits `count` versions, cuts the power, and returns how many of them a fresh opening
    /// of the database finds, whole.
    static func versionsSurvivingAPowerLoss(after count: Int, durability: SQLiteStorage.Durability) throws -> Int {
        let directory = try TemporaryDirectory()
        let storage = SQLiteStorage(busyTimeout: 5, durability: durability)
        // The empty database, closed, is the durable starting point.
        try storage.makeZones(rootDirectoryURL: directory.url).close?()
        let power = PowerLossFileSystem.shared
        try power.watch(directory.url)
        do {
            let zones = try storage.makeZones(rootDirectoryURL: directory.url)
            for index in 0..<count {
                let items = (0..<20).map { ZoneItem(reference: ZoneReference(key: .init("key \($0)"), version: .init("V\(index)")),
                                                    data: Data("value \($0) of version \(index)".utf8)) }
                try zones.committer.commitVersion(values: items, maps: items, record: Data("V\(index)".utf8))
            }
            power.simulatePowerLoss()
            try zones.close?()
        } catch {
            power.simulatePowerLoss()
            throw error
        }
        try power.restoreDurableBytes()

        let zones = try storage.makeZones(rootDirectoryURL: directory.url)
        let records = try zones.versions.records(after: .start).records
        for (index, record) in records.enumerated() {
            #expect(record == Data("V\(index)".utf8))
            for key in 0..<20 {
                let reference = ZoneReference(key: .init("key \(key)"), version: .init("V\(index)"))
                #expect(try zones.values.data(for: reference) == Data("value \(key) of version \(index)".utf8))
            }
        }
        #expect(zones.checkStoredBytes?() == [])
        return records.count
    }

    @Test func everyAcknowledgedCommitSurvives() throws {
        #expect(try Self.versionsSurvivingAPowerLoss(after: 25, durability: .full) == 25)
    }

    @Test func relaxedCommitsMayBeLostButNeverHalfThere() throws {
        #expect(try Self.versionsSurvivingAPowerLoss(after: 25, durability: .relaxed) < 25)
    }
}
