import AsyncHTTPClient
import Foundation
import Hummingbird
import LLVSSupport
import Logging
import NIOCore
import NIOHTTP1

/// A proxy on loopback in front of a real WebDAV server that passes every request on, and
/// answers some with faults a test sets: a status instead of the server's (`507`, `423`),
/// a delay before each request (a slow server), listings whose entries come in reverse
/// order, a temporary file lost before the `MOVE` that retries it (as rclone did under load).
final class WebDAVFaultProxy: Sendable {
    /// A status to answer instead of passing a request on.
    struct StatusFault: Sendable {
        var method: String
        var status: Int
        var remaining: Int
        var retryAfter: Int?
        /// Only requests whose path ends so (nil: every one).
        var pathSuffix: String?
    }

    struct Faults: Sendable {
        var statuses: [StatusFault] = []
        var delay: Duration = .zero
        var reversesListings = false
        /// How many more temporary files to lose: when a `MOVE` of a temporary file
        /// (`.tmp-…`) the server refused as if its destination folder were missing comes
        /// again, the file is deleted on the server and the `MOVE` answered `403`, as rclone
        /// answered when it lost sight of the file ("Dir.Rename error: file does not exist").
        var losesRetriedTemporaryFiles = 0
        /// Temporary files lost so far.
        var lostTemporaryFiles = 0
        /// The temporary files whose `MOVE` the server refused.
        var refusedMoveSources: Set<String> = []
        /// Requests seen, by method.
        var counts: [String: Int] = [:]
    }

    let faults = Locked(Faults())
    let upstream: URL
    let port: Int
    private let task: Task<Void, any Error>

    /// A proxy for `upstream` (a folder URL of a WebDAV server; its scheme and host are
    /// replaced, the path kept), answering in clear on a free loopback port.
    init(upstream: URL, client: HTTPClient) async throws {
        self.upstream = upstream
        let faults = self.faults
        let origin = "\(upstream.scheme ?? "http")://\(upstream.host ?? "127.0.0.1"):\(upstream.port ?? 80)"
        let router = Router()
        router.add(middleware: Forwarder(origin: origin, client: client, faults: faults))
        var logger = Logger(label: "webdav-fault-proxy")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        task = Task {
            defer { continuation.finish() }
            try await app.run()
        }
        var bound: Int?
        for await port in ports {
            bound = port
            break
        }
        guard let bound else { throw TestFailure("the fault proxy stopped before listening") }
        port = bound
    }

    /// The proxy's URL of a folder of the upstream server.
    func url(of folder: URL) -> URL {
        var components = URLComponents(url: folder, resolvingAgainstBaseURL: false)!
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        return components.url!
    }

    /// Answers the next `count` requests of `method` with `status`.
    func fail(_ method: String, with status: Int, times count: Int, retryAfter: Int? = nil, pathSuffix: String? = nil) {
        faults.withLock {
            $0.statuses.append(StatusFault(method: method, status: status, remaining: count, retryAfter: retryAfter, pathSuffix: pathSuffix))
        }
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    struct Forwarder: RouterMiddleware {
        typealias Context = BasicRequestContext
        let origin: String
        let client: HTTPClient
        let faults: Locked<Faults>

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            let method = request.method.rawValue
            let path = request.uri.path
            let isTemporaryMove = method == "MOVE" && path.contains("/.tmp-")
            let (fault, delay, reverses, loses) = faults.withLock { faults -> (StatusFault?, Duration, Bool, Bool) in
                faults.counts[method, default: 0] += 1
                if isTemporaryMove, faults.losesRetriedTemporaryFiles > 0, faults.refusedMoveSources.remove(path) != nil {
                    faults.losesRetriedTemporaryFiles -= 1
                    faults.lostTemporaryFiles += 1
                    return (nil, faults.delay, false, true)
                }
                var found: StatusFault?
                if let index = faults.statuses.firstIndex(where: {
                    $0.method == method && $0.remaining > 0 && $0.pathSuffix.map { path.hasSuffix($0) } != false
                }) {
                    faults.statuses[index].remaining -= 1
                    found = faults.statuses[index]
                }
                return (found, faults.delay, faults.reversesListings, false)
            }
            if delay > .zero { try await Task.sleep(for: delay) }
            let body = try await request.body.collect(upTo: 1 << 28)
            if let fault {
                var headers = HTTPFields()
                if let seconds = fault.retryAfter { headers[.retryAfter] = "\(seconds)" }
                return Response(status: .init(code: fault.status), headers: headers)
            }
            if loses {
                var deletion = HTTPClientRequest(url: origin + request.uri.description)
                deletion.method = .DELETE
                if let authorization = request.headers[.authorization] { deletion.headers.add(name: "Authorization", value: authorization) }
                _ = try await client.execute(deletion, timeout: .seconds(60))
                return Response(status: .forbidden)
            }
            var forwarded = HTTPClientRequest(url: origin + request.uri.description)
            forwarded.method = HTTPMethod(rawValue: method)
            for field in request.headers where field.name.canonicalName != "host" {
                var value = field.value
                if field.name.canonicalName == "destination", let path = URLComponents(string: value)?.percentEncodedPath {
                    value = origin + path
                }
                forwarded.headers.add(name: field.name.rawName, value: value)
            }
            if body.readableBytes > 0 { forwarded.body = .bytes(body) }
            let answer = try await client.execute(forwarded, timeout: .seconds(60))
            var data = try await answer.body.collect(upTo: 1 << 28)
            if isTemporaryMove, [403, 409, 500].contains(Int(answer.status.code)) {
                faults.withLock { _ = $0.refusedMoveSources.insert(path) }
            }
            if reverses, method == "PROPFIND", answer.status.code == 207 {
                data = ByteBuffer(string: Self.reversingResponses(String(buffer: data)))
            }
            var headers = HTTPFields()
            headers[.contentType] = answer.headers.first(name: "Content-Type")
            headers[.eTag] = answer.headers.first(name: "ETag")
            headers[.contentRange] = answer.headers.first(name: "Content-Range")
            headers[.lastModified] = answer.headers.first(name: "Last-Modified")
            headers[.retryAfter] = answer.headers.first(name: "Retry-After")
            return Response(status: .init(code: Int(answer.status.code)), headers: headers, body: .init(byteBuffer: data))
        }

        /// The multistatus document with its `response` elements in reverse order.
        static func reversingResponses(_ text: String) -> String {
            guard let expression = try? NSRegularExpression(pattern: "<([A-Za-z0-9]+:)?response[ >][\\s\\S]*?</([A-Za-z0-9]+:)?response>") else {
                return text
            }
            let matches = expression.matches(in: text, range: NSRange(text.startIndex..., in: text))
            guard matches.count > 1, let first = Range(matches[0].range, in: text), let last = Range(matches[matches.count - 1].range, in: text) else {
                return text
            }
            let responses = matches.compactMap { Range($0.range, in: text).map { String(text[$0]) } }
            return String(text[..<first.lowerBound]) + responses.reversed().joined(separator: "\n") + String(text[last.upperBound...])
        }
    }
}
