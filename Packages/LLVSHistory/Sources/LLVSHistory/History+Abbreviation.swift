import LLVSCore

extension History {
    /// The versions whose identifier starts with `prefix`, sorted by identifier (byte
    /// order): what a command line resolves an abbreviated identifier with.
    ///
    /// Prefixes are compared on UTF-8 bytes, like identifiers. An identifier equal to
    /// `prefix` (byte for byte) wins alone; otherwise the identifiers that start with
    /// `prefix` exactly; if there are none, those that start with it when ASCII letters are
    /// compared without case (`abc` finds `ABC123`). An empty prefix matches nothing.
    /// Linear in the number of versions. Throws nothing.
    public func identifiers(matchingPrefix prefix: String) -> [Version.ID] {
        guard !prefix.isEmpty else { return [] }
        let exact = Version.ID(prefix)
        if contains(exact) { return [exact] }
        let wanted = Array(prefix.utf8)
        let ids = nodes.lazy.map(\.version.id)
        let exactPrefix = ids.filter { $0.rawValue.utf8.starts(with: wanted) }
        if !exactPrefix.isEmpty { return exactPrefix.sorted() }
        let folded = wanted.map(IdentifierFolding.fold)
        return ids.filter { $0.rawValue.utf8.lazy.map(IdentifierFolding.fold).starts(with: folded) }.sorted()
    }

    /// For every version, the shortest prefix of its identifier that names it alone: at
    /// least `minimumLength` characters (7 by default, like Git) — or the whole identifier
    /// when it is shorter — and long enough that no other identifier starts with it when
    /// ASCII letters are compared without case. Typed in either case, such an abbreviation
    /// resolves to its version alone through ``identifiers(matchingPrefix:)``.
    ///
    /// An identifier that another identifier starts with, or that differs from another only
    /// in the case of its letters, has no such prefix: its abbreviation is the whole
    /// identifier, which the exact match of ``identifiers(matchingPrefix:)`` resolves.
    /// Abbreviations end on a `Character` boundary, so each is a `String` prefix of its
    /// identifier (and its UTF-8 a prefix of the identifier's UTF-8); lengths count
    /// `Character`s. O(n log n) comparisons: the case-folded identifiers are sorted, and
    /// each needs one byte more than its longest common prefix with its sorted neighbours.
    /// Throws nothing.
    public func abbreviatedIdentifiers(minimumLength: Int = 7) -> [Version.ID: String] {
        let folded = nodes.map { node in Array(node.version.id.rawValue.utf8).map(IdentifierFolding.fold) }
        let order = folded.indices.sorted { folded[$0].lexicographicallyPrecedes(folded[$1]) }
        var result: [Version.ID: String] = [:]
        result.reserveCapacity(nodes.count)
        for (position, index) in order.enumerated() {
            var shared = 0
            if position > 0 { shared = Swift.max(shared, IdentifierFolding.commonPrefixCount(folded[index], folded[order[position - 1]])) }
            if position + 1 < order.count { shared = Swift.max(shared, IdentifierFolding.commonPrefixCount(folded[index], folded[order[position + 1]])) }
            let id = nodes[index].version.id
            result[id] = IdentifierFolding.prefix(of: id.rawValue, byteCount: shared + 1, characterCount: minimumLength)
        }
        return result
    }
}

/// The byte-level helpers of identifier abbreviation.
enum IdentifierFolding {
    /// `byte` with ASCII upper-case letters mapped to lower case. Bytes of multi-byte UTF-8
    /// sequences are all at least 0x80, so folding never changes them.
    static func fold(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// The number of leading bytes `a` and `b` share.
    static func commonPrefixCount(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var count = 0
        while count < a.count, count < b.count, a[count] == b[count] { count += 1 }
        return count
    }

    /// The shortest prefix of `string` made of whole `Character`s that holds at least
    /// `byteCount` UTF-8 bytes and at least `characterCount` characters, or all of `string`.
    static func prefix(of string: String, byteCount: Int, characterCount: Int) -> String {
        var bytes = 0, characters = 0
        var end = string.startIndex
        while end < string.endIndex, bytes < byteCount || characters < characterCount {
            bytes += string[end].utf8.count
            characters += 1
            end = string.index(after: end)
        }
        return String(string[..<end])
    }
}
