import Foundation
import Testing

/// An encrypted store from the command line, as its README tells it: `init --encrypted`,
/// a clone restored from the phrase alone, a device joining by its code, a device removed,
/// rotation, and wrong phrases refused with status 7 and nothing written. The shared
/// directory is searched for every value written: none is there in the clear.
@Suite struct EncryptedStoreCommandTests {
    @Test func anEncryptedStoreSyncsRestoresJoinsAndRemovesDevices() throws {
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let shared = scratch.path("shared")
        func store(_ name: String) -> [String] { ["--store", scratch.path(name)] }
        let laptop = store("laptop"), restored = store("restored"), phone = store("phone")

        let created = try llvs.succeed(["init", "--encrypted", "--device-name", "laptop", "--json"] + laptop).object()
        #expect(created["encrypted"] as? Bool == true)
        let phrase = try #require(created["recoveryPhrase"] as? String)
        #expect(phrase.split(separator: " ").count == 24)
        #expect(try llvs.succeed(["key", "show-phrase", "--json"] + laptop).object()["recoveryPhrase"] as? String == phrase)
        try llvs.succeed(["put", "diary", "a secret written on the laptop"] + laptop)
        try llvs.succeed(["push", shared] + laptop)

        // Restored from the phrase and the directory alone, then a member of the keyring.
        var withPhrase = llvs
        withPhrase.environment["LLVS_RECOVERY_PHRASE"] = phrase.uppercased()
        try withPhrase.succeed(["clone", "--phrase", "--device-name", "desktop", shared, scratch.path("restored")])
        #expect(try llvs.succeed(["get", "diary"] + restored).text.contains("a secret written on the laptop"))
        let devices = try llvs.succeed(["key", "devices", "--json"] + restored).object()["devices"] as? [[String: Any]]
        #expect(devices?.compactMap { $0["name"] as? String } == ["laptop", "desktop"])

        // Wrong phrases: status 7, and no store is left behind.
        var words = phrase.split(separator: " ").map(String.init)
        words.swapAt(0, 1)
        for wrong in [words.joined(separator: " "), "not a phrase"] {
            var wrongPhrase = llvs
            wrongPhrase.environment["LLVS_RECOVERY_PHRASE"] = wrong
            let refused = try wrongPhrase.run(["clone", "--phrase", shared, scratch.path("wrong")])
            #expect(refused.status == 7 || (words[0] == words[1] && refused.status == 0), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("wrong")))
        }
        let noPhrase = try llvs.run(["clone", "--phrase", shared, scratch.path("wrong")])
        #expect(noPhrase.status == 64 && noPhrase.stderr.contains("LLVS_RECOVERY_PHRASE"))

        // A device joins by its code.
        let joined = try llvs.succeed(["init", "--join", "--device-name", "phone", "--json"] + phone).object()
        let code = try #require(joined["enrollmentCode"] as? String)
        let waiting = try llvs.run(["pull", shared] + phone)
        #expect(waiting.status == 7 && waiting.stderr.contains(code), "\(waiting.stderr)")
        let wrongCode = try llvs.run(["key", "add-device", "00000-00000", shared] + laptop)
        #expect(wrongCode.status == 7)
        try llvs.succeed(["key", "add-device", code.lowercased(), shared] + laptop)
        try llvs.succeed(["pull", shared] + phone)
        #expect(try llvs.succeed(["get", "diary"] + phone).text.contains("a secret written on the laptop"))
        try llvs.succeed(["put", "from-phone", "the phone's own secret"] + phone)
        try llvs.succeed(["push", shared] + phone)
        try llvs.succeed(["pull", shared] + laptop)
        #expect(try llvs.succeed(["get", "from-phone"] + laptop).text.contains("the phone's own secret"))

        // The phone is removed: a new epoch and a new phrase; it gets nothing new and cannot push.
        let removed = try llvs.succeed(["key", "remove-device", "phone", shared, "--json"] + laptop).object()
        #expect(removed["epoch"] as? Int == 1)
        let newPhrase = try #require(removed["recoveryPhrase"] as? String)
        #expect(newPhrase != phrase)
        try llvs.succeed(["put", "diary", "written after the phone was removed"] + laptop)
        try llvs.succeed(["push", shared] + laptop)
        try llvs.succeed(["pull", shared] + phone)
        #expect(try llvs.succeed(["get", "diary"] + phone).text.contains("a secret written on the laptop"))
        try llvs.succeed(["put", "late", "from a removed device"] + phone)
        let refusedPush = try llvs.run(["push", shared] + phone)
        #expect(refusedPush.status == 7 && refusedPush.stderr.contains("removed"), "\(refusedPush.stderr)")
        try llvs.succeed(["pull", shared] + restored)
        #expect(try llvs.succeed(["get", "diary"] + restored).text.contains("written after the phone was removed"))
        try llvs.succeed(["key", "rotate", shared] + restored)
        #expect(try llvs.succeed(["key", "devices", "--json"] + laptop).object()["epoch"] as? Int == 1)
        try llvs.succeed(["pull", shared] + laptop)
        #expect(try llvs.succeed(["key", "devices", "--json"] + laptop).object()["epoch"] as? Int == 2)

        // The old phrase no longer restores; the new one does.
        var oldPhrase = llvs
        oldPhrase.environment["LLVS_RECOVERY_PHRASE"] = phrase
        #expect(try oldPhrase.run(["clone", "--phrase", shared, scratch.path("old")]).status == 7)
        var currentPhrase = llvs
        currentPhrase.environment["LLVS_RECOVERY_PHRASE"] = newPhrase
        try currentPhrase.succeed(["clone", "--phrase", "--phrase-file", "-", shared, scratch.path("new")], input: Data(newPhrase.utf8))
        #expect(try llvs.succeed(["get", "diary", "--store", scratch.path("new")]).text.contains("written after the phone was removed"))

        // Nothing written is in the shared directory in the clear.
        let secrets = ["a secret written on the laptop", "the phone's own secret", "written after the phone was removed", "diary", "from-phone"]
        for file in FileManager.default.enumerator(atPath: shared)?.compactMap({ $0 as? String }) ?? [] {
            guard let bytes = FileManager.default.contents(atPath: shared + "/" + file) else { continue }
            for secret in secrets { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds \"\(secret)\"") }
        }
    }
}

