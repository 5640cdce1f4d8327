import Foundation
import LLVSSQLite
import LLVSTesting
import LLVSZones
import PropertyBased
import Testing

/// The SQLite backend passes the shared zone conformance suite, and random batches behave
/// like a first-write-wins dictionary before and after reopening.
@Suite struct SQLiteConformanceTests {
    @Test(arguments: ZoneConformance.Check.allCases)
    func sqliteStorageConforms(_ check: ZoneConformance.Check) throws {
        let directory = try TemporaryDirectory()
        try ZoneConformance(storage: SQLiteStorage(), rootDirectoryURL: directory.url).run(check)
    }

    /// `(key, version, payload)` triples, grouped into batches of 1–6.
    static let batches = zip(Gen.int(in: 0...5), Gen.int(in: 0...3), Gen.int(in: 0...999))
        .array(of: 1...6).array(of: 1...8)

    @Test func sqliteZoneBehavesLikeAFirstWriteWinsDictionary() async {
        await propertyCheck(count: 300, input: Self.batches) { batches in
            try ZoneConformance.checkBatches(batches, on: SQLiteStorage())
        }
    }
}
