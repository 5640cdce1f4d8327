import Foundation
import LLVS
import LLVSTesting
import Testing

/// `StoreCoordinator` with a `WebDAVExchange`: two replicas sync through one folder of the
/// Apache server `Scripts/webdav` runs (TLS, Basic auth, the test CA) and converge, and a
/// third bootstraps from the snapshot one of them uploaded there.
@Suite("StoreCoordinator through WebDAV", .enabled(if: ProcessInfo.processInfo.environment["LLVS_TEST_WEBDAV_APACHE_HTTPS"] != nil))
struct CoordinatorWebDAVTests {
    static let environment = ProcessInfo.processInfo.environment

    func coordinator(_ name: String, in scratch: TemporaryDirectory, folder: URL, snapshots: SnapshotPolicy = .disabled) throws -> StoreCoordinator {
        let coordinator = try StoreCoordinator(withStoreDirectoryAt: scratch.url.appendingPathComponent("\(name)/store"),
                                               cacheDirectoryAt: scratch.url.appendingPathComponent("\(name)/cache"), snapshotPolicy: snapshots)
        let client = try HTTPExchange.sharedHTTPClient(trustingCertificatesIn: URL(fileURLWithPath: try #require(Self.environment["LLVS_TEST_WEBDAV_CA"])))
        coordinator.exchange = try WebDAVExchange(url: folder, store: coordinator.store,
                                                  authorization: .basic(user: Self.environment["LLVS_TEST_WEBDAV_USER"] ?? "llvs",
                                                                        password: Self.environment["LLVS_TEST_WEBDAV_PASSWORD"] ?? ""),
                                                  httpClient: client)
        return coordinator
    }

    @Test func twoCoordinatorsConvergeAndAThirdBootstrapsFromTheSnapshot() async throws {
        let scratch = try TemporaryDirectory(prefix: "llvs-coordinator-webdav")
        let base = try #require(Self.environment["LLVS_TEST_WEBDAV_APACHE_HTTPS"].flatMap(URL.init(string:)))
        let folder = base.appendingPathComponent("coordinators-\(UUID().uuidString.prefix(8))")
        let a = try coordinator("a", in: scratch, folder: folder, snapshots: SnapshotPolicy(enabled: true, minimumInterval: 0, minimumNewVersions: 1))
        let b = try coordinator("b", in: scratch, folder: folder)
        _ = try a.save(inserting: [Value(idString: "greeting", data: Data("hello from a".utf8))])
        _ = try b.save(inserting: [Value(idString: "colour", data: Data("blue".utf8))])
        _ = try await a.sync()
        _ = try await b.sync()
        _ = try await a.sync()
        #expect(a.currentVersion == b.currentVersion)
        #expect(try b.value(idString: "greeting").map { String(decoding: $0.data, as: UTF8.self) } == "hello from a")
        #expect(try a.value(idString: "colour").map { String(decoding: $0.data, as: UTF8.self) } == "blue")

        let c = try coordinator("c", in: scratch, folder: folder)
        #expect(try await c.bootstrapFromSnapshot(), "\(c.lastBootstrapSkipReason ?? "")")
        _ = try await c.sync()
        #expect(try c.value(idString: "colour").map { String(decoding: $0.data, as: UTF8.self) } == "blue")
    }
}
