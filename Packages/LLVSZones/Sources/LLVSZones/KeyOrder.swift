import LLVSCore

/// Orders zone keys by their UTF-8 bytes (the order packs and the SQLite table keep) without
/// comparing strings for most pairs: each key's first eight bytes are sorted as one integer,
/// and only keys that share them are compared in full.
public enum KeyOrder {
    /// The positions of `keys` in UTF-8 byte order; where a key occurs more than once, only
    /// its last position is kept (the last write of a batch wins).
    public static func positionsOfLastOccurrences(_ keys: [String]) -> [Int] {
        positionsOfLastOccurrences(keys, prefix: { key in
            var key = key
            return key.withUTF8 { prefix(of: UnsafeRawBufferPointer($0)) }
        }, compare: compareUTF8)
    }

    /// The positions of identifier `keys` in UTF-8 byte order; where a key occurs more than
    /// once, only its last position is kept. Makes no strings.
    public static func positionsOfLastOccurrences<Key: StringIdentifier>(_ keys: [Key]) -> [Int] {
        positionsOfLastOccurrences(keys, prefix: { $0.withUTF8(prefix(of:)) }, compare: { $0 == $1 ? 0 : ($0 < $1 ? -1 : 1) })
    }

    private static func positionsOfLastOccurrences<Key>(_ keys: [Key], prefix: (Key) -> UInt64,
                                                        compare: (Key, Key) -> Int) -> [Int] {
        var slots = keys.indices.map { Slot(prefix: prefix(keys[$0]), index: $0) }
        slots.sort { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            let order = compare(keys[a.index], keys[b.index])
            return order != 0 ? order < 0 : a.index < b.index
        }
        var positions: [Int] = []
        positions.reserveCapacity(slots.count)
        for (offset, slot) in slots.enumerated() {
            if offset + 1 < slots.count, slots[offset + 1].prefix == slot.prefix,
               compare(keys[slots[offset + 1].index], keys[slot.index]) == 0 {
                continue
            }
            positions.append(slot.index)
        }
        return positions
    }

    private struct Slot {
        var prefix: UInt64
        var index: Int
    }

    /// The first eight UTF-8 bytes as a big-endian integer, zero-padded: equal prefixes
    /// order like the bytes they stand for, and ties are settled by a full comparison.
    private static func prefix(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 {
            value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0)
        }
        return value
    }
}
