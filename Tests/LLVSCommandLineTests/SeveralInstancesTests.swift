import Foundation
import LLVSCore
import LLVSExchange
import LLVSHTTPExchange
import LLVSStore
import LLVSTesting
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Three `llvs-server` processes on one PostgreSQL database behind HAProxy, round robin
/// (``ServerCluster``): a push through any instance wakes the clients waiting on every
/// instance through the PostgreSQL change feed; killed listening connections delay no wake
/// past the storage poll; an instance killed mid-push, and a rolling restart of all three
/// under load, lose no acknowledged version and surface no error to clients beyond retries.
@Suite(.serialized, .enabled(if: ServerCluster.isAvailable))
struct SeveralInstancesTests {
    /// A client's store that makes one version at a time and pushes it.
    struct Pusher {
        let store: Store

        init(_ scratch: ScratchDirectory, _ name: String) throws {
            store = try Store(rootDirectoryURL: scratch.url.appendingPathComponent(name))
        }

        /// Makes version number `index` and pushes it through `base`'s `store`; when the
        /// push was acknowledged.
        func pushNext(_ index: Int, through base: String, to store: String) async throws -> ContinuousClock.Instant {
            let value = Value(idString: "value-\(index)", data: Data("pushed \(index)".utf8))
            _ = try self.store.makeVersion(basedOnPredecessor: self.store.mostRecentHead?.id, inserting: [value])
            let url = try #require(URL(string: "\(base)/v1/stores/\(store)"))
            _ = try await HTTPExchange(storeURL: url, store: self.store, accessToken: ServerCluster.token).send()
            return ContinuousClock.now
        }
    }

    /// For each acknowledged sequence and each watcher, how long after the acknowledgement
    /// the watcher first saw it (zero when it saw it before the pusher heard back); nil for
    /// a wake that never came.
    static func wakeDelays(_ acknowledged: [Int64: ContinuousClock.Instant], _ watchers: [EventWatcher]) -> [Duration?] {
        acknowledged.flatMap { sequence, at in
            watchers.map { watcher in watcher.firstSeen(atLeast: sequence).map { max(.zero, $0 - at) } }
        }
    }

    /// p50, p99 and max of `delays`, in milliseconds, for the test's printout.
    static func summary(_ delays: [Duration]) -> String {
        let sorted = delays.sorted()
        guard !sorted.isEmpty else { return "no wakes" }
        func milliseconds(_ duration: Duration) -> Int { Int(duration / .milliseconds(1)) }
        let p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
        return "p50 \(milliseconds(sorted[sorted.count / 2])) ms, p99 \(milliseconds(p99)) ms, max \(milliseconds(sorted.last ?? .zero)) ms over \(sorted.count) wakes"
    }

