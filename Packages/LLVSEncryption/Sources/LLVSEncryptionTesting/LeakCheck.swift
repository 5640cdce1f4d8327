import Foundation
import LLVSCore
import LLVSMerge
import LLVSStore

/// The leak check of encrypted exchanges: a corpus whose every identifier, timestamp,
/// metadata key and value is distinctive, the byte strings that would betray it, and a
/// search for them in files and dumps of what the other side keeps. Used by the tests of
/// every transport an `EncryptedExchange` runs over (a directory, the sync server on
/// SQLite and on PostgreSQL).
public enum LeakCheck {
    /// A byte string that must not appear on the other side, and what it is.
    public struct Needle: Sendable {
        /// What the bytes are ("value window of x at 3").
        public var name: String
        /// The bytes.
        public var bytes: Data

        /// A needle named `name` of `bytes`.
        public init(name: String, bytes: Data) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// The needles in lower-case hex, as a database dump writes bytes (PostgreSQL's
    /// `bytea`).
    public static func inHex(_ needles: [Needle]) -> [Needle] {
        needles.map { Needle(name: "hex of \($0.name)", bytes: Data($0.bytes.map { String(format: "%02x", $0) }.joined().utf8)) }
    }

    /// Makes the corpus in `store`: a first version of 20 values with metadata, two
    /// branches of 5 versions (updates, a removal, binary data) and their merge.
    ///
    /// - Returns: The versions made, the first first.
    /// - Throws: The store's errors.
    public static func makeCorpus(in store: Store) throws -> [Version] {
        var made: [Version] = []
        var metadata: Version.Metadata = [:]
        metadata[.init(rawValue: "author-Leakcheck-Metadata-Key")] = .init(data: Data("Leakcheck-Author-Name".utf8))
        let first = try store.makeVersion(basedOnPredecessor: nil, storing: (0..<20).map { index in
            .insert(Value(idString: "leak-value-\(index)", data: Data("Leakcheck secret number \(index) of twenty, with padding text".utf8)))
        }, metadata: metadata)
        made.append(first)
        var left = first.id, right = first.id
        for round in 0..<5 {
            let l = try store.makeVersion(basedOnPredecessor: left, storing: [
                .update(Value(idString: "leak-value-\(round)", data: Data("Left branch private note \(round) Leakcheck".utf8))),
            ])
            let r = try store.makeVersion(basedOnPredecessor: right, storing: [
                .update(Value(idString: "leak-value-\(round + 10)", data: Data((0..<64).map { UInt8(($0 * 13 + round) % 256) }))),
                .remove(.init("leak-value-\(round + 15)")),
            ])
            made += [l, r]
            left = l.id
            right = r.id
        }
        made.append(try store.merge(version: left, with: right, resolvingWith: MostRecentChangeFavoringArbiter()))
        return made
    }

    /// What would betray `versions` of `store`: each version, predecessor and value
    /// identifier (raw, hex, base64), each timestamp (as text, as whole seconds, as its
    /// 8 bytes), each metadata key, every 8-byte window of every value stored, and each
    /// value in base64 (as JSON carries data).
    ///
    /// - Throws: The store's errors.
    public static func needles(of versions: [Version], in store: Store) throws -> [Needle] {
        var needles: [Needle] = []
        func add(_ name: String, _ bytes: some Sequence<UInt8>) { needles.append(Needle(name: name, bytes: Data(bytes))) }
        func identifier(_ text: String) {
            let bytes = Array(text.utf8)
            add("id \(text)", bytes)
            add("hex of id \(text)", bytes.map { String(format: "%02x", $0) }.joined().utf8)
            add("base64 of id \(text)", Data(bytes).base64EncodedString().dropLast(2).utf8)
        }
        for version in versions {
            identifier(version.id.rawValue)
            version.predecessorIds.forEach { identifier($0.rawValue) }
            add("timestamp text of \(version.id)", "\(version.timestamp)".utf8)
            add("timestamp seconds of \(version.id)", "\(Int(version.timestamp))".utf8)
            withUnsafeBytes(of: version.timestamp.bitPattern.littleEndian) { add("timestamp bits of \(version.id)", $0) }
            for (key, _) in version.metadata { add("metadata key \(key.rawValue)", key.rawValue.utf8) }
            for change in try store.valueChanges(madeInVersionIdentifiedBy: version.id) {
                identifier(change.valueId.rawValue)
                switch change {
                case .insert(let value), .update(let value):
                    let bytes = [UInt8](value.data)
                    for start in stride(from: 0, through: bytes.count - 8, by: 1) {
                        add("value window of \(value.id) at \(start)", bytes[start..<start + 8])
                    }
                    add("base64 of value \(value.id)", value.data.base64EncodedString().utf8)
                default:
                    break
                }
            }
        }
        return needles
    }

    /// Whether `hits` name every version identifier of `versions` (raw or in hex): what a
    /// search of a location the corpus was sent to in the clear must find, so the search is
    /// known to see what it looks for.
    public static func findsEveryVersionIdentifier(of versions: [Version], in hits: [String]) -> Bool {
        versions.allSatisfy { version in
            hits.contains { $0.hasPrefix("id \(version.id) in ") || $0.hasPrefix("hex of id \(version.id) in ") }
        }
    }

    /// The needles found in `data`, each named with `location`.
    public static func hits(of needles: [Needle], in data: Data, location: String) -> [String] {
        needles.filter { data.range(of: $0.bytes) != nil }.map { "\($0.name) in \(location)" }
    }

    /// The needles found in every regular file under `directory`, in its contents or its
    /// path below `directory`.
    ///
    /// - Throws: When a file cannot be read.
    public static func hits(of needles: [Needle], under directory: URL) throws -> [String] {
        var hits: [String] = []
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let relative = String(url.path.dropFirst(directory.path.count))
            hits += Self.hits(of: needles, in: try Data(contentsOf: url), location: relative)
            hits += Self.hits(of: needles, in: Data(relative.utf8), location: "the path \(relative)")
        }
        return hits
    }
}
