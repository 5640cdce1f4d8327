import Foundation
import PropertyBased
import Testing
import LLVSZones

/// `KeyOrder` against the obvious definition: keep each key's last position, sort by the
/// keys' UTF-8 bytes.
@Suite struct KeyOrderTests {
    /// Fragments chosen so that keys share 8-byte prefixes, differ only after them, contain
    /// NUL and multi-byte characters, and include canonically equivalent spellings ("é" as
    /// one scalar and as "e" + combining accent), which byte order keeps apart.
    static let fragments = ["", "a", "é", "e\u{301}", "aaaaaaaa", "zzzzzzzzz", "\u{0}", "ß"]
    static let keyLists = Gen.int(in: 0...7).array(of: 0...3).array(of: 0...40)

    static func naivePositions(_ keys: [String]) -> [Int] {
        var last: [[UInt8]: Int] = [:]
        for (index, key) in keys.enumerated() { last[Array(key.utf8)] = index }
        return last.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
    }

    @Test func matchesSortingByBytesAndKeepingLastOccurrences() async {
        await propertyCheck(count: 2_000, input: Self.keyLists) { lists in
            let keys = lists.map { $0.map { Self.fragments[$0] }.joined() }
            #expect(KeyOrder.positionsOfLastOccurrences(keys) == Self.naivePositions(keys))
        }
    }

    @Test func examples() {
        #expect(KeyOrder.positionsOfLastOccurrences([String]()) == [])
        #expect(KeyOrder.positionsOfLastOccurrences(["b", "a", "b"]) == [1, 2])
        // Equal first eight bytes: the rest decides.
        #expect(KeyOrder.positionsOfLastOccurrences(["abcdefgh2", "abcdefgh1", "abcdefgh"]) == [2, 1, 0])
        // A key that is a zero-padded prefix of another sorts first, as its bytes do.
        #expect(KeyOrder.positionsOfLastOccurrences(["a\u{0}", "a"]) == [1, 0])
        // Canonically equivalent but byte-different keys are different keys.
        #expect(KeyOrder.positionsOfLastOccurrences(["e\u{301}", "é"]) == [0, 1])
    }
}
