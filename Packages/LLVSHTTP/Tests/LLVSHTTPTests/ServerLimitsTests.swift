import AsyncHTTPClient
import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSSyncProtocol
import LLVSSyncServer
import LLVSSyncStorage
import LLVSTesting
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The limits that let the server face the open internet, each on a real server on loopback
/// with tiny timeouts and caps: header, idle and request timeouts; the connection cap (503
/// with `Retry-After`, `/health` still answering); the body-memory cap, which
/// `HTTPExchange` waits out through `Retry-After`; TLS; `/metrics`; the open-file limit.
@Suite struct ServerLimitsTests {
    /// A server over a fresh SQLite storage with `configure` applied to its configuration.
    final class LimitedServer: Sendable {
        let directory: TemporaryDirectory
        let server: RunningServer
        var port: Int { server.port }

        init(_ configure: @Sendable (inout SyncServerConfiguration) -> Void) async throws {
            directory = try TemporaryDirectory(prefix: "llvs-limits")
            let storage = try SQLiteSyncStorage(fileURL: directory.url.appendingPathComponent("server.sqlite"))
            server = try await RunningServer(storage: storage, configure: configure)
        }

        func stop() async {
            await server.stop()
        }
    }

    // MARK: Timeouts

    @Test func anIdleConnectionIsClosedAfterTheIdleTimeout() async throws {
        let server = try await LimitedServer { $0.idleTimeout = .milliseconds(400); $0.headerTimeout = .seconds(10) }
        let connection = try RawConnection(port: server.port)
        // The idle timer counts from the server's last read (the request), so the close is
        // timed from the send: reading the answer may itself take a while on a busy machine.
        let sent = ContinuousClock.now
        try connection.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let answer = try #require(await connection.readResponse(within: .seconds(5)))
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        _ = try #require(await connection.waitForClose(within: .seconds(5)), "still open 5 s after its request")
        let closed = ContinuousClock.now - sent
        #expect(closed >= .milliseconds(300), "closed \(closed) after the request was sent")
        await server.stop()
    }

    @Test func aHalfSentHeadIsClosedAfterTheHeaderTimeout() async throws {
        let server = try await LimitedServer { $0.headerTimeout = .milliseconds(300); $0.idleTimeout = .seconds(30) }
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /health HTTP/1.1\r\nHo")
        let closed = try #require(await connection.waitForClose(within: .seconds(5)), "still open 5 s after half a head")
        #expect(closed >= .milliseconds(200), "closed after \(closed), before the header timeout")
        await server.stop()
    }

