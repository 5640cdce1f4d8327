import Foundation

/// State guarded by a lock: `withLock` runs a closure with exclusive access to it.
///
/// LLVS uses this rather than `Synchronization.Mutex`: on Linux, `Mutex` locks with futexes
/// that the thread sanitizer cannot see, so every access it guards is reported as a race,
/// which would hide real ones. `NSLock` (a pthread mutex) is understood by the sanitizer
/// and costs about the same.
public final class Locked<State: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    /// Creates a lock guarding `initialState`.
    public init(_ initialState: State) {
        self.state = initialState
    }

    /// Runs `body` with exclusive access to the state and returns its result.
    ///
    /// - Throws: What `body` throws.
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
