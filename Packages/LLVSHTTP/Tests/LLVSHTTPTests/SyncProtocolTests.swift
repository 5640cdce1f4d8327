import Foundation
import LLVSCore
import LLVSHTTPExchange
import LLVSSyncProtocol
import LLVSSyncServer
import PropertyBased
import Testing

/// The wire vocabulary: cursors, store names, limits, tokens and the retry schedule.
@Suite("Sync protocol")
struct SyncProtocolTests {
    @Test("Cursors round-trip through their wire form; malformed ones are refused")
    func cursors() async {
        await propertyCheck(input: Gen.int(in: 0...Int(Int32.max)), Gen.int(in: 1...64)) { sequence, length in
            let cursor = SyncCursor(storeIdentity: String(repeating: "a", count: length), sequence: Int64(sequence))
            #expect(SyncCursor(cursor.description) == cursor)
        }
        for bad in ["", "abc", ".5", "id.-1", "id.x", "id.", String(repeating: "a", count: 65) + ".1"] {
            #expect(SyncCursor(bad) == nil, "\(bad)")
        }
        #expect(SyncCursor("0F6C-UUID.with.dots.12") == SyncCursor(storeIdentity: "0F6C-UUID.with.dots", sequence: 12))
    }

    @Test("Store names: 1-64 of A-Z a-z 0-9 . _ -, not starting with a dot")
    func storeNames() {
        for good in ["notes", "a", "My_Store-2.v1", String(repeating: "x", count: 64)] { #expect(SyncStoreName(rawValue: good) != nil, "\(good)") }
        for bad in ["", ".hidden", "a/b", "a b", "é", String(repeating: "x", count: 65), "..", "%2F"] {
            #expect(SyncStoreName(rawValue: bad) == nil, "\(bad)")
        }
    }

    @Test("Identifier limits")
    func limits() {
        #expect(PushValidation.identifierProblem(String(repeating: "é", count: 128), what: "id") == nil)
        #expect(PushValidation.identifierProblem(String(repeating: "é", count: 129), what: "id")?.code == .limitExceeded)
        #expect(PushValidation.identifierProblem("", what: "id")?.code == .limitExceeded)
        let version = Version(id: "v", predecessors: nil, timestamp: 1)
        let twice = [VersionChangesMessage(version: version, valueChanges: []), VersionChangesMessage(version: version, valueChanges: [])]
        #expect(PushValidation.problem(in: twice)?.code == .invalidContent)
    }

    @Test("Tokens: per store and for every store, from JSON and the environment form; short tokens refused")
    func tokens() throws {
        let tokens = try AccessTokens.parse("notes=notes-token-000000001, notes-token-000000002; *=admin-token-0000000001")
        #expect(tokens.permits("notes-token-000000001", store: "notes"))
        #expect(tokens.permits("notes-token-000000002", store: "notes"))
        #expect(!tokens.permits("notes-token-000000001", store: "other"))
        #expect(tokens.permits("admin-token-0000000001", store: "other"))
        #expect(!tokens.permits(nil, store: "notes"))
        #expect(!tokens.permits("", store: "notes"))
        #expect(!tokens.permits("notes-token-00000000", store: "notes"))
        #expect(throws: AccessTokensError.self) { try AccessTokens(["notes": ["short"]]) }
        #expect(throws: AccessTokensError.self) { try AccessTokens(["bad name": ["long-enough-token-000"]]) }
        #expect(throws: AccessTokensError.self) { try AccessTokens.parse("no-equals-sign") }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("{\"stores\": {\"notes\": [\"file-token-0000000001\"]}}".utf8).write(to: file)
        #expect(try AccessTokens.load(fileURL: file).permits("file-token-0000000001", store: "notes"))
        try Data("{\"notes\": 1}".utf8).write(to: file)
        #expect(throws: AccessTokensError.self) { try AccessTokens.load(fileURL: file) }
        #expect(AccessTokens.generateToken().count == 64)
        #expect(AccessTokens.generateToken() != AccessTokens.generateToken())
    }

    @Test("Retry delays double up to the maximum, with jitter between half and all of it")
    func retryDelays() {
        let policy = HTTPRetryPolicy(maximumAttempts: 10, initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        #expect(policy.delay(beforeRetry: 1, random: 1) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 2, random: 1) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 4, random: 1) == .milliseconds(800))
        #expect(policy.delay(beforeRetry: 5, random: 1) == .seconds(1))
        #expect(policy.delay(beforeRetry: 50, random: 0.5) == .milliseconds(500))
        #expect(HTTPRetryPolicy.isTransient(status: 503) && HTTPRetryPolicy.isTransient(status: 429))
        #expect(!HTTPRetryPolicy.isTransient(status: 422) && !HTTPRetryPolicy.isTransient(status: 401))
        #expect(HTTPRetryPolicy(maximumAttempts: 0).maximumAttempts == 1)
    }

    @Test("A store URL must be http(s) with a host")
    func storeURLs() throws {
        let client = try Client("urls")
        #expect(throws: HTTPExchangeError.self) { try client.exchange(URL(fileURLWithPath: "/tmp/x")) }
        #expect(throws: HTTPExchangeError.self) { try client.exchange(URL(string: "ftp://host/v1/stores/x")!) }
        #expect(throws: Never.self) { try client.exchange(URL(string: "https://host:8443/v1/stores/x/")!) }
    }
}
