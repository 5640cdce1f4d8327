import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// A batch file of a format-2 file-system exchange directory (SPEC.md section 11): every
/// version one `send(versionChanges:)` call wrote, with its changes, in the binary
/// primitives of SPEC.md section 5. The file is named by its SHA-256, which the log record
/// listing its versions also carries, so a reader checks the whole file against the log
/// before decoding anything from it.
///
/// ```
/// "LLVSXBT1"  varint n  n × (bytes record, bytes changes)
/// ```
///
/// Parsing decodes the version records and notes where each version's changes are; the
/// changes are decoded on demand (``changes(of:location:)``).
struct ExchangeBatchFile: Sendable {
    /// The bytes that open every batch file.
    static let magic = Array("LLVSXBT1".utf8)

    /// One version of a batch.
    struct Entry: Sendable {
        /// The version record.
        var version: Version
        /// Where its changes section is in the file's bytes.
        var changes: Range<Int>
        /// Where the whole entry (record and changes, with their lengths) is in the file's bytes:
        /// a sender compares these bytes with what it would write for the version.
        var bytes: Range<Int>
    }

    /// How many bytes the file has.
    let byteCount: Int
    /// A reader of the file's bytes (which holds them), whose parts each version's changes
    /// are read with: nothing is copied.
    private let reader: ByteReader
    /// The versions in the order written.
    let order: [Version.ID]
    /// Each version's entry.
    let entries: [Version.ID: Entry]

    /// Why bytes are not a batch file (or a log record): a sentence for
    /// ``ExchangeError/malformedData(location:reason:)``.
    struct Malformed: Error {
        var reason: String
    }

    // MARK: Writing

    /// The encoded entry of `version` (its successors ignored) with `changes`.
    static func encodeEntry(_ version: Version, changes: [Value.Change]) -> [UInt8] {
        var entry = ByteWriter(capacity: 80 + version.id.utf8Count + sectionByteCount(changes))
        appendEntry(version, changes: changes, to: &entry)
        return entry.bytes
    }

    /// Appends the entry of `version` (its successors ignored) with `changes` to `writer`:
    /// the record, then the changes written in place after their exact length.
    static func appendEntry(_ version: Version, changes: [Value.Change], to writer: inout ByteWriter) {
        // Each length goes before what it measures and is known once that is written: a
        // record takes one length byte (it is under 128 bytes unless it has metadata), a
        // section of changes two (128 bytes to 16 KiB), and the bytes move when not.
        writer.appendLengthPrefixed(lengthByteCount: 1) { record in
            record.appendIdentifier(version.id)
            if let predecessors = version.predecessors {
                record.append(predecessors.idOfSecond == nil ? 1 : 2)
                record.appendIdentifier(predecessors.idOfFirst)
                if let second = predecessors.idOfSecond { record.appendIdentifier(second) }
            } else {
                record.append(0)
            }
            withUnsafeBytes(of: version.timestamp.bitPattern.littleEndian) { record.append(contentsOf: $0) }
            if let size = version.valueDataSize, size >= 0 {
                record.append(1)
                record.appendVarint(UInt64(size))
            } else {
                record.append(0)
            }
            record.appendVarint(UInt64(version.metadata.count))
            guard !version.metadata.isEmpty else { return }
            for (key, value) in version.metadata.sorted(by: { $0.key < $1.key }) {
                record.appendString(key.rawValue)
                record.appendLengthPrefixed(value.data)
            }
        }
        writer.appendLengthPrefixed(lengthByteCount: 2) { section in
            section.appendVarint(UInt64(changes.count))
            for change in changes {
                switch change {
                case .insert(let value), .update(let value):
                    if case .insert = change { section.append(1) } else { section.append(2) }
                    section.appendIdentifier(value.id)
                    section.appendLengthPrefixed(value.data)
                    if let stored = value.storedVersionId {
                        section.append(1)
                        section.appendIdentifier(stored)
                    } else {
                        section.append(0)
                    }
                case .remove(let id):
                    section.append(3)
                    section.appendIdentifier(id)
                case .preserve(let reference):
                    section.append(4)
                    section.appendIdentifier(reference.valueId)
                    section.appendIdentifier(reference.storedVersionId)
                case .preserveRemoval(let id):
                    section.append(5)
                    section.appendIdentifier(id)
                }
            }
        }
    }

