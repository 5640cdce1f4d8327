import Foundation
import LLVS

/// A `KeyValueDatabase` for W10. The key-value database has two kinds of storage: at a
/// directory (an SQLite store and its FTS5 index, both SQLite files) for the `sqlite`
/// backend, and in memory (a nil URL) for `memory`. The directory is temporary and removed
/// when this is released.
final class BenchmarkKeyValueDatabase {
    /// The database's directory, or nil in memory.
    let directory: URL?
    let database: KeyValueDatabase

    /// The backends W10 runs on; there is no `file` kind of key-value database.
    static let backends = ["sqlite", "memory"]

    init(backend: String, authorName: String) throws {
        switch backend {
        case "sqlite": directory = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-bench-kv-\(UUID().uuidString)")
        case "memory": directory = nil
        default: throw BenchmarkError.unsupportedBackend(backend)
        }
        database = try KeyValueDatabase(fileURL: directory, author: Author(id: UUID(), name: authorName))
    }

    deinit {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }
}

/// The texts of W10: one per key (a UUID string), each 100 ASCII bytes of filler words
/// spelled with the letters a–p, with marker words placed at known positions. Every marker
/// has a letter after p, so no filler word (nor the prefix of one) can match it.
struct KeyValueCorpus {
    /// The marker words and the texts that hold them: text `i` holds a marker when `i` is a
    /// multiple of its `every`.
    static let markers: [(word: String, every: Int)] = [("zephyr", 10), ("quokka", 100), ("xylophone", 1_000)]

    /// The full-text queries W10 times (FTS5 syntax): three words of 10 %, 1 % and 0.1 % of
    /// the texts, and a prefix together with a word.
    static let queries = ["zephyr", "quokka", "xylophone", "zeph* quokka"]

    let keys: [String]
    let texts: [String]
    /// The keys of the texts holding each marker word.
    let keysByMarker: [String: Set<ScopedKey>]

    init(count: Int, generator: inout SeededGenerator) {
        var keys: [String] = [], texts: [String] = []
        var keysByMarker: [String: Set<ScopedKey>] = [:]
        for index in 0..<count {
            let key = uuidString(&generator)
            let words = Self.markers.filter { index % $0.every == 0 }.map(\.word)
            for word in words { keysByMarker[word, default: []].insert(ScopedKey(key: key)) }
            keys.append(key)
            texts.append(Self.text(startingWith: words, generator: &generator))
        }
        self.keys = keys
        self.texts = texts
        self.keysByMarker = keysByMarker
    }

    /// The keys a query of ``queries`` must find.
    func expectedKeys(_ query: String) -> Set<ScopedKey> {
        switch query {
        case "zeph* quokka": return self.keys(holding: "zephyr").intersection(self.keys(holding: "quokka"))
        default: return keys(holding: query)
        }
    }

    private func keys(holding word: String) -> Set<ScopedKey> {
        keysByMarker[word] ?? []
    }

    /// 100 ASCII bytes: `words`, then filler words (the last one cut at the 100th byte).
    static func text(startingWith words: [String] = [], generator: inout SeededGenerator) -> String {
        var text = words.joined(separator: " ")
        while text.utf8.count < 100 {
            if !text.isEmpty { text += " " }
            text += fillerWord(&generator)
        }
        return String(text.prefix(100))  // ASCII: one byte per character
    }

    private static let fillerLetters = Array("abcdefghijklmnop")

    private static func fillerWord(_ generator: inout SeededGenerator) -> String {
        let length = Int.random(in: 3...8, using: &generator)
        return String((0..<length).map { _ in fillerLetters[Int.random(in: 0..<fillerLetters.count, using: &generator)] })
    }
}
