import Foundation
import LLVSCore

/// The completion-handler forms of the exchange API (as in the reference LLVS): each runs
/// the `async` form in a task and calls `completionHandler` with its result, from that task.
extension Exchange {
    /// Retrieves new versions; see ``retrieve(progress:)``.
    public func retrieve(executingUponCompletion completionHandler: @escaping @Sendable (Result<[Version.ID], any Error>) -> Void) {
        run(completionHandler) { try await self.retrieve() }
    }

    /// Sends the versions the other side lacks; see ``send(upTo:progress:)``.
    public func send(executingUponCompletion completionHandler: @escaping @Sendable (Result<[Version.ID], any Error>) -> Void) {
        run(completionHandler) { try await self.send() }
    }

    /// Runs ``prepareToRetrieve()``.
    public func prepareToRetrieve(executingUponCompletion completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        run(completionHandler) { try await self.prepareToRetrieve() }
    }

    /// Runs ``retrieveAllVersionIdentifiers()``.
    public func retrieveAllVersionIdentifiers(executingUponCompletion completionHandler: @escaping @Sendable (Result<[Version.ID], any Error>) -> Void) {
        run(completionHandler) { try await self.retrieveAllVersionIdentifiers() }
    }

    /// Runs ``retrieveVersions(identifiedBy:)``.
    public func retrieveVersions(identifiedBy versionIds: [Version.ID],
                                 executingUponCompletion completionHandler: @escaping @Sendable (Result<[Version], any Error>) -> Void) {
        run(completionHandler) { try await self.retrieveVersions(identifiedBy: versionIds) }
    }

    /// Runs ``retrieveValueChanges(forVersionsIdentifiedBy:)``.
    public func retrieveValueChanges(forVersionsIdentifiedBy versionIds: [Version.ID],
                                     executingUponCompletion completionHandler: @escaping @Sendable (Result<[Version.ID: [Value.Change]], any Error>) -> Void) {
        run(completionHandler) { try await self.retrieveValueChanges(forVersionsIdentifiedBy: versionIds) }
    }

    /// Runs ``prepareToSend()``.
    public func prepareToSend(executingUponCompletion completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        run(completionHandler) { try await self.prepareToSend() }
    }

    /// Runs ``send(versionChanges:)``.
    public func send(versionChanges: [VersionChanges],
                     executingUponCompletion completionHandler: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let shipped = versionChanges.map { ShippedVersion(version: $0.version, valueChanges: $0.valueChanges) }
        run(completionHandler) { try await self.send(versionChanges: shipped.map { ($0.version, $0.valueChanges) }) }
    }

    private func run<T: Sendable>(_ completionHandler: @escaping @Sendable (Result<T, any Error>) -> Void,
                                  _ body: @escaping @Sendable () async throws -> T) {
        Task {
            do {
                completionHandler(.success(try await body()))
            } catch {
                completionHandler(.failure(error))
            }
        }
    }
}

/// A version and its changes as one Sendable value (tuples cross tasks less easily).
struct ShippedVersion: Sendable {
    var version: Version
    var valueChanges: [Value.Change]
}
