import Foundation
import LLVSCore
import LLVSHTTPExchange
import LLVSSyncProtocol
import LLVSSyncServer
import LLVSSyncStorage
import LLVSTesting
import Testing

/// What the server refuses, and how: unauthorized requests learn nothing; malformed or
/// oversized input gets a 4xx with a JSON error body; nothing refused is stored.
@Suite("The server refuses bad requests")
struct ServerRefusalTests {
    let directory: TemporaryDirectory
    let server: RunningServer
    let raw = RawClient()
    let storeToken = "notes-token-0123456789"

    init() async throws {
        directory = try TemporaryDirectory(prefix: "llvs-http-refusal")
        let tokens = try AccessTokens(["notes": [storeToken], "other": ["other-token-0123456789"]])
        server = try await RunningServer(storage: try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("s.sqlite")),
                                         tokens: tokens, maximumBodyByteCount: 100_000)
    }

    func url(_ store: String, _ path: String) -> String { "\(server.baseURL)/v1/stores/\(store)/\(path)" }

    func errorCode(_ body: Data) throws -> String {
        try JSONDecoder().decode(SyncErrorBody.self, from: body).error
    }

    /// Pushes one version to `notes` so the store exists.
    func pushOne() async throws -> Version {
        let client = try Client("refusal")
        let version = try client.save(["a": "1"])
        try await client.exchange(URL(string: url("notes", ""))!, token: storeToken).send()
        return version
    }

    @Test("Without a valid token every store route answers 401 and nothing else")
    func unauthorized() async throws {
        _ = try await pushOne()
        for token in [nil, "wrong-token-0123456789", "other-token-0123456789"] {
            for store in ["notes", "missing", "bad name!"] {
                let listing = try await raw.request(.GET, url(store, "versions"), token: token)
                #expect(listing.status == 401)
                #expect(try errorCode(listing.body) == "unauthorized")
                let push = try await raw.request(.POST, url(store, "push"), token: token, body: Data("{}".utf8))
                #expect(push.status == 401)
                // The same body whether or not the store exists: nothing is learned.
                #expect(listing.body == push.body)
            }
        }
        let health = try await raw.request(.GET, "\(server.baseURL)/health")
        #expect(health.status == 200)
    }

    @Test("The exchange reports a refused token as HTTPExchangeError.unauthorized")
    func exchangeUnauthorized() async throws {
        let client = try Client("intruder")
        try client.save(["x": "1"])
        let exchange = try client.exchange(URL(string: url("notes", ""))!, token: "wrong-token-0123456789")
        await #expect(throws: HTTPExchangeError.self) { try await exchange.send() }
        do {
            try await exchange.retrieve()
            Issue.record("expected a refusal")
        } catch let error as HTTPExchangeError {
            guard case .unauthorized = error else { Issue.record("expected unauthorized, got \(error)"); return }
        }
    }

    @Test("Malformed JSON, bad parameters and invalid names get 400 with a JSON error")
    func malformed() async throws {
        let push = try await raw.request(.POST, url("notes", "push"), token: storeToken, body: Data("{\"versions\": [".utf8))
        #expect(push.status == 400)
        #expect(try errorCode(push.body) == "malformedRequest")
        let wrongShape = try await raw.request(.POST, url("notes", "versions/fetch"), token: storeToken, body: Data("{\"ids\": 3}".utf8))
        #expect(wrongShape.status == 400)
        let cursor = try await raw.request(.GET, url("notes", "versions?after=not-a-cursor"), token: storeToken)
        #expect(cursor.status == 400)
        let limit = try await raw.request(.GET, url("notes", "versions?limit=0"), token: storeToken)
        #expect(limit.status == 400)
        let wildcard = try AccessTokens(["*": ["wildcard-token-0123456789"]])
        #expect(wildcard.permits("wildcard-token-0123456789", store: ".hidden"))
    }

    @Test("A path or method the API does not have gets 404 with the API's error body")
    func unknownPath() async throws {
        let path = try await raw.request(.GET, url("notes", "no-such-path"), token: storeToken)
        #expect(path.status == 404)
        #expect(try errorCode(path.body) == "notFound")
        let method = try await raw.request(.DELETE, url("notes", "versions"), token: storeToken)
        #expect(method.status == 404)
        #expect(try errorCode(method.body) == "notFound")
    }

    @Test("Unknown predecessors are refused with 422 and nothing of the push is stored")
    func unknownPredecessors() async throws {
        let stored = try await pushOne()
        let orphan = Version(id: Version.ID(), predecessors: .init(idOfFirst: "not-on-the-server"), timestamp: 10)
        let good = Version(id: Version.ID(), predecessors: .init(idOfFirst: stored.id), timestamp: 11)
        let body = try CanonicalJSON.encode(PushRequest(versions: [
            VersionChangesMessage(version: good, valueChanges: []),
            VersionChangesMessage(version: orphan, valueChanges: []),
        ]))
        let response = try await raw.request(.POST, url("notes", "push"), token: storeToken, body: body)
        #expect(response.status == 422)
        #expect(try errorCode(response.body) == "unknownPredecessors")
        let listing = try await raw.request(.GET, url("notes", "versions"), token: storeToken)
        let ids = try CanonicalJSON.decode(VersionListing.self, from: listing.body).versionIds
        #expect(ids == [stored.id], "the valid version of a refused push must not be stored either")
    }

    @Test("Oversized identifiers and too many identifiers are refused with 422")
    func oversized() async throws {
        let long = Version.ID(String(repeating: "v", count: SyncLimits.maximumIdentifierByteCount + 1))
        let body = try CanonicalJSON.encode(PushRequest(versions: [VersionChangesMessage(version: Version(id: long, predecessors: nil, timestamp: 1), valueChanges: [])]))
        let response = try await raw.request(.POST, url("notes", "push"), token: storeToken, body: body)
        #expect(response.status == 422)
        #expect(try errorCode(response.body) == "limitExceeded")
        let many = try CanonicalJSON.encode(VersionIdentifiersRequest(versionIds: (0...SyncLimits.maximumIdentifiersPerRequest).map { Version.ID("v\($0)") }))
        let fetch = try await raw.request(.POST, url("notes", "versions/fetch"), token: storeToken, body: many)
        #expect(fetch.status == 422)
        let value = Value(idString: String(repeating: "k", count: 300), data: Data("x".utf8))
        let bigValueId = try CanonicalJSON.encode(PushRequest(versions: [VersionChangesMessage(
            version: Version(id: Version.ID(), predecessors: nil, timestamp: 1), valueChanges: [.insert(value)])]))
        #expect(try await raw.request(.POST, url("notes", "push"), token: storeToken, body: bigValueId).status == 422)
        // The storing version a change names is a version identifier too: empty or oversized,
        // no client could add the version, so the server keeps none.
        for storing in [Version.ID(""), long] {
            let reference = Value.Reference(valueId: "k", storedVersionId: storing)
            let preserve = try CanonicalJSON.encode(PushRequest(versions: [VersionChangesMessage(
                version: Version(id: Version.ID(), predecessors: nil, timestamp: 1), valueChanges: [.preserve(reference)])]))
            let answer = try await raw.request(.POST, url("notes", "push"), token: storeToken, body: preserve)
            #expect(answer.status == 422)
            #expect(try errorCode(answer.body) == "limitExceeded")
        }
    }

    @Test("A body over the limit is refused with 413")
    func bodyTooLarge() async throws {
        let value = Value(idString: "big", data: Data(repeating: 7, count: 200_000))
        let body = try CanonicalJSON.encode(PushRequest(versions: [VersionChangesMessage(
            version: Version(id: Version.ID(), predecessors: nil, timestamp: 1), valueChanges: [.insert(value)])]))
        let response = try await raw.request(.POST, url("notes", "push"), token: storeToken, body: body)
        #expect(response.status == 413)
        #expect(try errorCode(response.body) == "bodyTooLarge")
    }

    @Test("A version pushed again with a different record is refused; the same record is accepted")
    func conflictingRecord() async throws {
        let stored = try await pushOne()
        var altered = stored
        altered.successors = .init()
        let same = try CanonicalJSON.encode(PushRequest(versions: [VersionChangesMessage(version: altered, valueChanges: [])]))
        let again = try await raw.request(.POST, url("notes", "push"), token: storeToken, body: same)
        #expect(again.status == 200)
        #expect(try CanonicalJSON.decode(PushResponse.self, from: again.body).alreadyPresentCount == 1)
        altered.timestamp += 1
        let different = try CanonicalJSON.encode(PushRequest(versions: [VersionChangesMessage(version: altered, valueChanges: [])]))
        let refused = try await raw.request(.POST, url("notes", "push"), token: storeToken, body: different)
        #expect(refused.status == 422)
        #expect(try errorCode(refused.body) == "invalidContent")
    }

    @Test("Unknown snapshot and a snapshot whose chunks do not match its manifest")
    func snapshotRefusals() async throws {
        let missing = try await raw.request(.GET, url("notes", "snapshots/latest"), token: storeToken)
        #expect(missing.status == 404)
        #expect(try errorCode(missing.body) == "noSnapshot")
        let chunk = Data("chunk".utf8)
        #expect(try await raw.request(.PUT, url("notes", "snapshots/s1/chunks/0"), token: storeToken, body: chunk).status == 204)
        let manifest = SnapshotManifestFixture.manifest(id: "s1", chunk: Data("other".utf8))
        let publish = try await raw.request(.PUT, url("notes", "snapshots/latest"), token: storeToken, body: try CanonicalJSON.encode(manifest))
        #expect(publish.status == 422)
        #expect(try await raw.request(.GET, url("notes", "snapshots/latest"), token: storeToken).status == 404)
        let badId = try await raw.request(.PUT, url("notes", "snapshots/..%2Fx/chunks/0"), token: storeToken, body: chunk)
        #expect(badId.status == 400)
    }
}
