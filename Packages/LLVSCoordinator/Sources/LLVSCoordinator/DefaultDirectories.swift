import Foundation

extension StoreCoordinator {
    /// The directory ``init(snapshotPolicy:)`` keeps its store in: on Linux
    /// `$XDG_DATA_HOME/LLVS/DefaultStore` (`~/.local/share/LLVS/DefaultStore` when
    /// `XDG_DATA_HOME` is unset, empty or not absolute); on Apple platforms
    /// `Application Support/LLVS/DefaultStore`.
    ///
    /// - Parameter environment: The environment variables to consult (the process's by default).
    /// - Throws: ``StoreCoordinatorError/noDefaultDirectory(kind:)`` when no home or data
    ///   directory can be determined.
    public static func defaultStoreDirectoryURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        try baseDirectory(xdgVariable: "XDG_DATA_HOME", homeRelative: [".local", "share"], kind: "data", environment: environment)
            .appendingPathComponent("LLVS", isDirectory: true)
            .appendingPathComponent("DefaultStore", isDirectory: true)
    }

    /// The directory ``init(snapshotPolicy:)`` keeps its state file and snapshot staging in:
    /// on Linux `$XDG_CACHE_HOME/LLVS/CoordinatorCache` (`~/.cache/LLVS/CoordinatorCache`
    /// when `XDG_CACHE_HOME` is unset, empty or not absolute); on Apple platforms
    /// `Caches/LLVS/CoordinatorCache`.
    ///
    /// - Parameter environment: The environment variables to consult (the process's by default).
    /// - Throws: ``StoreCoordinatorError/noDefaultDirectory(kind:)`` when no home or cache
    ///   directory can be determined.
    public static func defaultCacheDirectoryURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        try baseDirectory(xdgVariable: "XDG_CACHE_HOME", homeRelative: [".cache"], kind: "cache", environment: environment)
            .appendingPathComponent("LLVS", isDirectory: true)
            .appendingPathComponent("CoordinatorCache", isDirectory: true)
    }

    /// The platform's data or cache directory.
    private static func baseDirectory(xdgVariable: String, homeRelative: [String], kind: String,
                                      environment: [String: String]) throws -> URL {
        #if canImport(Darwin)
        let searchPath: FileManager.SearchPathDirectory = kind == "cache" ? .cachesDirectory : .applicationSupportDirectory
        guard let url = FileManager.default.urls(for: searchPath, in: .userDomainMask).first else {
            throw StoreCoordinatorError.noDefaultDirectory(kind: kind)
        }
        return url
        #else
        // XDG Base Directory Specification: a relative path in the variable is ignored.
        if let value = environment[xdgVariable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        let home: URL
        if let value = environment["HOME"], value.hasPrefix("/") {
            home = URL(fileURLWithPath: value, isDirectory: true)
        } else {
            home = FileManager.default.homeDirectoryForCurrentUser
        }
        guard home.path.hasPrefix("/") else { throw StoreCoordinatorError.noDefaultDirectory(kind: kind) }
        return homeRelative.reduce(home) { $0.appendingPathComponent($1, isDirectory: true) }
        #endif
    }
}
