import Foundation
import LLVSKeyValue
import LLVSTesting
import Testing

/// The four rules of ApplicationDataUpgrader, checked on databases reopened from files.
@Suite struct ApplicationIdentifierTests {
    /// Records whether it was asked to upgrade, and can fail.
    final class RecordingUpgrader: ApplicationDataUpgrader {
        let expectedApplicationIdentifier: ApplicationIdentifier
        let fails: Bool
        var upgrades = 0

        init(_ major: Int, _ minor: Int, id: String = "org.example.notes", fails: Bool = false) {
            expectedApplicationIdentifier = ApplicationIdentifier(id: id, majorVersion: major, minorVersion: minor)
            self.fails = fails
        }

        struct Refused: Error {}

        func upgradeApplicationData(in database: KeyValueDatabase) throws {
            upgrades += 1
            if fails { throw Refused() }
            try database.writeText("v\(expectedApplicationIdentifier.majorVersion).\(expectedApplicationIdentifier.minorVersion)", to: "format")
        }
    }

    /// A database file whose identifier is `org.example.notes 1.1`, holding one value.
    static func makeDatabase(in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("notes")
        let database = try KeyValueDatabase(fileURL: url, author: .alice)
        try database.writeText("data", to: "k")
        try database.setApplicationIdentifier(ApplicationIdentifier(id: "org.example.notes", majorVersion: 1, minorVersion: 1))
        return url
    }

    @Test func ruleOneAnotherApplicationsDataIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.makeDatabase(in: directory)
        let upgrader = RecordingUpgrader(1, 1, id: "org.example.other")
        #expect(throws: KeyValueDatabaseError.self) { try KeyValueDatabase(fileURL: url, authorDescription: "t", upgrader: upgrader) }
        #expect(upgrader.upgrades == 0)
    }

    @Test func ruleTwoNewerMajorVersionIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.makeDatabase(in: directory)
        let upgrader = RecordingUpgrader(0, 9)
        do {
            _ = try KeyValueDatabase(fileURL: url, authorDescription: "t", upgrader: upgrader)
            Issue.record("opened data of a newer major version")
        } catch KeyValueDatabaseError.applicationDataTooNew(let expected, let found) {
            #expect(expected.majorVersion == 0)
            #expect(found.majorVersion == 1)
        }
        #expect(upgrader.upgrades == 0)
    }

    @Test func ruleThreeOlderDataIsUpgradedAndRelabelled() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.makeDatabase(in: directory)
        for expected in [(1, 2), (2, 0)] {
            let upgrader = RecordingUpgrader(expected.0, expected.1)
            let database = try KeyValueDatabase(fileURL: url, authorDescription: "t", upgrader: upgrader)
            #expect(upgrader.upgrades == 1)
            #expect(try database.applicationIdentifier == upgrader.expectedApplicationIdentifier)
            #expect(try database.read(key: "format").text == "v\(expected.0).\(expected.1)")
        }
    }

    @Test func ruleThreeAFailedUpgradeLeavesTheIdentifier() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.makeDatabase(in: directory)
        #expect(throws: RecordingUpgrader.Refused.self) { try KeyValueDatabase(fileURL: url, authorDescription: "t", upgrader: RecordingUpgrader(2, 0, fails: true)) }
        let reopened = try KeyValueDatabase(fileURL: url, authorDescription: "t")
        #expect(try reopened.applicationIdentifier?.majorVersion == 1)
    }

    @Test func ruleThreeDataWithoutAnIdentifierIsUpgraded() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("legacy")
        try KeyValueDatabase(fileURL: url, author: .alice).writeText("old", to: "k")
        let upgrader = RecordingUpgrader(1, 0)
        let database = try KeyValueDatabase(fileURL: url, authorDescription: "t", upgrader: upgrader)
        #expect(upgrader.upgrades == 1)
        #expect(try database.applicationIdentifier == upgrader.expectedApplicationIdentifier)
    }

    @Test func theAuthorFormChecksTheIdentifierToo() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.makeDatabase(in: directory)
        let upgrader = RecordingUpgrader(1, 5)
        let database = try KeyValueDatabase(fileURL: url, author: .bob, upgrader: upgrader)
        #expect(upgrader.upgrades == 1)
        #expect(database.author == Author.bob)
        #expect(throws: KeyValueDatabaseError.self) { try KeyValueDatabase(fileURL: url, author: .bob, upgrader: RecordingUpgrader(1, 0, id: "org.example.other")) }
    }

    @Test func ruleFourMatchingOrNewerMinorOpensUntouched() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.makeDatabase(in: directory)
        for expected in [(1, 1), (1, 0)] {
            let upgrader = RecordingUpgrader(expected.0, expected.1)
            let database = try KeyValueDatabase(fileURL: url, authorDescription: "t", upgrader: upgrader)
            #expect(upgrader.upgrades == 0)
            #expect(try database.applicationIdentifier == ApplicationIdentifier(id: "org.example.notes", majorVersion: 1, minorVersion: 1))
        }
    }
}