    /// The exact length of the changes section ``appendEntry(_:changes:to:)`` writes for
    /// `changes` (every round trip of a batch checks it: a wrong length fails to decode).
    static func sectionByteCount(_ changes: [Value.Change]) -> Int {
        func prefixed(_ count: Int) -> Int { ByteWriter.varintByteCount(UInt64(count)) + count }
        var total = ByteWriter.varintByteCount(UInt64(changes.count))
        for change in changes {
            switch change {
            case .insert(let value), .update(let value):
                total += 2 + prefixed(value.id.utf8Count) + prefixed(value.data.count) + (value.storedVersionId.map { prefixed($0.utf8Count) } ?? 0)
            case .remove(let id), .preserveRemoval(let id):
                total += 1 + prefixed(id.utf8Count)
            case .preserve(let reference):
                total += 1 + prefixed(reference.valueId.utf8Count) + prefixed(reference.storedVersionId.utf8Count)
            }
        }
        return total
    }

    /// A batch file holding `entries` (from ``encodeEntry(_:changes:)``), in order.
    ///
    /// - Complexity: One allocation and one copy of the entries (a batch is megabytes).
    static func encode(entries: [[UInt8]]) -> Data {
        var header = ByteWriter(capacity: magic.count + 10)
        header.append(contentsOf: magic)
        header.appendVarint(UInt64(entries.count))
        let opening = header.takeBytes()
        var data = Data(count: entries.reduce(opening.count) { $0 + $1.count })
        data.withUnsafeMutableBytes { file in
            var offset = 0
            func copy(_ bytes: [UInt8]) {
                bytes.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: file[offset..<(offset + $0.count)]).copyMemory(from: $0) }
                offset += bytes.count
            }
            copy(opening)
            for entry in entries { copy(entry) }
        }
        return data
    }

    /// The SHA-256 of a batch file's bytes, which names it.
    static func digest(of data: Data) -> [UInt8] {
        Array(SHA256.hash(data: data))
    }

    // MARK: Reading

    /// Parses a batch file whose checksum was checked: the version records, and where each
    /// version's changes are.
    ///
    /// - Throws: ``Malformed`` for a bad magic, a truncated or malformed entry, an invalid
    ///   version record, a version written twice, or bytes after the last entry.
    init(parsing data: Data) throws(Malformed) {
        self.byteCount = data.count
        var reader = ByteReader(data)
        self.reader = reader
        do {
            guard try reader.readBytes(Self.magic.count).elementsEqual(Self.magic) else {
                throw Malformed(reason: "not an exchange batch file (bad magic)")
            }
            let count = try reader.readCount(limit: reader.remainingCount)
            guard count > 0 else { throw Malformed(reason: "the batch holds no version") }
            var order: [Version.ID] = []
            var entries: [Version.ID: Entry] = [:]
            order.reserveCapacity(count)
            entries.reserveCapacity(count)
            for index in 0..<count {
                let start = reader.offset
                var record = try reader.readLengthPrefixedReader()
                let version = try Self.decodeRecord(&record, entry: index)
                let changesLength = try reader.readCount(limit: reader.remainingCount)
                let changesStart = reader.offset
                try reader.skipBytes(changesLength)
                guard entries[version.id] == nil else {
                    throw Malformed(reason: "version \(version.id) is written twice")
                }
                entries[version.id] = Entry(version: version, changes: changesStart..<reader.offset, bytes: start..<reader.offset)
                order.append(version.id)
            }
            guard reader.isAtEnd else {
                throw Malformed(reason: "\(reader.remainingCount) bytes follow the last entry, at offset \(reader.offset)")
            }
            self.order = order
            self.entries = entries
        } catch let error as ByteReader.Error {
            throw Malformed(reason: error.description)
        } catch let error as Malformed {
            throw error
        } catch {
            throw Malformed(reason: "\(error)")
        }
    }

    /// The changes of version `id`, which the batch holds.
    ///
    /// - Throws: ``Malformed`` when its changes section is malformed.
    func changes(of id: Version.ID) throws(Malformed) -> [Value.Change] {
        var changes: [Value.Change] = []
        try walkChanges(of: id, reserving: { changes.reserveCapacity($0) }, making: { changes.append($0) })
        return changes
    }

    /// Checks the changes section of version `id` as ``changes(of:)`` decodes it, without
    /// making the changes: it throws exactly when decoding would.
    ///
    /// - Throws: ``Malformed`` when its changes section is malformed.
    func checkChanges(of id: Version.ID) throws(Malformed) {
        try walkChanges(of: id, reserving: { _ in }, making: nil)
    }

    /// Whether the file's bytes at `range` (an entry's ``Entry/bytes``) are `bytes`.
    func bytes(at range: Range<Int>, equal bytes: [UInt8]) -> Bool {
        guard var part = reader.reader(of: range), let held = try? part.readBytes(part.remainingCount) else { return false }
        return held.elementsEqual(bytes)
    }

    /// Walks the changes section of version `id`, checking every change, and hands each
    /// change to `make` when there is one (else the identifiers and values are skipped, not
    /// made). Decoding and checking are this one walk, so they refuse the same bytes.
    ///
    /// - Throws: ``Malformed`` when the section is malformed.
    private func walkChanges(of id: Version.ID, reserving reserve: (Int) -> Void, making make: ((Value.Change) -> Void)?) throws(Malformed) {
        guard let entry = entries[id] else { throw Malformed(reason: "the batch does not hold version \(id)") }
        guard var reader = reader.reader(of: entry.changes) else {
            throw Malformed(reason: "version \(id)'s changes lie outside the batch")
        }
        do {
            let count = try reader.readCount(limit: reader.remainingCount)
            reserve(count)
            for _ in 0..<count {
                let kind = try reader.readByte()
                switch kind {
                case 1, 2:
                    guard let make else {
                        try reader.skipIdentifier()
                        try reader.skipLengthPrefixed()
                        if try Self.readStoredVersionFlag(&reader, of: id) { try reader.skipIdentifier() }
                        continue
                    }
                    let valueId = try reader.readIdentifier(Value.ID.self)
                    let data = Data(try reader.readLengthPrefixed())
                    var value = Value(id: valueId, data: data)
                    if try Self.readStoredVersionFlag(&reader, of: id) { value.storedVersionId = try reader.readIdentifier(Version.ID.self) }
                    make(kind == 1 ? .insert(value) : .update(value))
                case 3, 5:
                    guard let make else {
                        try reader.skipIdentifier()
                        continue
                    }
                    let valueId = try reader.readIdentifier(Value.ID.self)
                    make(kind == 3 ? .remove(valueId) : .preserveRemoval(valueId))
                case 4:
                    guard let make else {
                        try reader.skipIdentifier()
                        try reader.skipIdentifier()
                        continue
                    }
                    let valueId = try reader.readIdentifier(Value.ID.self)
                    make(.preserve(Value.Reference(valueId: valueId, storedVersionId: try reader.readIdentifier(Version.ID.self))))
                default:
                    throw Malformed(reason: "version \(id)'s changes: unknown change kind \(kind)")
                }
            }
            guard reader.isAtEnd else { throw Malformed(reason: "version \(id)'s changes: bytes follow the last change") }
        } catch let error as ByteReader.Error {
            throw Malformed(reason: "version \(id)'s changes: \(error.description)")
        } catch let error as Malformed {
            throw error
        } catch {
            throw Malformed(reason: "\(error)")
        }
    }

    /// Reads whether a change names the version that stored its value (flag 1) or not (0).
    ///
    /// - Throws: ``Malformed`` for any other flag; what `reader` throws.
    private static func readStoredVersionFlag(_ reader: inout ByteReader, of id: Version.ID) throws -> Bool {
        switch try reader.readByte() {
        case 0: return false
        case 1: return true
        case let flag: throw Malformed(reason: "version \(id)'s changes: a stored-version flag of \(flag)")
        }
    }

    /// Decodes a version record, checking what the Version JSON form checks.
    private static func decodeRecord(_ reader: inout ByteReader, entry: Int) throws -> Version {
        let id = try reader.readIdentifier(Version.ID.self)
        let predecessorCount = try reader.readByte()
        guard predecessorCount <= 2 else { throw Malformed(reason: "version \(id) has \(predecessorCount) predecessors") }
        var predecessorIds: [Version.ID] = []
        for _ in 0..<predecessorCount { predecessorIds.append(try reader.readIdentifier(Version.ID.self)) }
        let timestamp = Double(bitPattern: try reader.readUInt64LittleEndian())
        guard timestamp.isFinite else { throw Malformed(reason: "version \(id) has a non-finite timestamp") }
        var valueDataSize: Int64?
        switch try reader.readByte() {
        case 0: break
        case 1:
            let size = try reader.readVarint()
            guard size <= UInt64(Int64.max) else { throw Malformed(reason: "version \(id) has a value data size beyond 2^63") }
            valueDataSize = Int64(size)
        case let flag: throw Malformed(reason: "version \(id) has a value-data-size flag of \(flag)")
        }
        let metadataCount = try reader.readCount(limit: reader.remainingCount)
        var metadata: Version.Metadata = [:]
        var previous: Version.MetadataKey?
        for _ in 0..<metadataCount {
            let key = Version.MetadataKey(rawValue: try reader.readString())
            if let previous, !(previous < key) {
                throw Malformed(reason: "version \(id)'s metadata keys are not in increasing byte order")
            }
            previous = key
            metadata[key] = Version.MetadataValue(data: Data(try reader.readLengthPrefixed()))
        }
        guard reader.isAtEnd else { throw Malformed(reason: "version \(id)'s record (entry \(entry)) has bytes after its metadata") }
        if predecessorIds.contains(id) { throw Malformed(reason: "version \(id) lists itself as a predecessor") }
        if predecessorIds.count == 2, predecessorIds[0] == predecessorIds[1] {
            throw Malformed(reason: "both predecessors of version \(id) are \(predecessorIds[0])")
        }
        let predecessors = predecessorIds.first.map { Version.Predecessors(idOfFirst: $0, idOfSecond: predecessorIds.count == 2 ? predecessorIds[1] : nil) }
        return Version(id: id, predecessors: predecessors, timestamp: timestamp, valueDataSize: valueDataSize, metadata: metadata)
    }
}

