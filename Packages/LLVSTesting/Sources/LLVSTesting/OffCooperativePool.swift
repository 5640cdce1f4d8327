import Foundation

/// Runs `body` on a dispatch queue, off Swift's cooperative pool: for waits that block (a
/// child process's output, its exit, `pg_dump`). The pool has a thread per core (two
/// here), and the servers of the tests run on it; a blocked thread beside a busy one
/// (the convergence harness merging) stalls every server of the process, including the
/// one the child process waits on.
///
/// - Throws: What `body` throws.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