    @Test func aTricklingBodyIsClosedAfterTheRequestTimeout() async throws {
        let server = try await LimitedServer { $0.requestTimeout = .milliseconds(500); $0.idleTimeout = .seconds(30) }
        let connection = try RawConnection(port: server.port)
        try connection.send("POST /v1/stores/trickle/push HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(testToken)\r\n"
                            + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
        let started = ContinuousClock.now
        var closed = false
        // A byte every 100 ms keeps the idle timer quiet; only the request timeout ends it.
        while ContinuousClock.now - started < .seconds(5) {
            let sent = (try? connection.send(" ")) != nil
            let peerClosed = await connection.waitForClose(within: .milliseconds(100)) != nil
            if !sent || peerClosed {
                closed = true
                break
            }
        }
        let elapsed = ContinuousClock.now - started
        #expect(closed, "still open after 5 s of trickling")
        #expect(elapsed >= .milliseconds(400), "closed after \(elapsed)")
        await server.stop()
    }

    @Test func aClientThatStopsReadingIsCutOffAfterTheRequestTimeout() async throws {
        // 3 s: long enough for the 9 MB push before it on a loaded machine.
        let server = try await LimitedServer { $0.requestTimeout = .seconds(3); $0.idleTimeout = .seconds(30); $0.metricsAccess = .everyone }
        let base = "http://127.0.0.1:\(server.port)"
        let client = try Client("slow-reader")
        let version = try client.save(["big": String(repeating: "x", count: 9_000_000)])
        try await client.exchange(URL(string: "\(base)/v1/stores/slow")!).send()
        // About 12 MB of changes, far more than the socket buffers hold while nobody reads.
        let body = String(decoding: try CanonicalJSON.encode(VersionIdentifiersRequest(versionIds: [version.id])), as: UTF8.self)
        let connection = try RawConnection(port: server.port, receiveBufferByteCount: 4_096)
        try connection.send("POST /v1/stores/slow/changes/fetch HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(testToken)\r\n"
                            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        try await eventually(within: .seconds(15)) { try await metricsText(base).contains("llvs_timeouts_total{timeout=\"response\"} 1") }
        connection.close()
        await server.stop()
    }

    // MARK: Caps

    @Test func connectionsOverTheCapGet503WhileHealthAnswers() async throws {
        let server = try await LimitedServer { $0.maximumConnectionCount = 2; $0.retryAfterSeconds = 1 }
        let request = "GET /v1/stores/capped/versions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(testToken)\r\n\r\n"
        var held: [RawConnection] = []
        for _ in 0..<2 {
            let connection = try RawConnection(port: server.port)
            try connection.send(request)
            let answer = try #require(await connection.readResponse(within: .seconds(5)))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            held.append(connection)
        }
        let over = try RawConnection(port: server.port)
        try over.send(request)
        let refusal = try #require(await over.readResponse(within: .seconds(5)))
        #expect(refusal.hasPrefix("HTTP/1.1 503"), "\(refusal)")
        #expect(refusal.lowercased().contains("retry-after: 1\r\n"), "\(refusal)")
        #expect(refusal.contains("\"error\":\"overloaded\""), "\(refusal)")
        #expect(await over.waitForClose(within: .seconds(2)) != nil, "the refused connection is closed")

        let health = try RawConnection(port: server.port)
        try health.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let healthy = try #require(await health.readResponse(within: .seconds(5)))
        #expect(healthy.hasPrefix("HTTP/1.1 200"), "/health over the cap: \(healthy)")
        health.close()

        // Once a held connection closes, a new one is served again.
        held.removeFirst().close()
        var served = false
        let deadline = ContinuousClock.now + .seconds(3)
        while !served && ContinuousClock.now < deadline {
            let again = try RawConnection(port: server.port)
            try again.send(request)
            served = (await again.readResponse(within: .seconds(5)))?.hasPrefix("HTTP/1.1 200") ?? false
            again.close()
            if !served { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(served, "a connection under the cap again is served")
        await server.stop()
    }

    @Test func aBodyOverTheMemoryCapGets503AndTheExchangeRetriesAfterRetryAfter() async throws {
        let server = try await LimitedServer {
            $0.maximumBodyByteCount = 64 << 10
            $0.maximumConcurrentBodyByteCount = 64 << 10
            $0.retryAfterSeconds = 1
            $0.metricsAccess = .everyone
        }
        let base = "http://127.0.0.1:\(server.port)"
        // A push that declares 60 KB and sends one byte holds 60 KB of the 64 KB budget.
        let holder = try RawConnection(port: server.port)
        try holder.send("POST /v1/stores/budget/push HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(testToken)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{")
        try await eventually { try await metricsText(base).contains("llvs_body_bytes_in_flight 60000") }

        let raw = try await RawClient().request(.POST, "\(base)/v1/stores/budget/push", token: testToken,
                                                body: Data(repeating: 0x20, count: 8_000))
        #expect(raw.status == 503)

        let client = try Client("budget")
        try client.saveMany(3, valueBytes: 2_000)
        let exchange = try client.exchange(URL(string: "\(base)/v1/stores/budget")!,
                                           retry: HTTPRetryPolicy(maximumAttempts: 5, initialDelay: .milliseconds(20)))
        let started = ContinuousClock.now
        let sending = Task { try await exchange.send() }
        // Once the exchange's push has been refused, the held body goes away.
        try await eventually { try await metricsText(base).contains("llvs_refusals_total{status=\"503\"} 2") }
        holder.close()
        _ = try await sending.value
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(950), "the exchange retried after \(elapsed), before Retry-After's 1 s")

        let text = try await metricsText(base)
        #expect(text.contains("llvs_refusals_total{status=\"503\"} 2"), "\(text)")
        #expect(text.contains("llvs_pushes_total 1"), "\(text)")
        let other = try Client("budget-reader")
        _ = try await other.exchange(URL(string: "\(base)/v1/stores/budget")!).retrieve()
        #expect(other.versionIds == client.versionIds)
        await server.stop()
    }

    // MARK: TLS

    @Test func syncOverTLSWithASelfSignedCertificate() async throws {
        let files = try TemporaryDirectory(prefix: "llvs-tls")
        let certificate = files.url.appendingPathComponent("cert.pem"), key = files.url.appendingPathComponent("key.pem")
        try Self.makeSelfSignedCertificate(certificate: certificate, key: key)
        let server = try await LimitedServer {
            $0.tls = SyncServerTLS(certificateChainPath: certificate.path, privateKeyPath: key.path)
        }
        let storeURL = URL(string: "https://127.0.0.1:\(server.port)/v1/stores/secret")!
        let httpClient = try HTTPExchange.makeHTTPClient(trustingCertificatesIn: certificate)
        do {
            let writer = try Client("tls-writer"), reader = try Client("tls-reader")
            try writer.save(["greeting": "over TLS"])
            try await HTTPExchange(storeURL: storeURL, store: writer.store, accessToken: testToken, httpClient: httpClient).send()
            _ = try await HTTPExchange(storeURL: storeURL, store: reader.store, accessToken: testToken, httpClient: httpClient).retrieve()
            #expect(reader.versionIds == writer.versionIds)

            // A client that does not trust the certificate gets no answer.
            let untrusting = try HTTPExchange(storeURL: storeURL, store: reader.store, accessToken: testToken, retryPolicy: .none)
            await #expect(throws: HTTPExchangeError.self) { try await untrusting.retrieve() }
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
        try await httpClient.shutdown()
        await server.stop()
    }

    @Test func anUnusableCertificateIsATypedError() async throws {
        let files = try TemporaryDirectory(prefix: "llvs-tls-bad")
        let bad = files.url.appendingPathComponent("bad.pem")
        try Data("not a certificate".utf8).write(to: bad)
        let storage = try SQLiteSyncStorage(fileURL: files.url.appendingPathComponent("server.sqlite"))
        let configuration = SyncServerConfiguration(port: 0, accessTokens: try AccessTokens(["*": [testToken]]),
                                                    tls: SyncServerTLS(certificateChainPath: bad.path, privateKeyPath: bad.path))
        await #expect(throws: SyncServerError.self) { try await SyncServer(storage: storage, configuration: configuration).run() }
        #expect(throws: HTTPExchangeError.self) { _ = try HTTPExchange.makeHTTPClient(trustingCertificatesIn: bad) }
    }

    // MARK: Metrics

    @Test func metricsCountPushesVersionsBytesRefusalsAndLatency() async throws {
        let metricsToken = "metrics-token-0123456789"
        let server = try await LimitedServer { $0.metricsAccess = .token(metricsToken) }
        let base = "http://127.0.0.1:\(server.port)"
        let raw = RawClient()
        #expect(try await raw.request(.GET, "\(base)/metrics").status == 401)
        #expect(try await raw.request(.GET, "\(base)/metrics", token: "not-a-valid-token-at-all").status == 401)
        #expect(try await raw.request(.GET, "\(base)/metrics", token: testToken).status == 200, "an admin token reads metrics")

        let client = try Client("metrics")
        try client.saveMany(4)
        try await client.exchange(URL(string: "\(base)/v1/stores/metered")!).send()

        let answer = try await raw.request(.GET, "\(base)/metrics", token: metricsToken)
        #expect(answer.status == 200)
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(text.contains("llvs_pushes_total 1"), "\(text)")
        #expect(text.contains("llvs_versions_added_total 4"), "\(text)")
        #expect(text.contains("llvs_refusals_total{status=\"401\"} 2"), "\(text)")
        #expect(text.contains("llvs_request_duration_seconds_bucket{route=\"/v1/stores/{store}/push\""), "\(text)")
        let pushedBytes = text.split(separator: "\n").first { $0.hasPrefix("llvs_pushed_bytes_total ") }
            .flatMap { Int($0.split(separator: " ")[1]) }
        #expect((pushedBytes ?? 0) > 400, "\(text)")
        await server.stop()
    }

    @Test func metricsCanBePublicOrDisabled() async throws {
        let open = try await LimitedServer { $0.metricsAccess = .everyone }
        #expect(try await RawClient().request(.GET, "http://127.0.0.1:\(open.port)/metrics").status == 200)
        await open.stop()
        let closed = try await LimitedServer { $0.metricsAccess = .disabled }
        #expect(try await RawClient().request(.GET, "http://127.0.0.1:\(closed.port)/metrics", token: testToken).status == 404)
        await closed.stop()
    }

    // MARK: Small parts

    @Test func openFileLimitIsRaisedToTheHardLimit() {
        let raised = OpenFileLimit.raiseToHardLimit()
        #expect(raised.soft == raised.hard || raised.soft >= 10_240, "\(raised)")
        #expect(OpenFileLimit.current() == raised)
    }

    @Test func retryAfterIsParsedAndBounded() throws {
        #expect(HTTPRetryPolicy.retryAfter("5") == .seconds(5))
        #expect(HTTPRetryPolicy.retryAfter(" 0 ") == .zero)
        #expect(HTTPRetryPolicy.retryAfter("-3") == nil)
        #expect(HTTPRetryPolicy.retryAfter("soon") == nil)
        let now = Date(timeIntervalSince1970: 1_700_000_000)   // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(HTTPRetryPolicy.retryAfter("Tue, 14 Nov 2023 22:13:50 GMT", now: now) == .seconds(30))
        let policy = HTTPRetryPolicy(initialDelay: .milliseconds(100), maximumRetryAfter: .seconds(10))
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(3), random: 1) == .seconds(3))
        let jittered = policy.delay(beforeRetry: 1, retryAfter: .seconds(3), random: 0.5)
        #expect(jittered > .milliseconds(3_299) && jittered < .milliseconds(3_301), "\(jittered)")
        #expect(policy.delay(beforeRetry: 1, retryAfter: .seconds(3_600), random: 1) == .seconds(10))
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: 1) == .milliseconds(100))
    }