/// A log record of a format-2 directory: the batch file a send wrote and the versions it
/// holds (SPEC.md section 11).
///
/// ```
/// 0xFF 0x01  digest (32 bytes, the batch file's SHA-256)  varint n  n × string versionId
/// ```
///
/// The first byte never occurs in UTF-8, so no such record reads as a format-1 record (a
/// version identifier's UTF-8 bytes).
enum ExchangeLogRecord {
    /// The bytes that open a batch record.
    static let batchOpening: [UInt8] = [0xFF, 0x01]

    /// The record naming the batch with SHA-256 `digest`, which holds `versionIds`.
    static func encode(digest: [UInt8], versionIds: [Version.ID]) -> Data {
        var writer = ByteWriter(capacity: 2 + digest.count + versionIds.reduce(10) { $0 + $1.utf8Count + 2 })
        writer.append(contentsOf: batchOpening)
        writer.append(contentsOf: digest)
        writer.appendVarint(UInt64(versionIds.count))
        for id in versionIds { writer.appendIdentifier(id) }
        return writer.data
    }

    /// Decodes a batch record.
    ///
    /// - Throws: ``ExchangeBatchFile/Malformed`` for anything else.
    static func decode(_ record: Data) throws(ExchangeBatchFile.Malformed) -> (digest: [UInt8], versionIds: [Version.ID]) {
        var reader = ByteReader(record)
        do {
            guard try Array(reader.readBytes(batchOpening.count)) == batchOpening else {
                throw ExchangeBatchFile.Malformed(reason: "a log record does not name a batch (it does not open with 0xFF 0x01)")
            }
            let digest = Array(try reader.readBytes(32))
            let count = try reader.readCount(limit: reader.remainingCount)
            guard count > 0 else { throw ExchangeBatchFile.Malformed(reason: "a log record names a batch of no version") }
            var ids: [Version.ID] = []
            ids.reserveCapacity(count)
            for _ in 0..<count { ids.append(try reader.readIdentifier(Version.ID.self)) }
            guard reader.isAtEnd else { throw ExchangeBatchFile.Malformed(reason: "a log record has bytes after its last version identifier") }
            return (digest, ids)
        } catch let error as ByteReader.Error {
            throw ExchangeBatchFile.Malformed(reason: "a log record is malformed: \(error.description)")
        } catch let error as ExchangeBatchFile.Malformed {
            throw error
        } catch {
            throw ExchangeBatchFile.Malformed(reason: "\(error)")
        }
    }
}

