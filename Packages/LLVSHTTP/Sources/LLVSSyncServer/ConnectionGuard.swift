import Foundation
import Hummingbird
import LLVSCore
import LLVSSupport
import LLVSSyncProtocol
import NIOCore
import NIOHTTPTypes

/// Counts a server's open connections and says whether a new one is served or only
/// answers `/health` (it is over ``SyncServerConfiguration/maximumConnectionCount``).
final class ConnectionGate: Sendable {
    /// The connections served at once.
    let maximum: Int
    private let count = Locked(0)
    private let metrics: SyncMetrics

    init(maximum: Int, metrics: SyncMetrics) {
        self.maximum = maximum
        self.metrics = metrics
    }

    /// Counts a new connection; true when it is within the cap.
    func open() -> Bool {
        let (admitted, open) = count.withLock { count -> (Bool, Int) in
            count += 1
            return (count <= maximum, count)
        }
        metrics.openConnections.record(open)
        return admitted
    }

    /// Counts a closed connection.
    func close() {
        let open = count.withLock { count -> Int in
            count -= 1
            return count
        }
        metrics.openConnections.record(open)
    }
}

/// The per-connection limits Hummingbird's own idle timeout does not cover, on the HTTP
/// parts of one connection (after decoding, before the application):
/// - the **header timeout**: the connection is closed unless its first request head arrives
///   within ``SyncServerConfiguration/headerTimeout`` of its opening (with TLS, the
///   handshake included);
/// - the **request timeout**: a request's body must end within
///   ``SyncServerConfiguration/requestTimeout`` of its head, and an answer must be taken
///   by the client (written to the socket in full) within the same time of its last part
///   being written (a client that stops reading is cut off);
/// - the **connection cap**: on a connection over the cap, every request other than
///   `GET /health` is answered 503 `overloaded` with `Retry-After` here, and the connection
///   closed, without reaching the application.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let gate: ConnectionGate
    private let headerTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let retryAfterSeconds: Int
    private let metrics: SyncMetrics
    private var isCounted = false
    private var isAdmitted = true
    private var isRefusing = false
    private var timer: Scheduled<Void>?
    private var responseTimer: Scheduled<Void>?
    private var responseCount = 0

    init(gate: ConnectionGate, configuration: SyncServerConfiguration, metrics: SyncMetrics) {
        self.gate = gate
        self.headerTimeout = TimeAmount(configuration.headerTimeout)
        self.requestTimeout = TimeAmount(configuration.requestTimeout)
        self.retryAfterSeconds = configuration.retryAfterSeconds
        self.metrics = metrics
    }

    func handlerAdded(context: ChannelHandlerContext) {
        isCounted = true
        isAdmitted = gate.open()
        arm(headerTimeout, reason: "header", context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        disarm()
        disarmResponse()
        if isCounted {
            isCounted = false
            gate.close()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        disarmResponse()
        if isCounted {
            isCounted = false
            gate.close()
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !isRefusing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            disarm()
            if !isAdmitted && !Self.isHealthCheck(head) {
                refuse(context: context)
                return
            }
            arm(requestTimeout, reason: "request", context: context)
        case .body:
            break
        case .end:
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        // The answer's last part: unless the client takes it (and what came before) within
        // the request timeout, close the connection.
        responseCount += 1
        let response = responseCount
        let written = context.eventLoop.makePromise(of: Void.self)
        if let promise { written.futureResult.cascade(to: promise) }
        responseTimer?.cancel()
        let metrics = self.metrics
        responseTimer = context.eventLoop.assumeIsolated().scheduleTask(in: requestTimeout) { [weak self] in
            self?.responseTimer = nil
            metrics.timedOut("response")
            context.close(promise: nil)
        }
        written.futureResult.assumeIsolated().whenComplete { [weak self] _ in
            guard let self, self.responseCount == response else { return }
            self.disarmResponse()
        }
        context.write(data, promise: written)
    }

    static func isHealthCheck(_ head: HTTPRequest) -> Bool {
        let path = head.path.map { $0.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? $0 }
        return head.method == .get && path == SyncAPI.healthPath
    }

    /// Answers 503 `overloaded` and closes the connection once the answer is written.
    private func refuse(context: ChannelHandlerContext) {
        isRefusing = true
        metrics.refused(status: 503)
        let message = "The server has as many connections as it serves; retry in \(retryAfterSeconds) s."
        let body = (try? CanonicalJSON.encode(SyncErrorBody(error: .overloaded, message: message))) ?? Data()
        var response = HTTPResponse(status: .serviceUnavailable)
        response.headerFields[.contentType] = "application/json"
        response.headerFields[.contentLength] = "\(body.count)"
        response.headerFields[.retryAfter] = "\(retryAfterSeconds)"
        response.headerFields[.connection] = "close"
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func arm(_ delay: TimeAmount, reason: String, context: ChannelHandlerContext) {
        disarm()
        let metrics = self.metrics
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [weak self] in
            self?.timer = nil
            metrics.timedOut(reason)
            context.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }

    private func disarmResponse() {
        responseTimer?.cancel()
        responseTimer = nil
    }
}