    // MARK: Helpers

    /// Writes a self-signed certificate for 127.0.0.1 and localhost, and its key, with openssl.
    static func makeSelfSignedCertificate(certificate: URL, key: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", key.path, "-out", certificate.path, "-days", "2", "-subj", "/CN=localhost",
                             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("openssl req failed with status \(process.terminationStatus)") }
    }
}

/// The text of `/metrics` (the server must serve it to everyone).
private func metricsText(_ base: String) async throws -> String {
    String(decoding: try await RawClient().request(.GET, "\(base)/metrics").body, as: UTF8.self)
}

/// Waits until `condition` holds, checking every 20 ms for up to 5 s.
private func eventually(within limit: Duration = .seconds(5), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("the condition did not hold within \(limit)")
}

/// A plain, non-blocking TCP connection to a loopback port, for what an HTTP client will
/// not send (half a head, a trickling body). Its waits sleep between polls, so they never
/// block a thread that the server's handlers need.
final class RawConnection: @unchecked Sendable {
    private var descriptor: Int32

    init(port: Int, receiveBufferByteCount: Int32? = nil) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestFailure("socket: errno \(errno)") }
        if var size = receiveBufferByteCount {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = errno
            closeDescriptor(descriptor)
            throw TestFailure("connect: errno \(error)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close() }

    /// Closes the connection (once).
    func close() {
        if descriptor >= 0 {
            closeDescriptor(descriptor)
            descriptor = -1
        }
    }

    /// Sends `text`; throws when the peer has closed the connection.
    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count) }
            if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { continue }
            guard sent > 0 else { throw TestFailure("send: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads what is available: the bytes, and whether the peer has closed.
    private func readAvailable() -> (bytes: [UInt8], closed: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                bytes += buffer[0..<count]
            } else if count == 0 {
                return (bytes, true)
            } else {
                return (bytes, !(errno == EAGAIN || errno == EWOULDBLOCK))
            }
        }
    }

    /// One whole response (head and a `Content-Length` body), or nil if none came in time.
    func readResponse(within limit: Duration) async -> String? {
        let deadline = ContinuousClock.now + limit
        var received: [UInt8] = []
        while ContinuousClock.now < deadline {
            let (bytes, closed) = readAvailable()
            received += bytes
            let text = String(decoding: received, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound].lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length { return text }
            }
            if closed { return received.isEmpty ? nil : text }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// How long until the peer closed the connection, or nil if it is still open at `limit`.
    func waitForClose(within limit: Duration) async -> Duration? {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < limit {
            if readAvailable().closed { return ContinuousClock.now - started }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}

private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    return Darwin.send(descriptor, bytes, count, 0)
    #endif
}
