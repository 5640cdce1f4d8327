import Foundation
import LLVS

/// W6 of BENCHMARKS.md: `FileSystemExchange` — send every version of a 1,000-version store
/// into an empty shared directory, then retrieve them all into an empty store.
enum ExchangeWorkloads {
    /// The source store is an ``ExchangeHistory`` of 1,000 versions (100 at small scale).
    static func w6(backend: String, scale: Scale, report: Report) async throws {
        let versionCount = scale == .full ? 1_000 : 100
        let (source, head) = try ExchangeHistory.makeStore(backend: backend, versionCount: versionCount, seed: 6)
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-exchange-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: shared) }
        let clock = ContinuousClock()
        var sent: [Version.ID] = []
        let sendTime = try await clock.measure {
            sent = try await FileSystemExchange(rootDirectoryURL: shared, store: source.store).send()
        }
        let target = try BenchmarkStore(backend: backend)
        var retrieved: [Version.ID] = []
        let retrieveTime = try await clock.measure {
            retrieved = try await FileSystemExchange(rootDirectoryURL: shared, store: target.store).retrieve()
        }
        guard sent.count == versionCount, retrieved.count == versionCount,
              try target.store.valueReferences(at: head).count == ExchangeHistory.initialValueCount else {
            throw BenchmarkError.wrongResult("W6 moved \(sent.count) / \(retrieved.count) of \(versionCount) versions")
        }
        let sendMs = milliseconds(of: sendTime), retrieveMs = milliseconds(of: retrieveTime)
        let parameters = ["versions": versionCount]
        report.record("W6", backend, "send_ms", sendMs, unit: "ms", parameters: parameters)
        report.record("W6", backend, "retrieve_ms", retrieveMs, unit: "ms", parameters: parameters)
        report.record("W6", backend, "send_versions_per_s", Double(versionCount) / (sendMs / 1_000), unit: "versions/s", parameters: parameters)
        report.record("W6", backend, "retrieve_versions_per_s", Double(versionCount) / (retrieveMs / 1_000), unit: "versions/s", parameters: parameters)
    }
}

/// W6E: W6 sealed beside plain W6 in the same run, on every transport: a shared directory
/// (`FileSystemExchange`, sealed as carriers), memory (`MemoryExchange`, sealed as carriers)
/// and a loopback sync server on SQLite (plain: `HTTPExchange` to a transparent store;
/// sealed: `HTTPBlobTransport` to a blind store). Each direction is timed plain and sealed,
/// eleven times, the one or the other first in turn (this machine's timings wander by a
/// third from run to run, and drift within one), each after the disk has been synchronized
/// and the machine left idle for 30 ms; the medians are reported with their ratio, with the
/// CPU time each used (every thread's) and how many cores a sealed send kept busy, the bytes
/// a sealed version adds to its binary form, and what sealing costs one core per version and
/// every core together (their ratio, `seal_all_cores_speedup`, is what this machine's cores
/// give together: about 2 on two free cores).
enum EncryptedExchangeWorkloads {
    /// Where versions go, and how a fresh location for one run is made.
    enum Transport: String, CaseIterable {
        case directory, memory, server
    }