/// An encrypted store through a blind-only `llvs-server`: pushed, restored from the phrase,
/// and a removed device's push refused by the server itself (its write token died with the
/// epoch) with status 7; a store that is not encrypted is told a blind store is not for it;
/// the server's database holds none of the values.
@Suite struct BlindServerCommandTests {
    @Test func anEncryptedStoreSyncsThroughABlindOnlyServer() async throws {
        let scratch = try ScratchDirectory()
        var server = try ToolRunner("llvs-server")
        server.environment["LLVS_SERVER_TOKENS"] = "*=\(ServerProcessTests.token)"
        let (process, base) = try await ServerProcessTests.startServer(server, ["--data-directory", scratch.path("data"), "--blind-only"])
        defer { _ = process.stop() }
        var llvs = try ToolRunner("llvs")
        llvs.environment["LLVS_TOKEN"] = ServerProcessTests.token
        let remote = "\(base)/v1/blind/diary"
        func store(_ name: String) -> [String] { ["--store", scratch.path(name)] }
        let laptop = store("laptop"), phone = store("phone"), plain = store("plain")

        let phrase = try #require(try llvs.succeed(["init", "--encrypted", "--device-name", "laptop", "--json"] + laptop).object()["recoveryPhrase"] as? String)
        try llvs.succeed(["put", "entry", "a secret kept from the server"] + laptop)
        try llvs.succeed(["push", remote] + laptop)
        var withPhrase = llvs
        withPhrase.environment["LLVS_RECOVERY_PHRASE"] = phrase
        try withPhrase.succeed(["clone", "--phrase", "--device-name", "phone", remote, scratch.path("phone")])
        #expect(try llvs.succeed(["get", "entry"] + phone).text.contains("a secret kept from the server"))

        // Removed, the phone pushes before pulling: the server refuses its old token, and the
        // phone learns from the keyring there that it was removed. Nothing of it arrives.
        try llvs.succeed(["key", "remove-device", "phone", remote] + laptop)
        try llvs.succeed(["put", "late", "from the removed phone"] + phone)
        let refused = try llvs.run(["push", remote] + phone)
        #expect(refused.status == 7 && refused.stderr.contains("removed"), "\(refused.stderr)")
        try llvs.succeed(["put", "entry", "after the removal"] + laptop)
        try llvs.succeed(["push", remote] + laptop)
        try llvs.succeed(["pull", remote] + laptop)
        #expect(try llvs.run(["get", "late"] + laptop).status == 4, "the removed phone's version arrived")

        try llvs.succeed(["init"] + plain)
        let notEncrypted = try llvs.run(["push", remote] + plain)
        #expect(notEncrypted.status == 64 && notEncrypted.stderr.contains("blind store"), "\(notEncrypted.stderr)")
        #expect(try llvs.run(["push", "\(base)/v1/stores/diary"] + plain).status != 0, "a blind-only server keeps no transparent store")

        #expect(process.stop())
        for file in FileManager.default.enumerator(atPath: scratch.path("data"))?.compactMap({ $0 as? String }) ?? [] {
            guard let bytes = FileManager.default.contents(atPath: scratch.path("data") + "/" + file) else { continue }
            for secret in ["a secret kept from the server", "from the removed phone", "after the removal", "entry"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds \"\(secret)\"")
            }
        }
    }
}
