#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`), which bounds a server's connections.
public enum OpenFileLimit {
    /// The soft (enforced) and hard (ceiling) limits.
    public struct Limits: Sendable, Hashable {
        /// The limit enforced now.
        public var soft: Int
        /// The most the soft limit may be raised to without privileges.
        public var hard: Int
    }

    /// The limits now; `Int.max` stands for unlimited.
    public static func current() -> Limits {
        var limits = rlimit()
        guard getLimits(&limits) == 0 else { return Limits(soft: 1_024, hard: 1_024) }
        return Limits(soft: clamp(limits.rlim_cur), hard: clamp(limits.rlim_max))
    }

    /// Raises the soft limit to the hard limit (on macOS, to at most `OPEN_MAX`), as a
    /// server should at start: the usual soft limit of 1,024 is far below what a server
    /// facing the internet needs.
    ///
    /// - Returns: The limits after the attempt (unchanged when it failed).
    @discardableResult
    public static func raiseToHardLimit() -> Limits {
        var limits = rlimit()
        guard getLimits(&limits) == 0 else { return current() }
        var target = limits.rlim_max
        #if canImport(Darwin)
        target = min(target, rlim_t(OPEN_MAX))
        #endif
        if limits.rlim_cur < target {
            limits.rlim_cur = target
            _ = setLimits(&limits)
        }
        return current()
    }

    private static func clamp(_ value: rlim_t) -> Int {
        // RLIM_INFINITY is all ones, past Int.max.
        value > rlim_t(Int.max) ? Int.max : Int(value)
    }

    private static func getLimits(_ limits: inout rlimit) -> Int32 {
        #if canImport(Glibc)
        return getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits)
        #else
        return getrlimit(RLIMIT_NOFILE, &limits)
        #endif
    }

    private static func setLimits(_ limits: inout rlimit) -> Int32 {
        #if canImport(Glibc)
        return setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits)
        #else
        return setrlimit(RLIMIT_NOFILE, &limits)
        #endif
    }
}