    static func w6e(backend: String, scale: Scale, report: Report) async throws {
        let versionCount = scale == .full ? 1_000 : 100
        let (source, head) = try ExchangeHistory.makeStore(backend: backend, versionCount: versionCount, seed: 6)
        let keys = EncryptionKeys(storeKey: StoreEncryptionKey())
        let server = try await LoopbackSyncServer.start()
        var sealedBytes: Int64 = 0
        let parameters = ["versions": versionCount]
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        // Each timed direction starts on a quiet machine: what the last one wrote is on disk
        // (not being written back beside the next), and the threads it woke are asleep.
        func settle() async throws {
            sync()
            try await Task.sleep(for: .milliseconds(30))
        }
        try sealingCost(of: source.store, backend: backend, keys: keys, report: report, parameters: parameters)
        do {
            for transport in Transport.allCases {
                var times: [Bool: (send: [Double], retrieve: [Double])] = [false: ([], []), true: ([], [])]
                // The CPU time (every thread's) each timed direction used: the throughput ratio
                // depends on what a second core gives, the CPU times do not.
                var cpuTimes: [Bool: (send: [Double], retrieve: [Double])] = [false: ([], []), true: ([], [])]
                for round in 0..<11 {
                    // Alternating which goes first cancels what going first or second does.
                    for sealed in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-w6e-\(UUID().uuidString)")
                        defer { try? FileManager.default.removeItem(at: shared) }
                        let space = MemoryExchangeSpace()
                        let storeName = "w6e-\(UUID().uuidString.prefix(8).lowercased())"
                        func exchange(_ store: Store) throws -> any Exchange {
                            switch transport {
                            case .directory:
                                let directory = FileSystemExchange(rootDirectoryURL: shared, store: store)
                                return sealed ? EncryptedExchange(sealing: directory, keys: keys) : directory
                            case .memory:
                                let memory = MemoryExchange(space: space, store: store)
                                return sealed ? EncryptedExchange(sealing: memory, keys: keys) : memory
                            case .server:
                                guard sealed else { return try server.exchange(storeName, store: store) }
                                return EncryptedExchange(blobs: try server.blobTransport(storeName), store: store, keys: keys)
                            }
                        }
                        var sent: [Version.ID] = [], retrieved: [Version.ID] = []
                        try await settle()
                        let sendTime = try await wallAndCPUMilliseconds { sent = try await exchange(source.store).send() }
                        let target = try BenchmarkStore(backend: backend)
                        try await settle()
                        let retrieveTime = try await wallAndCPUMilliseconds { retrieved = try await exchange(target.store).retrieve() }
                        guard sent.count == versionCount, retrieved.count == versionCount,
                              try target.store.valueReferences(at: head).count == ExchangeHistory.initialValueCount else {
                            throw BenchmarkError.wrongResult("W6E (\(transport), sealed: \(sealed)) moved \(sent.count) / \(retrieved.count) of \(versionCount) versions")
                        }
                        times[sealed]?.send.append(sendTime.wall)
                        times[sealed]?.retrieve.append(retrieveTime.wall)
                        cpuTimes[sealed]?.send.append(sendTime.cpu)
                        cpuTimes[sealed]?.retrieve.append(retrieveTime.cpu)
                        if sealed, transport == .directory {
                            // The carriers' records declare their blobs' sizes.
                            let carriers = FileSystemExchange(rootDirectoryURL: shared, store: target.store)
                            sealedBytes = try await carriers.retrieveVersions(identifiedBy: try await carriers.retrieveAllVersionIdentifiers())
                                .reduce(0) { $0 + ($1.valueDataSize ?? 0) }
                        }
                    }
                }
                // The directory's figures keep their first names; the other transports' are prefixed.
                let prefix = transport == .directory ? "" : "\(transport.rawValue)_"
                for (sealed, name) in [(false, "plain"), (true, "sealed")] {
                    guard let measured = times[sealed] else { continue }
                    report.record("W6E", backend, "\(prefix)\(name)_send_ms", median(measured.send), unit: "ms", parameters: parameters)
                    report.record("W6E", backend, "\(prefix)\(name)_retrieve_ms", median(measured.retrieve), unit: "ms", parameters: parameters)
                    guard let cpu = cpuTimes[sealed] else { continue }
                    report.record("W6E", backend, "\(prefix)\(name)_send_cpu_ms", median(cpu.send), unit: "ms", parameters: parameters)
                    report.record("W6E", backend, "\(prefix)\(name)_retrieve_cpu_ms", median(cpu.retrieve), unit: "ms", parameters: parameters)
                }
                // How many cores each sealed send kept busy: its CPU time over its wall time.
                if let wall = times[true]?.send, let cpu = cpuTimes[true]?.send {
                    let cores = zip(cpu, wall).map { $0 / max($1, 0.001) }
                    report.record("W6E", backend, "\(prefix)sealed_send_cores", median(cores), unit: "cores", parameters: parameters)
                }
                if let plain = times[false], let sealed = times[true] {
                    report.record("W6E", backend, "\(prefix)sealed_to_plain_send_throughput", median(plain.send) / median(sealed.send), unit: "x",
                                  parameters: parameters)
                    report.record("W6E", backend, "\(prefix)sealed_to_plain_retrieve_throughput", median(plain.retrieve) / median(sealed.retrieve),
                                  unit: "x", parameters: parameters)
                }
            }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let plainBytes = try shippedVersions(of: source.store).reduce(0) { $0 + ExchangeBatch.encode([$1]).count }
        report.record("W6E", backend, "plain_bytes_per_version", Double(plainBytes) / Double(versionCount), unit: "bytes", parameters: parameters)
        report.record("W6E", backend, "sealed_bytes_added_per_version", Double(Int(sealedBytes) - plainBytes) / Double(versionCount), unit: "bytes",
                      parameters: parameters)
        try await rotation(backend: backend, report: report)
    }

