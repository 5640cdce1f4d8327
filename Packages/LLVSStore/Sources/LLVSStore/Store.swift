import Foundation
import LLVSCore
import LLVSHistory
import LLVSMap
import LLVSMerge
import LLVSZones

/// A versioned key-value store: Git for app data.
///
/// Every write makes a store-wide `Version`; any value can be read at any version;
/// versions branch and are merged with a three-way merge whose conflicts a `MergeArbiter`
/// resolves. The store is safe to use from any thread, and several processes may open the
/// same directory at once (``reloadHistory()`` picks up versions the others add).
///
/// ```swift
/// let store = try Store(rootDirectoryURL: url)
/// let first = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "A", data: data)])
/// let value = try store.value(idString: "A", at: first.id)
/// ```
public final class Store: Sendable {
    /// The directory the store lives in.
    public let rootDirectoryURL: URL

    /// The storage backend.
    public let storage: any Storage

    let engine: StoreEngine

    /// Virtual versions visible to this store object only: set on the views a merge hands
    /// to its arbiter while it combines several merge bases.
    let overlay: MergeOverlay?

    /// The default `cacheByteLimit` of ``init(rootDirectoryURL:storage:cacheByteLimit:)``:
    /// 32 MiB, half for decoded map nodes and half for value data read recently. (The file
    /// backend keeps its own cache of packs: `FileStorage.cacheByteLimit`.)
    public static let defaultCacheByteLimit = 32 << 20

    /// About how many bytes of heap this store's caches may hold: the `cacheByteLimit` it
    /// was opened with (a negative one counts as 0).
    public var cacheByteLimit: Int { engine.cacheByteLimit }

    /// Opens the store at `rootDirectoryURL`, creating it if needed, and loads its history.
    ///
    /// - Parameters:
    ///   - rootDirectoryURL: The store's directory.
    ///   - storage: The backend; `FileStorage()` by default.
    ///   - cacheByteLimit: About how many bytes of heap the store's caches may hold: half
    ///     for decoded map nodes, half for value data (``defaultCacheByteLimit``).
    /// - Throws: ``StoreError`` when the storage cannot be opened or its records are
    ///   corrupt.
    public convenience init(rootDirectoryURL: URL, storage: any Storage = FileStorage(), cacheByteLimit: Int = Store.defaultCacheByteLimit) throws {
        try self.init(rootDirectoryURL: rootDirectoryURL, storage: storage, cacheByteLimit: cacheByteLimit, partByteCount: VersionWriter.partByteCount)
    }

    /// Opens the store as ``init(rootDirectoryURL:storage:cacheByteLimit:)`` does, storing
    /// large versions in parts of about `partByteCount` bytes (tests use small parts).
    init(rootDirectoryURL: URL, storage: any Storage, cacheByteLimit: Int, partByteCount: Int) throws {
        self.rootDirectoryURL = rootDirectoryURL
        self.storage = storage
        let zones = try StoreError.wrapping { try storage.makeZones(rootDirectoryURL: rootDirectoryURL) }
        self.engine = try StoreEngine(zones: zones, cacheByteLimit: max(0, cacheByteLimit), partByteCount: max(1, partByteCount))
        self.overlay = nil
    }

    /// A view of `store` that also sees the virtual versions in `overlay`.
    init(viewOf store: Store, overlay: MergeOverlay) {
        self.rootDirectoryURL = store.rootDirectoryURL
        self.storage = store.storage
        self.engine = store.engine
        self.overlay = overlay
    }

    // MARK: Internal access

    /// The map root of a version (nil for an empty map).
    ///
    /// - Throws: ``StoreError/unknownVersion(_:)``.
    func root(of versionId: Version.ID) throws(StoreError) -> NodeReference? {
        if let virtual = overlay?.version(versionId) { return virtual.root }
        let (known, generation) = engine.readRoots.root(of: versionId)
        if let known { return known }
        let root = try engine.state.withLock { (state) throws(StoreError) -> NodeReference? in
            guard state.history.contains(versionId) else { throw .unknownVersion(versionId) }
            return state.root(of: versionId)
        }
        engine.readRoots.remember(root, of: versionId, generation: generation)
        return root
    }

    /// The stored bytes of a value reference, or nil.
    func data(for reference: Value.Reference) throws(StoreError) -> Data? {
        if let data = overlay?.data(for: reference) { return data }
        if let data = engine.valueCache.withLock({ $0.data(for: reference) }) { return data }
        let data = try StoreError.wrapping { try engine.zones.values.data(for: ZoneReference(reference)) }
        if let data { engine.valueCache.withLock { $0.insert(data, for: reference) } }
        return data
    }

    /// Runs a map operation, converting its errors.
    func withMap<T>(_ body: (Map, MapOverlay?) throws(MapError) -> T) throws(StoreError) -> T {
        do {
            return try body(engine.map, overlay?.maps)
        } catch {
            throw .map(error)
        }
    }
}
