import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State guarded by a lock: `withLock` runs a closure with exclusive access to it.
///
/// LLVS uses this rather than `Synchronization.Mutex`: on Linux, `Mutex` locks with futexes
/// that the thread sanitizer cannot see, so every access it guards is reported as a race,
/// which would hide real ones. This is a pthread mutex, which the sanitizer understands. A
/// thread finding it held tries again for a few microseconds (`spinLimit` tries) before it
/// sleeps: the locks LLVS takes are held for a microsecond or a few, and a sleeping thread
/// takes tens of microseconds to wake, so a reader that meets a committing writer waits for
/// the writer's few instructions rather than for a wake-up (W14 of `llvs-bench`).
public final class Locked<State: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    /// Creates a lock guarding `initialState`.
    public init(_ initialState: State) {
        self.state = initialState
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// How many times a thread tries to take the lock before it sleeps until it is free.
    static var spinLimit: Int { 1_000 }

    /// Runs `body` with exclusive access to the state and returns its result.
    ///
    /// - Throws: What `body` throws.
    public func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure) -> Result {
        var tries = 0
        while pthread_mutex_trylock(mutex) != 0 {
            tries += 1
            if tries == Self.spinLimit {
                pthread_mutex_lock(mutex)
                break
            }
        }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