    /// Every version of `store` as a send ships it: without successors, with its changes.
    static func shippedVersions(of store: Store) throws -> [VersionChanges] {
        try store.queryHistory { $0.versionIdentifiers(addedAt: 0..<$0.count) }.compactMap { id in
            guard var version = store.version(identifiedBy: id) else { return nil }
            version.successors = .init()
            return (version, try store.valueChanges(madeInVersionIdentifiedBy: id))
        }
    }

    /// What sealing costs one core per version: `prepare(forSending:)` on the source's
    /// versions in batches of 8 (below the size a batch is sealed on every core from); and
    /// what it costs when the whole store is one batch, sealed on every core. Medians of
    /// eleven passes each, the one after the other.
    static func sealingCost(of store: Store, backend: String, keys: EncryptionKeys, report: Report, parameters: [String: Int]) throws {
        let entries = try shippedVersions(of: store)
        let exchange = EncryptedExchange(sealing: MemoryExchange(space: MemoryExchangeSpace(), store: store), keys: keys)
        let batches = stride(from: 0, to: entries.count, by: 8).map { Array(entries[$0..<min($0 + 8, entries.count)]) }
        var costs: [Double] = [], parallelCosts: [Double] = []
        for _ in 0..<11 {
            let time = try ContinuousClock().measure { for batch in batches { _ = try exchange.prepare(forSending: batch) } }
            costs.append(milliseconds(of: time) * 1_000 / Double(max(1, entries.count)))
            let parallelTime = try ContinuousClock().measure { _ = try exchange.prepare(forSending: entries) }
            parallelCosts.append(milliseconds(of: parallelTime) * 1_000 / Double(max(1, entries.count)))
        }
        let cost = costs.sorted()[costs.count / 2], parallelCost = parallelCosts.sorted()[parallelCosts.count / 2]
        report.record("W6E", backend, "seal_us_per_version", cost, unit: "µs", parameters: parameters)
        report.record("W6E", backend, "seal_all_cores_us_per_version", parallelCost, unit: "µs", parameters: parameters)
        report.record("W6E", backend, "seal_all_cores_speedup", cost / max(parallelCost, 0.001), unit: "x",
                      parameters: ["versions": entries.count, "cores": ProcessInfo.processInfo.activeProcessorCount])
    }

    /// Key rotation with 10 enrolled devices: a new keyring revision (an epoch key sealed to
    /// each device with HPKE, signed) made and published through the shared directory that
    /// holds the store's sealed versions, and the bytes the exchange holds before and after:
    /// the one revision, nothing re-uploaded.
    static func rotation(backend: String, report: Report) async throws {
        let (source, _) = try ExchangeHistory.makeStore(backend: backend, versionCount: 100, seed: 6)
        let shared = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-w6e-rotation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: shared) }
        var devices = [try DeviceIdentity(name: "device 0")]
        var keyring = try Keyring.founding(storeKey: StoreEncryptionKey(), founder: devices[0])
        for index in 1..<10 {
            devices.append(try DeviceIdentity(name: "device \(index)"))
            keyring = try keyring.adding(devices[index].record, by: devices[0])
        }
        let exchange = try EncryptedExchange(sealing: FileSystemExchange(rootDirectoryURL: shared, store: source.store),
                                             keyring: keyring, member: .device(devices[0]))
        try await exchange.publish(keyring)
        try await exchange.send()
        func directoryBytes() -> Int {
            (FileManager.default.enumerator(at: shared, includingPropertiesForKeys: [.fileSizeKey])?.compactMap { $0 as? URL } ?? [])
                .reduce(0) { $0 + ((try? $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
        }
        var times: [Double] = []
        var added: [Int] = []
        let clock = ContinuousClock()
        for _ in 0..<21 {
            let before = directoryBytes()
            guard let current = exchange.keyring else { throw BenchmarkError.wrongResult("W6E rotation: the exchange follows no keyring") }
            let time = try await clock.measure {
                try await exchange.publish(try current.rotating(by: devices[0]))
            }
            times.append(milliseconds(of: time))
            added.append(directoryBytes() - before)
        }
        guard exchange.currentKeys.currentEpoch == 21, try exchange.keyring.map({ try $0.secrets(for: devices[9]).currentEpoch }) == 21 else {
            throw BenchmarkError.wrongResult("W6E rotation did not reach epoch 21 on every device")
        }
        let parameters = ["devices": 10]
        report.record("W6E", backend, "rotate_10_devices_ms", times.sorted()[times.count / 2], unit: "ms", parameters: parameters)
        report.record("W6E", backend, "rotate_bytes_published", Double(added.sorted()[added.count / 2]), unit: "bytes", parameters: parameters)
    }
}
