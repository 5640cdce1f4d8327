import Foundation
import LLVSCore

/// Value data recently read from storage, by reference, bounded by bytes. Stored data never
/// changes (a reference names one immutable write), so a cached entry is never stale.
///
/// Two generations make an approximate LRU with O(1) operations: when the current one
/// outgrows half the limit it becomes the previous one and the older one is dropped; a hit in
/// the previous generation moves back to the current one.
struct ValueDataCache: Sendable {
    /// Data larger than this fraction of the limit is not cached: one such value would push
    /// out everything else.
    static let largestFraction = 16

    let byteLimit: Int
    private var current: [Value.Reference: Data] = [:]
    private var previous: [Value.Reference: Data] = [:]
    private var currentBytes = 0

    init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The cached data of `reference`, or nil.
    mutating func data(for reference: Value.Reference) -> Data? {
        if let data = current[reference] { return data }
        guard let data = previous.removeValue(forKey: reference) else { return nil }
        insert(data, for: reference)
        return data
    }

    /// Caches `data` for `reference`, unless it is too large to be worth it.
    mutating func insert(_ data: Data, for reference: Value.Reference) {
        guard data.count <= byteLimit / Self.largestFraction else { return }
        if currentBytes + data.count > byteLimit / 2 {
            previous = current
            current = [:]
            currentBytes = 0
        }
        if let old = current.updateValue(data, forKey: reference) { currentBytes -= old.count }
        currentBytes += data.count
    }
}
