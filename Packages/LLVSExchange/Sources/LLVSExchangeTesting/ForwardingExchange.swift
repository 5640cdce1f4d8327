import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore

/// An exchange that stands in front of another and forwards every part to it, except those
/// it implements itself: test doubles that count, fail, pause or record one part write that
/// part alone.
public protocol ForwardingExchange: Exchange {
    /// The exchange in front of which this one stands.
    var inner: any Exchange { get }
}

extension ForwardingExchange {
    /// The inner exchange's store.
    public var store: Store { inner.store }

    /// The inner exchange's state.
    public var restorationState: Data? {
        get { inner.restorationState }
        set { inner.restorationState = newValue }
    }

    /// Changes the inner exchange's state.
    ///
    /// - Throws: What `body` throws.
    public func updateRestorationState<Failure: Error>(_ body: (inout Data?) throws(Failure) -> Void) throws(Failure) {
        try inner.updateRestorationState(body)
    }

    /// The inner exchange's notifications.
    public var newVersionsAvailable: AsyncStream<Void> { inner.newVersionsAvailable }

    /// The inner exchange's batch limit.
    public var maximumBatchByteCount: Int { inner.maximumBatchByteCount }

    /// The inner exchange's send batch size.
    public var sendBatchByteCount: Int { inner.sendBatchByteCount }

    /// The inner exchange's first send batch size.
    public var firstSendBatchByteCount: Int { inner.firstSendBatchByteCount }

    /// The inner exchange's first retrieve batch size.
    public var firstRetrieveBatchByteCount: Int { inner.firstRetrieveBatchByteCount }

    /// The inner exchange's weight of a version in send batches.
    public var sendBatchBytesPerVersion: Int { inner.sendBatchBytesPerVersion }

    /// Whether the inner exchange prefers few batches.
    public var prefersFewBatches: Bool { inner.prefersFewBatches }

    /// Whether the inner exchange checks merge identifiers.
    public var checksMergeIdentifiers: Bool { inner.checksMergeIdentifiers }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func prepareToRetrieve() async throws { try await inner.prepareToRetrieve() }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func prepareToSend() async throws { try await inner.prepareToSend() }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func retrieveAllVersionIdentifiers() async throws -> [Version.ID] { try await inner.retrieveAllVersionIdentifiers() }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func retrieveVersionIdentifiers(after cursor: ExchangeCursor?) async throws -> VersionIdentifierPage {
        try await inner.retrieveVersionIdentifiers(after: cursor)
    }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID]) async throws -> [Version] {
        try await inner.retrieveVersions(identifiedBy: versionIds)
    }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID]) async throws -> [Version.ID: [Value.Change]] {
        try await inner.retrieveValueChanges(forVersionsIdentifiedBy: versionIds)
    }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func send(versionChanges: [VersionChanges]) async throws { try await inner.send(versionChanges: versionChanges) }

    /// Forwards, so the inner exchange does its own work ahead.
    ///
    /// - Throws: The inner exchange's error.
    public func prepare(forSending versionChanges: [VersionChanges]) throws -> PreparedBatch {
        try inner.prepare(forSending: versionChanges)
    }

    /// Forwards.
    ///
    /// - Throws: The inner exchange's error.
    public func send(prepared batch: PreparedBatch) async throws { try await inner.send(prepared: batch) }
}