/// The binary form of versions with their changes: a format-2 batch file (SPEC.md section
/// 11), the primitives of section 5. For exchanges that carry versions inside something
/// else, such as the sealed blobs of `LLVSEncryption`.
public enum ExchangeBatch {
    /// The batch holding `versionChanges`, in order (successors are not part of a record).
    ///
    /// - Complexity: O(n), n the bytes of the records and changes.
    public static func encode(_ versionChanges: [VersionChanges]) -> Data {
        var writer = ByteWriter(capacity: estimatedByteCount(versionChanges))
        encode(versionChanges, appendingTo: &writer)
        return writer.data
    }

    /// Appends the batch holding `versionChanges` to `writer`: the bytes ``encode(_:)``
    /// returns, written in place (for a caller that frames or pads them).
    ///
    /// - Complexity: O(n), n the bytes of the records and changes.
    public static func encode(_ versionChanges: [VersionChanges], appendingTo writer: inout ByteWriter) {
        writer.append(contentsOf: ExchangeBatchFile.magic)
        writer.appendVarint(UInt64(versionChanges.count))
        for (version, changes) in versionChanges {
            ExchangeBatchFile.appendEntry(version, changes: changes, to: &writer)
        }
    }

    /// About the bytes ``encode(_:)`` writes for `versionChanges` (a buffer's capacity).
    public static func estimatedByteCount(_ versionChanges: [VersionChanges]) -> Int {
        versionChanges.reduce(ExchangeBatchFile.magic.count + 10) { total, entry in
            total + 100 + entry.version.id.utf8Count * 3 + ExchangeBatchFile.sectionByteCount(entry.valueChanges)
        }
    }

