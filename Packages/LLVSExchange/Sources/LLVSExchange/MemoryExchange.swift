import Foundation
import LLVSCore
import LLVSStore
import LLVSSupport

/// The in-memory counterpart of a shared directory: stores in one process that share a
/// space exchange versions through it, with the same cursors and notifications as the
/// file-system exchange. Useful in tests, previews and the convergence fuzzer.
public final class MemoryExchangeSpace: Sendable {
    struct Contents {
        var log: [Version.ID] = []
        var versions: [Version.ID: Version] = [:]
        var changes: [Version.ID: [Value.Change]] = [:]
        var listeners: [UUID: AsyncStream<Void>.Continuation] = [:]
    }

    /// Distinguishes spaces, so a cursor from one space is not used with another.
    let identifier = UUID()
    let contents = Locked(Contents())

    /// Creates an empty space.
    public init() {}

    /// The number of versions in the space.
    public var versionCount: Int {
        contents.withLock { $0.versions.count }
    }
}

/// An exchange through a ``MemoryExchangeSpace``.
public final class MemoryExchange: RestorationStateKeeping {
    /// The shared space.
    public let space: MemoryExchangeSpace
    /// The local store.
    public let store: Store
    /// See ``Exchange/maximumBatchByteCount``.
    public let maximumBatchByteCount: Int
    /// See ``RestorationStateKeeping/restoration``.
    public let restoration = ExchangeRestorationState()

    /// Creates an exchange between `store` and `space`.
    public init(space: MemoryExchangeSpace, store: Store, maximumBatchByteCount: Int = 5_000_000) {
        self.space = space
        self.store = store
        self.maximumBatchByteCount = maximumBatchByteCount
    }

    /// Every version in the space, in the order sent.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] {
        space.contents.withLock { $0.log }
    }

    /// The versions sent to the space after `cursor`.
    ///
    /// - Throws: Never; a cursor of another space restarts the listing.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        let saved = cursor.flatMap { try? JSONDecoder().decode(Position.self, from: $0.rawValue) }
        let start = saved?.space == space.identifier ? saved : nil
        let (ids, end) = space.contents.withLock { contents in
            (Array(contents.log.dropFirst(min(start?.offset ?? 0, contents.log.count))), contents.log.count)
        }
        let next = try JSONEncoder().encode(Position(space: space.identifier, offset: end))
        return VersionIdentifierPage(versionIds: ids, cursor: ExchangeCursor(rawValue: next), isCompleteListing: start == nil)
    }

    /// The versions with these identifiers.
    ///
    /// - Throws: ``ExchangeError/missingVersion(_:)``.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        try space.contents.withLock { contents in
            try versionIds.map { id in
                guard let version = contents.versions[id] else { throw ExchangeError.missingVersion(id) }
                return version
            }
        }
    }

    /// The changes of these versions.
    ///
    /// - Throws: ``ExchangeError/missingValueChanges(_:)``.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        try space.contents.withLock { contents in
            var result: [Version.ID: [Value.Change]] = [:]
            for id in versionIds {
                guard let changes = contents.changes[id] else { throw ExchangeError.missingValueChanges(id) }
                result[id] = changes
            }
            return result
        }
    }

    /// Adds the versions to the space and notifies the listeners of every other exchange on
    /// the space. A version the space holds already is never replaced: the same record and
    /// changes again are a no-op, other content an error.
    ///
    /// - Throws: ``ExchangeError/conflictingVersion(_:location:)`` when the space holds a
    ///   version with another record or other changes (nothing of the batch is added then).
    public func send(versionChanges: [VersionChanges]) async throws {
        let listeners = try space.contents.withLock { contents in
            for (version, changes) in versionChanges {
                if let held = contents.versions[version.id], !held.hasSameRecord(as: version) || contents.changes[version.id] != changes {
                    throw ExchangeError.conflictingVersion(version.id, location: "memory exchange space \(space.identifier)")
                }
            }
            for (version, changes) in versionChanges where contents.versions[version.id] == nil {
                var record = version
                record.successors = .init()
                contents.versions[version.id] = record
                contents.changes[version.id] = changes
                contents.log.append(version.id)
            }
            return Array(contents.listeners.values)
        }
        for listener in listeners { listener.yield() }
    }

    /// Yields after every send to the space that brings versions this store lacks.
    public var newVersionsAvailable: AsyncStream<Void> {
        let space = self.space, store = self.store
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = UUID()
        let (relay, relayContinuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        space.contents.withLock { $0.listeners[key] = relayContinuation }
        let task = Task {
            for await _ in relay {
                let log = space.contents.withLock { $0.log }
                if !store.historyIncludesVersions(identifiedBy: log) { continuation.yield() }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            task.cancel()
            space.contents.withLock { $0.listeners[key] = nil }
            relayContinuation.finish()
        }
        return stream
    }

    struct Position: Codable {
        var space: UUID
        var offset: Int
    }
}