    static func uniqueName(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// The storage poll is 30 s here, so only the change feed can wake a client in time:
    /// pushes through each instance in turn, and through the balancer, wake the long polls
    /// waiting on all three.
    @Test func aPushThroughAnyInstanceWakesClientsWaitingOnEveryInstance() async throws {
        let cluster = try await ServerCluster.start(arguments: ["--storage-poll-interval", "30"])
        let scratch = try ScratchDirectory()
        let pusher = try Pusher(scratch, "pusher")
        let store = Self.uniqueName("wake")
        _ = try await pusher.pushNext(0, through: cluster.base(0), to: store)
        let watchers = (0..<3).map { EventWatcher(base: cluster.base($0), store: store) }
        defer { watchers.forEach { $0.stop() } }
        for watcher in watchers { #expect(await watcher.waitUntilSeen(1, timeout: .seconds(30)), "\(watcher.url)") }
        try await Task.sleep(for: .milliseconds(300))

        var acknowledged: [Int64: ContinuousClock.Instant] = [:]
        for round in 1...8 {
            let through = round == 8 ? cluster.balancerBase : cluster.base(round % 3)
            acknowledged[Int64(round + 1)] = try await pusher.pushNext(round, through: through, to: store)
            for watcher in watchers {
                #expect(await watcher.waitUntilSeen(Int64(round + 1), timeout: .seconds(20)), "round \(round): \(watcher.url)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let delays = Self.wakeDelays(acknowledged, watchers)
        #expect(!delays.contains(nil), "every client on every instance is woken by every push")
        let woken = delays.compactMap { $0 }
        #expect(woken.allSatisfy { $0 < .seconds(5) }, "the change feed, not the 30-s storage poll, wakes them: \(Self.summary(woken))")
        print("SeveralInstancesTests wake across instances: \(Self.summary(woken))")
    }

    /// The instances' listening connections are killed every 300 ms while a client pushes
    /// through the balancer: every client on every instance still sees every push, none
    /// later than the storage poll (1 s) and a loaded machine's allowance after it.
    @Test func killedListeningConnectionsDelayNoWakePastTheStoragePoll() async throws {
        let cluster = try await ServerCluster.start()
        let scratch = try ScratchDirectory()
        let pusher = try Pusher(scratch, "pusher")
        let store = Self.uniqueName("listen-killed")
        _ = try await pusher.pushNext(0, through: cluster.balancerBase, to: store)
        let watchers = (0..<3).map { EventWatcher(base: cluster.base($0), store: store) }
        defer { watchers.forEach { $0.stop() } }
        for watcher in watchers { #expect(await watcher.waitUntilSeen(1, timeout: .seconds(30)), "\(watcher.url)") }

        let database = cluster.databaseURL
        let killing = Task {
            var killed = 0
            while !Task.isCancelled {
                killed += (try? await offCooperativePool {
                    Int(try ServerCluster.psql(database, """
                        SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                        WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
                        """)) ?? 0
                }) ?? 0
                try? await Task.sleep(for: .milliseconds(300))
            }
            return killed
        }
        var acknowledged: [Int64: ContinuousClock.Instant] = [:]
        let pushing = ContinuousClock.now
        for index in 1...40 {
            acknowledged[Int64(index + 1)] = try await pusher.pushNext(index, through: cluster.balancerBase, to: store)
            try await Task.sleep(for: .milliseconds(50))
        }
        for watcher in watchers {
            #expect(await watcher.waitUntilSeen(41, timeout: .seconds(20)), "\(watcher.url) saw up to \(watcher.latest) after \(watcher.answerCount) answers, last failure: \(watcher.lastFailure ?? "none")")
        }
        killing.cancel()
        let killed = await killing.value
        #expect(killed >= 3, "the listening connections were killed \(killed) times")

        let delays = Self.wakeDelays(acknowledged, watchers)
        #expect(!delays.contains(nil), "every client on every instance sees every push; the instances logged:\n\(cluster.logs)")
        let woken = delays.compactMap { $0 }
        #expect(woken.allSatisfy { $0 <= .milliseconds(2_500) }, "no wake later than the 1-s storage poll allows: \(Self.summary(woken))")
        print("SeveralInstancesTests listening connections killed \(killed) times during 40 pushes (\(ContinuousClock.now - pushing)): "
              + Self.summary(woken))
    }

    /// One instance is killed (SIGKILL) while a client pushes 150 versions through the
    /// balancer: the client's retries complete the transfer through the others, and every
    /// version is served, by the balancer and by the instance once it is back.
    @Test func anInstanceKilledMidPushLosesNothingAcknowledged() async throws {
        let cluster = try await ServerCluster.start()
        let scratch = try ScratchDirectory()
        let store = Self.uniqueName("instance-killed")
        let url = "\(cluster.balancerBase)/v1/stores/\(store)"
        let worker = try ToolRunner("llvs-http-worker")
        let pusher = try BackgroundTool(worker, [scratch.path("client"), url, ServerCluster.token, "150"])
        let acknowledgedAtKill = try await offCooperativePool {
            let deadline = ContinuousClock.now + .seconds(60)
            while ServerKillTrialTests.acknowledged(pusher.stdout) < 10, pusher.process.isRunning, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            return ServerKillTrialTests.acknowledged(pusher.stdout)
        }
        let victim = Int.random(in: 0..<3)
        #expect(try await cluster.stop(victim, signal: SIGKILL) == SIGKILL)
        #expect(acknowledgedAtKill < 150, "the kill came after the push ended")
        let status = try await offCooperativePool { pusher.process.waitUntilExit(); return pusher.process.terminationStatus }
        #expect(status == 0, "the push completes through the other instances: \(pusher.stderr)")

        let llvs = try ToolRunner("llvs")
        let reader = ["--store", scratch.path("reader")]
        try llvs.succeed(["init"] + reader)
        let pulled = try llvs.succeed(["pull", url, "--token", ServerCluster.token, "--json"] + reader).object()["retrieved"] as? Int
        #expect(pulled == 150, "150 versions pushed, \(pulled ?? -1) served")
        #expect(try llvs.succeed(["verify"] + reader).status == 0)

        try await cluster.start(victim)
        let again = ["--store", scratch.path("reader-again")]
        try llvs.succeed(["init"] + again)
        let direct = try llvs.succeed(["pull", "\(cluster.base(victim))/v1/stores/\(store)", "--token", ServerCluster.token, "--json"] + again)
        #expect(try direct.object()["retrieved"] as? Int == 150, "the restarted instance serves every version")
        print("SeveralInstancesTests instance \(victim) killed with \(acknowledgedAtKill) of 150 versions acknowledged; all 150 served after")
    }

    /// All three instances are restarted in turn (SIGTERM, then started again on their port)
    /// while three clients push 600 versions each into one store through the balancer: each
    /// instance exits cleanly once its requests are done, a long poll waiting on it is
    /// answered at once, every push completes (retries only), and every version is served.
    @Test func aRollingRestartUnderLoadLosesNothing() async throws {
        let cluster = try await ServerCluster.start()
        let scratch = try ScratchDirectory()
        let store = Self.uniqueName("rolling")
        let url = "\(cluster.balancerBase)/v1/stores/\(store)"
        let worker = try ToolRunner("llvs-http-worker")
        let versionCount = 600
        let pushers = try (0..<3).map {
            try BackgroundTool(worker, [scratch.path("client-\($0)"), url, ServerCluster.token, String(versionCount)])
        }
        // A client waiting on an idle store through each instance.
        let idle = Self.uniqueName("idle")
        _ = try await Pusher(scratch, "idle-pusher").pushNext(0, through: cluster.balancerBase, to: idle)

        _ = try await offCooperativePool {
            let deadline = ContinuousClock.now + .seconds(120)
            while pushers.contains(where: { ServerKillTrialTests.acknowledged($0.stdout) < 4 && $0.process.isRunning }),
                  ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        var acknowledgedAtRestart: [Int] = []
        var stopTimes: [Duration] = []
        for index in 0..<3 {
            let poller = EventWatcher(base: cluster.base(index), store: idle)
            #expect(await poller.waitUntilSeen(1, timeout: .seconds(30)))
            try await Task.sleep(for: .milliseconds(200))
            let pollsBefore = poller.answerCount
            acknowledgedAtRestart.append(pushers.map { ServerKillTrialTests.acknowledged($0.stdout) }.reduce(0, +))
            let stopping = ContinuousClock.now
            let status = try await cluster.stop(index, signal: SIGTERM)
            stopTimes.append(ContinuousClock.now - stopping)
            #expect(status == 0, "instance \(index) exits cleanly on SIGTERM")
            #expect(poller.answerCount > pollsBefore, "a long poll waiting on instance \(index) is answered when it stops")
            poller.stop()
            #expect((try? await ServerCluster.status(of: "\(cluster.base(index))/ready")) != 200, "a stopped instance is not ready")
            try await cluster.start(index)
            try await ServerCluster.waitUntilReady(cluster.base(index), what: "instance \(index)")
            try await Task.sleep(for: .milliseconds(300))
        }
        #expect(acknowledgedAtRestart.allSatisfy { $0 < 3 * versionCount }, "the restarts came under load: \(acknowledgedAtRestart)")
        for (index, pusher) in pushers.enumerated() {
            let status = try await offCooperativePool { pusher.process.waitUntilExit(); return pusher.process.terminationStatus }
            #expect(status == 0, "client \(index) saw no error beyond retries: \(pusher.stderr)")
        }

        let llvs = try ToolRunner("llvs")
        let reader = ["--store", scratch.path("reader")]
        try llvs.succeed(["init"] + reader)
        let pulled = try llvs.succeed(["pull", url, "--token", ServerCluster.token, "--json"] + reader).object()["retrieved"] as? Int
        #expect(pulled == 3 * versionCount, "\(3 * versionCount) versions pushed, \(pulled ?? -1) served")
        #expect(try llvs.succeed(["verify"] + reader).status == 0)
        print("SeveralInstancesTests rolling restart: versions acknowledged at each restart \(acknowledgedAtRestart) of \(3 * versionCount), "
              + "SIGTERM to exit \(stopTimes)")
    }

    /// SIGTERM arrives while a push's body is half sent: the instance stops accepting
    /// connections and is no longer ready, but waits for the push, stores it, answers 200 and
    /// then exits with status 0; started again, it serves the version.
    @Test func sigtermFinishesThePushInFlightBeforeExiting() async throws {
        let cluster = try await ServerCluster.start(count: 1)
        let store = Self.uniqueName("drain")
        let identifier = UUID().uuidString
        let value = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let body = Data("""
            {"versions":[{"valueChanges":[{"insert":{"data":"\(value.base64EncodedString())","id":"large","storedVersionId":"\(identifier)"}}],\
            "version":{"identifier":"\(identifier)","timestamp":785000000.5,"valueDataSize":\(value.count)}}]}
            """.utf8)
        let head = "POST /v1/stores/\(store)/push HTTP/1.1\r\nHost: drain\r\nAuthorization: Bearer \(ServerCluster.token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        let request = try SlowRequest(port: cluster.ports[0])
        try request.send(Array(head.utf8) + body.prefix(body.count / 2))
        try await Task.sleep(for: .milliseconds(300))

        let instance = try #require(cluster.instances[0])
        kill(instance.process.processIdentifier, SIGTERM)
        try await Task.sleep(for: .milliseconds(500))
        #expect(instance.process.isRunning, "the instance waits for the push in flight")
        #expect((try? await ServerCluster.status(of: "\(cluster.base(0))/ready")) != 200, "a stopping instance is not ready")

        try request.send(body.dropFirst(body.count / 2))
        let answer = try await offCooperativePool { request.receive() }
        #expect(answer.hasPrefix("HTTP/1.1 200"), "the push in flight is answered: \(answer.prefix(300))")
        #expect(answer.contains(identifier))
        let status = try await cluster.stop(0, signal: SIGTERM)
        #expect(status == 0, "then the instance exits cleanly")

        try await cluster.start(0)
        let scratch = try ScratchDirectory()
        let llvs = try ToolRunner("llvs")
        let reader = ["--store", scratch.path("reader")]
        try llvs.succeed(["init"] + reader)
        let pulled = try llvs.succeed(["pull", "\(cluster.base(0))/v1/stores/\(store)", "--token", ServerCluster.token, "--json"] + reader)
        #expect(try pulled.object()["retrieved"] as? Int == 1, "the push finished during the shutdown is stored")
    }
}
