import LLVSCore

/// A string that compares, hashes and orders by its UTF-8 bytes (SPEC.md section 1), for
/// the sets and dictionaries of keys and identifiers the merges keep: Swift's `String`
/// equality would make `é` composed and decomposed one key.
struct ByteKey: Hashable, Comparable, Sendable {
    let string: String

    init(_ string: String) {
        self.string = string
    }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        for byte in string.utf8 { hasher.combine(byte) }
    }

    static func < (lhs: ByteKey, rhs: ByteKey) -> Bool {
        compareUTF8(lhs.string, rhs.string) < 0
    }
}

extension JSONObject {
    /// The keys of several objects, each once (by bytes), in byte order.
    static func unionOfKeys(_ objects: [JSONObject?]) -> [String] {
        var keys = Set<ByteKey>()
        for object in objects { if let object { keys.formUnion(object.keys.map(ByteKey.init)) } }
        return keys.sorted().map(\.string)
    }
}
