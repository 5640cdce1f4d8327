import Foundation
import Testing

/// The Linux samples through their built binaries.
@Suite struct SampleTests {
    /// TheMessage: a message posted on one replica is read on another; concurrent posts
    /// settle on one message everywhere.
    @Test func theMessageIsSharedThroughTheExchangeDirectory() throws {
        let scratch = try ScratchDirectory()
        var app = try ToolRunner("the-message")
        app.environment["THE_MESSAGE_EXCHANGE"] = scratch.path("shared")
        let one = ["--store", scratch.path("one")], two = ["--store", scratch.path("two")]

        #expect(try app.succeed(["read"] + two).text == "(no message yet)\n")
        try app.succeed(["post", "Hello from one"] + one)
        #expect(try app.succeed(["read"] + two).text == "Hello from one\n")

        // Both post before seeing the other's post; after syncing, both read the same message.
        try app.succeed(["post", "one again"] + one)
        try app.succeed(["post", "two's turn"] + two)
        try app.succeed(["read"] + one)
        let first = try app.succeed(["read"] + one).text, second = try app.succeed(["read"] + two).text
        #expect(first == second)
        #expect(["one again\n", "two's turn\n"].contains(first))
    }

    /// LoCo: contacts added, edited concurrently on two replicas (different fields of one
    /// contact, and one contact edited on one side while deleted on the other), then synced:
    /// both replicas list the same contacts with both edits kept.
    @Test func locoMergesConcurrentEditsFieldByField() throws {
        let scratch = try ScratchDirectory()
        var loco = try ToolRunner("loco")
        loco.environment["LOCO_EXCHANGE"] = scratch.path("shared")
        let phone = ["--store", scratch.path("phone")], laptop = ["--store", scratch.path("laptop")]

        let ada = try loco.succeed(["add", "--first", "Ada", "--last", "Lovelace", "--city", "London"] + phone).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let alan = try loco.succeed(["add", "--first", "Alan", "--last", "Turing"] + phone).text
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try loco.succeed(["sync"] + phone)
        try loco.succeed(["sync"] + laptop)
        #expect(try contacts(loco, laptop).count == 2)

        try loco.succeed(["edit", String(ada.prefix(8)), "--city", "Paris"] + phone)
        try loco.succeed(["edit", ada, "--first", "Augusta", "--country", "UK"] + laptop)
        try loco.succeed(["edit", alan, "--city", "Manchester"] + phone)
        try loco.succeed(["delete", alan] + laptop)
        for replica in [phone, laptop, phone] { try loco.succeed(["sync"] + replica) }

        let onPhone = try contacts(loco, phone), onLaptop = try contacts(loco, laptop)
        #expect(NSDictionary(dictionary: onPhone) == NSDictionary(dictionary: onLaptop))
        let merged = try #require(onPhone[ada])
        #expect(merged["firstName"] == "Augusta")
        #expect(merged["city"] == "Paris")
        #expect(merged["country"] == "UK")
        #expect(onPhone[alan]?["city"] == "Manchester", "an edit wins over a concurrent delete")
    }

    /// The contacts a replica lists, by identifier, with their fields flattened.
    private func contacts(_ loco: ToolRunner, _ store: [String]) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for contact in try loco.succeed(["list", "--json"] + store).array() {
            let id = try #require(contact["id"] as? String)
            var fields: [String: String] = [:]
            for group in ["person", "address"] {
                for (key, value) in contact[group] as? [String: String] ?? [:] { fields[key] = value }
            }
            result[id] = fields
        }
        return result
    }
}
