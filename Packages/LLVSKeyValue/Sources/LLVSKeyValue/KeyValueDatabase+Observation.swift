import Foundation
import LLVSCore
import LLVSSupport

extension KeyValueDatabase {
    /// One key's versions after a change: an element of ``updatedValues``.
    public struct UpdatedValue: Hashable, Sendable {
        /// The key that changed.
        public let key: ScopedKey
        /// Its versions after the change (a delete is a `.null` version).
        public let versions: [Version]

        /// Creates an update.
        public init(key: ScopedKey, versions: [Version]) {
            self.key = key
            self.versions = versions
        }
    }

    /// The changes to this database from now on, one element per changed key: KeyValueCRDT's
    /// `updatedValuesPublisher` as an `AsyncSequence`. Local writes and merges (including
    /// ``sync(with:)`` and ``mergeHeads()``) deliver them. Each access makes a new stream;
    /// it ends when the consumer stops iterating.
    ///
    /// ```swift
    /// for await update in database.updatedValues {
    ///     print(update.key, update.versions.count)
    /// }
    /// ```
    public var updatedValues: AsyncStream<UpdatedValue> {
        let (stream, continuation) = AsyncStream.makeStream(of: UpdatedValue.self, bufferingPolicy: .unbounded)
        let id = observers.add(Observer(matches: { _ in true }, deliver: { [weak self] keys, head in
            guard let self else { return }
            do {
                for key in keys.sorted() {
                    continuation.yield(UpdatedValue(key: key, versions: try self.read(key: key.key, scope: key.scope, at: head)))
                }
            } catch {
                continuation.finish()
            }
        }))
        continuation.onTermination = { [observers] _ in observers.remove(id) }
        return stream
    }

    /// The versions of every key in `scope` named `key` (nil for any): first as they are
    /// now, then again after every local write or merge that changes one of them.
    /// KeyValueCRDT's `readPublisher(scope:key:)` as an `AsyncSequence`; deleted keys are
    /// included with their `.null` version, as in ``bulkRead(scope:key:)``.
    ///
    /// - Throws: (while iterating) what ``bulkRead(scope:key:)`` throws; the stream then ends.
    public func readValues(scope: String? = nil, key: String? = nil) -> AsyncThrowingStream<[ScopedKey: [Version]], any Error> {
        readValues { candidate in ScopedKey.matches(candidate, scope: scope, key: key) }
    }

    /// The versions of every key, in any scope, that starts with `keyPrefix`: first as they
    /// are now, then again after every change to one of them (KeyValueCRDT's
    /// `readPublisher(keyPrefix:)`).
    ///
    /// - Throws: (while iterating) what ``bulkRead(scope:key:)`` throws; the stream then ends.
    public func readValues(keyPrefix: String) -> AsyncThrowingStream<[ScopedKey: [Version]], any Error> {
        readValues { $0.key.utf8.starts(with: keyPrefix.utf8) }
    }

    /// A stream of the versions of the keys `matches` accepts, after every change to one.
    private func readValues(matching matches: @escaping @Sendable (ScopedKey) -> Bool) -> AsyncThrowingStream<[ScopedKey: [Version]], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [ScopedKey: [Version]].self, throwing: (any Error).self,
                                                                   bufferingPolicy: .unbounded)
        let snapshot: @Sendable (KeyValueDatabase, LLVSCore.Version.ID?) -> Void = { database, head in
            do {
                var result: [ScopedKey: [Version]] = [:]
                for (key, register) in try database.registers(at: head, matches) { result[key] = Version.versions(of: register) }
                continuation.yield(result)
            } catch {
                continuation.finish(throwing: error)
            }
        }
        // Registered before the first snapshot, so no change falls between the two.
        let id = observers.add(Observer(matches: matches, deliver: { [weak self] _, head in
            guard let self else { return }
            snapshot(self, head)
        }))
        continuation.onTermination = { [observers] _ in observers.remove(id) }
        snapshot(self, currentVersionId)
        return stream
    }

    /// Tells every observer whose keys are among `keys` that they changed at `head`.
    func notifyObservers(of keys: [ScopedKey], at head: LLVSCore.Version.ID) {
        for observer in observers.all {
            let matched = keys.filter(observer.matches)
            if !matched.isEmpty { observer.deliver(matched, head) }
        }
    }
}

/// One observer of a database: which keys it follows and what to do when they change.
struct Observer: Sendable {
    /// Whether the observer follows a key.
    let matches: @Sendable (ScopedKey) -> Bool
    /// Called with the changed keys it follows and the version they changed at.
    let deliver: @Sendable ([ScopedKey], LLVSCore.Version.ID) -> Void
}

/// The observers of one database.
final class Observers: Sendable {
    private let registered = Locked<[UUID: Observer]>([:])

    /// True when anyone observes (changed keys are only worked out then).
    var isObserved: Bool {
        registered.withLock { !$0.isEmpty }
    }

    /// The current observers.
    var all: [Observer] {
        registered.withLock { Array($0.values) }
    }

    /// Adds an observer and returns its registration.
    func add(_ observer: Observer) -> UUID {
        let id = UUID()
        registered.withLock { $0[id] = observer }
        return id
    }

    /// Removes a registration.
    func remove(_ id: UUID) {
        _ = registered.withLock { $0.removeValue(forKey: id) }
    }
}
