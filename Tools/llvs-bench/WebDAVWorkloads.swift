import Foundation
import LLVS

/// W6W: W6 through a WebDAV folder on Apache httpd (mod_dav, on loopback, Basic auth) in
/// clear and over TLS, beside the shared directory in the same run: send every version of a
/// 1,000-version store into an empty folder, then retrieve them all into an empty store,
/// plain and sealed (`EncryptedExchange` over the same transport, W6E's figure for WebDAV).
/// Each transport is timed five times each way, plain or sealed first in turn; the medians
/// are reported, with the sealed-to-plain throughput and the requests each plain direction
/// sent per version. The servers are the ones `Scripts/webdav start` runs (it exports
/// `LLVS_TEST_WEBDAV_*`; `Scripts/bench` starts them when they are not running).
enum WebDAVWorkloads {
    enum Transport: String, CaseIterable {
        case directory
        case apacheHTTP = "apache_http"
        case apacheHTTPS = "apache_https"

        var variable: String? {
            switch self {
            case .directory: nil
            case .apacheHTTP: "LLVS_TEST_WEBDAV_APACHE_HTTP"
            case .apacheHTTPS: "LLVS_TEST_WEBDAV_APACHE_HTTPS"
            }
        }
    }

    static func w6w(backend: String, scale: Scale, report: Report) async throws {
        let environment = ProcessInfo.processInfo.environment
        let versionCount = scale == .full ? 1_000 : 100
        let (source, head) = try ExchangeHistory.makeStore(backend: backend, versionCount: versionCount, seed: 6)
        let authorization = WebDAVAuthorization.basic(user: environment["LLVS_TEST_WEBDAV_USER"] ?? "llvs",
                                                      password: environment["LLVS_TEST_WEBDAV_PASSWORD"] ?? "")
        let client = try environment["LLVS_TEST_WEBDAV_CA"].map { try HTTPExchange.sharedHTTPClient(trustingCertificatesIn: URL(fileURLWithPath: $0)) }
        let parameters = ["versions": versionCount]
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        var medians: [Transport: (send: Double, retrieve: Double)] = [:]
        for transport in Transport.allCases {
            var base: URL?
            if let variable = transport.variable {
                guard let text = environment[variable], let url = URL(string: text) else {
                    throw BenchmarkError.wrongResult("W6W needs the WebDAV servers: eval \"$(Scripts/webdav start)\" (\(variable) is not set)")
                }
                base = url
            }
            var times: [Bool: (send: [Double], retrieve: [Double])] = [false: ([], []), true: ([], [])]
            var requests: (send: Int, retrieve: Int) = (0, 0)
            let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
            for round in 0..<5 {
                for sealed in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                    let shared = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-w6w-\(UUID().uuidString)")
                    defer { try? FileManager.default.removeItem(at: shared) }
                    let folder = base?.appendingPathComponent("w6w-\(UUID().uuidString.prefix(8))")
                    func exchange(_ store: Store) throws -> any Exchange {
                        let inner: any Exchange = try folder.map {
                            try WebDAVExchange(url: $0, store: store, authorization: authorization,
                                               httpClient: client ?? HTTPExchange.defaultHTTPClient)
                        } ?? FileSystemExchange(rootDirectoryURL: shared, store: store)
                        return sealed ? EncryptedExchange(sealing: inner, keys: keys) : inner
                    }
                    let clock = ContinuousClock()
                    let sender = try exchange(source.store)
                    var sent: [Version.ID] = [], retrieved: [Version.ID] = []
                    let sendTime = try await clock.measure { sent = try await sender.send() }
                    let target = try BenchmarkStore(backend: backend)
                    let receiver = try exchange(target.store)
                    let retrieveTime = try await clock.measure { retrieved = try await receiver.retrieve() }
                    guard sent.count == versionCount, retrieved.count == versionCount,
                          try target.store.valueReferences(at: head).count == ExchangeHistory.initialValueCount else {
                        throw BenchmarkError.wrongResult("W6W (\(transport.rawValue), sealed: \(sealed)) moved \(sent.count) / \(retrieved.count) of \(versionCount) versions")
                    }
                    times[sealed]?.send.append(milliseconds(of: sendTime))
                    times[sealed]?.retrieve.append(milliseconds(of: retrieveTime))
                    if let sending = sender as? WebDAVExchange, let receiving = receiver as? WebDAVExchange {
                        requests = (sending.folder.requestCount, receiving.folder.requestCount)
                    }
                }
            }
            let name = transport.rawValue
            guard let plain = times[false], let sealed = times[true] else { continue }
            medians[transport] = (median(plain.send), median(plain.retrieve))
            report.record("W6W", backend, "\(name)_send_ms", median(plain.send), unit: "ms", parameters: parameters)
            report.record("W6W", backend, "\(name)_retrieve_ms", median(plain.retrieve), unit: "ms", parameters: parameters)
            report.record("W6W", backend, "\(name)_sealed_send_ms", median(sealed.send), unit: "ms", parameters: parameters)
            report.record("W6W", backend, "\(name)_sealed_retrieve_ms", median(sealed.retrieve), unit: "ms", parameters: parameters)
            report.record("W6W", backend, "\(name)_sealed_to_plain_send_throughput", median(plain.send) / median(sealed.send), unit: "x",
                          parameters: parameters)
            report.record("W6W", backend, "\(name)_sealed_to_plain_retrieve_throughput", median(plain.retrieve) / median(sealed.retrieve),
                          unit: "x", parameters: parameters)
            if transport != .directory {
                report.record("W6W", backend, "\(name)_send_requests_per_version", Double(requests.send) / Double(versionCount),
                              unit: "requests", parameters: parameters)
                report.record("W6W", backend, "\(name)_retrieve_requests_per_version", Double(requests.retrieve) / Double(versionCount),
                              unit: "requests", parameters: parameters)
            }
        }
        if let directory = medians[.directory], let webDAV = medians[.apacheHTTPS] {
            report.record("W6W", backend, "apache_https_to_directory_send_time", webDAV.send / directory.send, unit: "x", parameters: parameters)
            report.record("W6W", backend, "apache_https_to_directory_retrieve_time", webDAV.retrieve / directory.retrieve, unit: "x",
                          parameters: parameters)
        }
    }
}
