import AsyncHTTPClient
import Foundation
import LLVSTesting
import NIOCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Several `llvs-server` processes over one PostgreSQL database, behind HAProxy balancing
/// requests round robin and checking each instance's `GET /ready`: the deployment
/// DEPLOYMENT.md describes, on loopback. Instances can be killed, stopped and started again
/// on their port; everything is killed when the cluster is released. One test uses a
/// cluster at a time (hence `@unchecked Sendable`); its waits run off the cooperative pool.
final class ServerCluster: @unchecked Sendable {
    static let token = "server-cluster-token-0123456789abcdef"

    /// The PostgreSQL server the tests use.
    static var postgresURL: String? { ProcessInfo.processInfo.environment["LLVS_TEST_POSTGRES_URL"] }
    /// HAProxy's executable, when installed.
    static let haproxy = ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].first(where: FileManager.default.isExecutableFile)
    /// Whether the cluster can run: PostgreSQL, and HAProxy (CI installs it, so there a
    /// missing one fails the tests instead of skipping them).
    static var isAvailable: Bool {
        postgresURL != nil && (haproxy != nil || ProcessInfo.processInfo.environment["CI"] == "true")
    }

    let scratch: ScratchDirectory
    /// The database of this cluster alone (made for it, dropped with it), so killing its
    /// connections or its notifications touches no other test.
    let databaseURL: String
    let server: ToolRunner
    let arguments: [String]
    let ports: [Int]
    let balancerPort: Int
    private(set) var instances: [BackgroundTool?]
    private var balancer: BackgroundTool?

    /// The balancer's base URL.
    var balancerBase: String { "http://127.0.0.1:\(balancerPort)" }
    /// Instance `index`'s base URL.
    func base(_ index: Int) -> String { "http://127.0.0.1:\(ports[index])" }

    private init(count: Int, arguments: [String]) throws {
        scratch = try ScratchDirectory()
        var server = try ToolRunner("llvs-server")
        server.environment["LLVS_SERVER_TOKENS"] = "*=\(Self.token)"
        self.server = server
        let postgres = try #require(Self.postgresURL)
        var database = try #require(URLComponents(string: postgres))
        database.path = "/llvs_cluster_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "_"))"
        databaseURL = try #require(database.string)
        self.arguments = ["--database", databaseURL, "--log-level", "warning"] + arguments
        var ports: [Int] = []
        while ports.count < count + 1 {
            let port = try Self.freePort()
            if !ports.contains(port) { ports.append(port) }
        }
        balancerPort = ports.removeLast()
        self.ports = ports
        instances = Array(repeating: nil, count: count)
    }

    deinit {
        for instance in instances { _ = instance?.stop(signal: SIGKILL) }
        _ = balancer?.stop(signal: SIGKILL)
        if let server = Self.postgresURL, let name = URLComponents(string: databaseURL)?.path.dropFirst() {
            _ = try? Self.psql(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
    }

    /// Runs `sql` with `psql` on `database`; what it printed, trimmed.
    ///
    /// - Throws: `BackgroundTool.Failure` when psql fails.
    static func psql(_ database: String, _ sql: String) throws -> String {
        let result = try ToolRunner(executable: URL(fileURLWithPath: "/usr/bin/env")).run(["psql", database, "-AtXq", "-v", "ON_ERROR_STOP=1", "-c", sql])
        guard result.status == 0 else { throw BackgroundTool.Failure(description: "psql: \(sql): \(result.stderr)") }
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `count` instances with `arguments` (beyond port, database and data directory)
    /// and HAProxy in front of them, once the balancer answers `/ready`.
    static func start(count: Int = 3, arguments: [String] = []) async throws -> ServerCluster {
        let haproxy = try #require(Self.haproxy, "HAProxy is not installed (Debian's haproxy; .ci/run installs it)")
        let cluster = try ServerCluster(count: count, arguments: arguments)
        let server = try #require(postgresURL), name = try #require(URLComponents(string: cluster.databaseURL)?.path.dropFirst())
        _ = try await offCooperativePool { try psql(server, "CREATE DATABASE \(name)") }
        for index in 0..<count { try await cluster.start(index) }
        let configuration = cluster.scratch.path("haproxy.cfg")
        try haproxyConfiguration(port: cluster.balancerPort, serverPorts: cluster.ports).write(toFile: configuration, atomically: true, encoding: .utf8)
        cluster.balancer = try BackgroundTool(ToolRunner(executable: URL(fileURLWithPath: haproxy)), ["-f", configuration, "-db"])
        do {
            try await waitUntilReady(cluster.balancerBase, what: "HAProxy")
        } catch {
            throw BackgroundTool.Failure(description: "\(error); HAProxy printed: \(cluster.balancer?.stderr ?? "")")
        }
        return cluster
    }

    /// The HAProxy configuration the cluster runs (DEPLOYMENT.md shows the same): round
    /// robin, `/ready` checked every 250 ms, a request whose connection failed or got no
    /// answer sent to another instance.
    static func haproxyConfiguration(port: Int, serverPorts: [Int]) -> String {
        """
        global
            maxconn 4000
        defaults
            mode http
            timeout connect 2s
            timeout client 90s
            timeout server 90s
            timeout http-request 30s
            retries 3
            option redispatch 1
            retry-on conn-failure empty-response response-timeout 502 503 504
        frontend llvs
            bind 127.0.0.1:\(port)
            default_backend llvs_servers
        backend llvs_servers
            balance roundrobin
            option httpchk GET /ready
            http-check expect status 200
            default-server check inter 250ms fall 2 rise 1 maxconn 5000
        \(serverPorts.enumerated().map { "    server llvs\($0.offset) 127.0.0.1:\($0.element)" }.joined(separator: "\n"))

        """
    }

    /// Starts instance `index` on its port and waits until it listens.
    func start(_ index: Int) async throws {
        let (server, port, arguments) = (self.server, ports[index], ["--data-directory", scratch.path("data-\(index)")] + self.arguments)
        instances[index] = try await offCooperativePool {
            let process = try BackgroundTool(server, ["--port", String(port)] + arguments)
            let lines = try process.lines(atLeast: 1, timeout: .seconds(60))
            guard lines.contains(where: { $0.hasPrefix("llvs-server listening on ") }) else {
                throw BackgroundTool.Failure(description: "instance on port \(port) did not start: \(lines), \(process.stderr)")
            }
            return process
        }
    }

    /// What each running instance has logged (at warning level and above) so far, for a
    /// failing test's message.
    var logs: String {
        instances.enumerated().map { index, instance in
            "instance \(index) (port \(ports[index])): " + (instance.map { $0.stderr.isEmpty ? "nothing logged" : $0.stderr } ?? "not running")
        }.joined(separator: "\n")
    }

    /// Sends `signal` to instance `index` and waits up to `timeout` for it to end: its exit
    /// status (a signal's number for a killed one), or nil when it still runs. An ended
    /// instance is gone until ``start(_:)``.
    @discardableResult
    func stop(_ index: Int, signal: Int32 = SIGTERM, timeout: Duration = .seconds(30)) async throws -> Int32? {
        guard let instance = instances[index] else { return nil }
        guard try await offCooperativePool({ instance.stop(signal: signal, timeout: timeout) }) else { return nil }
        instances[index] = nil
        return instance.process.terminationStatus
    }

    /// Waits until `GET base/ready` answers 200.
    static func waitUntilReady(_ base: String, what: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? await status(of: "\(base)/ready")) == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BackgroundTool.Failure(description: "\(what) at \(base) was not ready within \(timeout)")
    }

    /// The status of a GET of `url`, within `timeout` (a refused connection is retried until then).
    static func status(of url: String, timeout: Duration = .seconds(1)) async throws -> Int {
        Int(try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .init(timeout)).status.code)
    }

    /// A TCP port on loopback that nothing listens on now.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound, "no free port: errno \(errno)")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Long polls one store's events on one server in a loop, and notes when it first saw each
/// sequence: what a client waiting on that server learns, and when.
final class EventWatcher: Sendable {
    let url: String
    /// What the polls learned, shared with the polling task.
    private final class Record: Sendable {
        let seen = Mutex<[(sequence: Int64, at: ContinuousClock.Instant)]>([])
        let answers = Mutex<Int>(0)
        let lastFailure = Mutex<String?>(nil)
    }
    private let record = Record()
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts polling `base`'s events of `store` (the first poll, without a cursor, answers at
    /// once with the store's latest).
    init(base: String, store: String, token: String = ServerCluster.token) {
        url = "\(base)/v1/stores/\(store)/events"
        let url = self.url
        let polling = Task { [record] in
            var cursor: String?
            while !Task.isCancelled {
                var request = HTTPClientRequest(url: url + "?timeout=20" + (cursor.map { "&after=\($0)" } ?? ""))
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                do {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(40))
                    let body = try await response.body.collect(upTo: 1 << 16)
                    if response.status != .ok { record.lastFailure.withLock { $0 = "status \(response.status.code)" } }
                    guard response.status == .ok,
                          let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
                          let next = object["cursor"] as? String else {
                        try await Task.sleep(for: .milliseconds(100))
                        continue
                    }
                    let now = ContinuousClock.now
                    record.answers.withLock { $0 += 1 }
                    cursor = next
                    if let sequence = next.split(separator: ".").last.flatMap({ Int64($0) }) {
                        record.seen.withLock { if sequence > ($0.last?.sequence ?? 0) { $0.append((sequence, now)) } }
                    }
                } catch {
                    // The instance is restarting or the request was cancelled: poll again.
                    record.lastFailure.withLock { $0 = "\(error)" }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        task.withLock { $0 = polling }
    }

    deinit { task.withLock { $0?.cancel() } }

    /// Stops polling.
    func stop() { task.withLock { $0?.cancel() } }

    /// The polls answered so far.
    var answerCount: Int { record.answers.withLock { $0 } }

    /// How the last failed poll failed, if one did.
    var lastFailure: String? { record.lastFailure.withLock { $0 } }

    /// The highest sequence seen so far.
    var latest: Int64 { record.seen.withLock { $0.last?.sequence ?? 0 } }

    /// When a sequence of at least `sequence` was first seen.
    func firstSeen(atLeast sequence: Int64) -> ContinuousClock.Instant? {
        record.seen.withLock { $0.first { $0.sequence >= sequence }?.at }
    }

    /// Waits until a sequence of at least `sequence` is seen, up to `timeout`; whether it was.
    func waitUntilSeen(_ sequence: Int64, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while latest < sequence, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return latest >= sequence
    }
}

/// A blocking HTTP/1.1 connection on loopback that sends a request in parts, for tests that
/// act between the parts (a signal to the server mid-body). One task uses it at a time.
final class SlowRequest: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to `port` on 127.0.0.1.
    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        try #require(connected, "cannot connect to port \(port): errno \(errno)")
    }

    deinit { close(descriptor) }

    /// Writes all of `bytes`.
    func send(_ bytes: some Collection<UInt8>) throws {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let written = array[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            try #require(written > 0, "write failed: errno \(errno)")
            offset += written
        }
    }

    /// Reads one answer (until its body is whole), or until the peer closes or `timeout`
    /// passes; what arrived.
    func receive(timeout: Duration = .seconds(30)) -> String {
        var received = [UInt8]()
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while ContinuousClock.now < deadline {
            guard poll(&descriptorSet, 1, 100) >= 0 else { break }
            guard descriptorSet.revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += buffer[..<count]
            // One answer with its whole body is enough.
            if let headEnd = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count - headEnd.upperBound >= length { break }
            }
        }
        return String(decoding: received, as: UTF8.self)
    }
}
