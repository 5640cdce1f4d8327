import Foundation

/// A store-wide snapshot in the history of a store: every save makes one.
///
/// A version has no predecessors (an initial version), one (an ordinary save) or two (a
/// merge). Its ``successors`` are not stored: the history graph fills them in when it
/// vends a version. Two versions are equal, and hash alike, when their identifiers are
/// equal, as in the reference LLVS.
///
/// Codable form (JSON object): `identifier` (string), `predecessors` (optional object
/// `{"idOfFirst", "idOfSecond"?}`), `timestamp` (seconds since 2001-01-01T00:00:00Z, a
/// JSON number), `valueDataSize` (optional integer, bytes of value data stored by the
/// version) and `metadata` (optional object of base64 strings). See SPEC.md.
public struct Version: Identifiable, Hashable, Codable, Sendable {
    /// The type of a version's identifier. Also spelled `Version.Identifier`.
    public typealias ID = Identifier

    /// Application- and library-defined annotations of a version.
    public typealias Metadata = [MetadataKey: MetadataValue]

    /// The version's identifier.
    public var id: ID

    /// The versions this one was based on: none for an initial version, two for a merge.
    public var predecessors: Predecessors?

    /// The versions based on this one, as known to the history that vended the version.
    public var successors: Successors

    /// When the version was made, in seconds since 2001-01-01T00:00:00Z
    /// (`Date.timeIntervalSinceReferenceDate`).
    public var timestamp: TimeInterval

    /// The number of bytes of value data this version stored, if recorded.
    public var valueDataSize: Int64?

    /// Annotations of the version, such as its ``Branch``.
    public var metadata: Metadata

    /// Creates a version. The identifier defaults to a random UUID and the timestamp to now.
    public init(
        id: ID = ID(),
        predecessors: Predecessors? = nil,
        timestamp: TimeInterval = Date().timeIntervalSinceReferenceDate,
        valueDataSize: Int64? = nil,
        metadata: Metadata = [:]
    ) {
        self.id = id
        self.predecessors = predecessors
        self.successors = Successors()
        self.timestamp = timestamp
        self.valueDataSize = valueDataSize
        self.metadata = metadata
    }

    /// The identifiers of the predecessors, first then second; empty for an initial version.
    public var predecessorIds: [ID] {
        predecessors?.ids ?? []
    }

    /// The named branch recorded in the metadata under ``MetadataKey/branch``, if any and
    /// if it decodes.
    public var branch: Branch? {
        guard let value = metadata[.branch] else { return nil }
        return try? value.value(Branch.self)
    }

    /// True when `other` has this version's record: the same identifier, predecessors,
    /// timestamp, value data size and metadata. Successors, which depend on what else a
    /// store holds, are not compared; `==` compares identifiers alone.
    public func hasSameRecord(as other: Version) -> Bool {
        id == other.id && predecessors == other.predecessors && timestamp == other.timestamp
            && valueDataSize == other.valueDataSize && metadata == other.metadata
    }

    /// Versions are identified by their identifier alone.
    public static func == (lhs: Version, rhs: Version) -> Bool {
        lhs.id == rhs.id
    }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }

    private enum CodingKeys: String, CodingKey {
        case identifier, predecessors, timestamp, valueDataSize, metadata
    }

    /// Decodes a version from its documented JSON form.
    ///
    /// - Throws: `DecodingError` for a missing or mistyped field, a non-finite timestamp,
    ///   a negative `valueDataSize`, or a version listed among its own predecessors.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .identifier)
        predecessors = try container.decodeIfPresent(Predecessors.self, forKey: .predecessors)
        timestamp = try container.decode(TimeInterval.self, forKey: .timestamp)
        valueDataSize = try container.decodeIfPresent(Int64.self, forKey: .valueDataSize)
        metadata = try container.decodeIfPresent(Metadata.self, forKey: .metadata) ?? [:]
        successors = Successors()
        guard timestamp.isFinite else {
            throw DecodingError.dataCorruptedError(
                forKey: .timestamp, in: container,
                debugDescription: "Version \(id) has a non-finite timestamp.")
        }
        if let size = valueDataSize, size < 0 {
            throw DecodingError.dataCorruptedError(
                forKey: .valueDataSize, in: container,
                debugDescription: "Version \(id) has a negative valueDataSize \(size).")
        }
        if predecessorIds.contains(id) {
            throw DecodingError.dataCorruptedError(
                forKey: .predecessors, in: container,
                debugDescription: "Version \(id) lists itself as a predecessor.")
        }
    }

    /// Encodes the version in its documented JSON form (successors are not encoded).
    ///
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .identifier)
        try container.encodeIfPresent(predecessors, forKey: .predecessors)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encodeIfPresent(valueDataSize, forKey: .valueDataSize)
        if !metadata.isEmpty {
            try container.encode(metadata, forKey: .metadata)
        }
    }
}