    /// A batch whose version records are decoded and whose changes are checked, but made
    /// only when asked for (``changes(of:)``): a reader that must check everything before it
    /// uses anything (a sealed blob is refused whole) decodes the changes later, elsewhere.
    public struct Parsed: Sendable {
        let file: ExchangeBatchFile
        let location: String

        /// The versions, in the order written.
        public var versions: [Version] { file.order.compactMap { file.entries[$0]?.version } }

        /// The bytes of the batch.
        public var byteCount: Int { file.byteCount }

        /// The changes of version `id`.
        ///
        /// - Throws: ``ExchangeError/malformedData(location:reason:)`` when the batch does not
        ///   hold `id` (its changes were checked when parsed, so nothing else is wrong).
        public func changes(of id: Version.ID) throws(ExchangeError) -> [Value.Change] {
            do {
                return try file.changes(of: id)
            } catch {
                throw ExchangeError.malformedData(location: location, reason: error.reason)
            }
        }
    }

    /// Parses `data` as ``decode(_:location:)`` does and checks every change it holds, but
    /// makes only the version records: `decode` accepts `data` exactly when this does.
    ///
    /// - Parameters:
    ///   - data: The bytes of a batch file.
    ///   - location: Where the bytes came from, for the errors.
    /// - Throws: What ``decode(_:location:)`` throws.
    /// - Complexity: O(n), n the bytes, with an allocation per version record, not per change.
    public static func parse(_ data: Data, location: String) throws(ExchangeError) -> Parsed {
        do {
            let batch = try ExchangeBatchFile(parsing: data)
            for id in batch.order { try batch.checkChanges(of: id) }
            return Parsed(file: batch, location: location)
        } catch {
            throw ExchangeError.malformedData(location: location, reason: error.reason)
        }
    }

    /// The versions with their changes that `data` holds, in the order written.
    ///
    /// - Parameters:
    ///   - data: The bytes of a batch file.
    ///   - location: Where the bytes came from, for the error.
    /// - Throws: ``ExchangeError/malformedData(location:reason:)`` naming what is wrong: a bad
    ///   magic, a truncated or malformed entry or change, an invalid version record, a version
    ///   written twice, bytes after the last entry.
    public static func decode(_ data: Data, location: String) throws(ExchangeError) -> [VersionChanges] {
        do {
            let batch = try ExchangeBatchFile(parsing: data)
            return try batch.order.map { id throws(ExchangeBatchFile.Malformed) in
                // `order` and `entries` hold the same identifiers.
                guard let entry = batch.entries[id] else { throw ExchangeBatchFile.Malformed(reason: "the batch does not hold version \(id)") }
                return (entry.version, try batch.changes(of: id))
            }
        } catch {
            throw ExchangeError.malformedData(location: location, reason: error.reason)
        }
    }
}
