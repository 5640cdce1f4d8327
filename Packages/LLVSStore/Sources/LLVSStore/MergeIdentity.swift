import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// The content-derived identifier of a merge version (SPEC.md, "Merge identity"), so that
/// replicas merging the same versions with a deterministic arbiter make the same version.
///
/// It depends only on the unordered pair of predecessors, on what the merge holds for every
/// value where it differs from either predecessor, and on its metadata — not on which
/// predecessor came first, nor on the order changes were listed in.
struct MergeIdentity {
    /// What the merge holds for one value identifier.
    enum Outcome: Equatable {
        /// Absent from the merge.
        case absent
        /// Data stored by an earlier version.
        case reference(Version.ID)
        /// New data, stored by the merge version itself (identified by its SHA-256).
        case newData(Data)

        /// What a merge holds for the value `change`, a change of its record, names.
        init(change: Value.Change) {
            switch change {
            case .insert(let value), .update(let value): self = .newData(value.data)
            case .remove, .preserveRemoval: self = .absent
            case .preserve(let reference): self = .reference(reference.storedVersionId)
            }
        }
    }

    /// Whether the identity lists a value: when the merge's outcome is not the one both
    /// predecessors have (so a value the merge holds as one predecessor does, but not as
    /// the other, is listed).
    static func lists(_ merged: Outcome, first: Outcome, second: Outcome) -> Bool {
        merged != first || merged != second
    }

    /// The identifier: the first 16 bytes of the SHA-256 of the canonical description, in
    /// upper-case UUID form (`8-4-4-4-12` hex digits). `domain` separates real merges from
    /// the virtual ancestors of criss-cross merges.
    static func identifier(domain: String, predecessors: (Version.ID, Version.ID), outcomes: [Value.ID: Outcome],
                           metadata: Version.Metadata) -> Version.ID {
        var writer = ByteWriter()
        writer.appendString(domain)
        let pair = [predecessors.0, predecessors.1].sorted()
        writer.appendVarint(UInt64(pair.count))
        for id in pair { writer.appendIdentifier(id) }
        writer.appendVarint(UInt64(outcomes.count))
        for (valueId, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
            writer.appendIdentifier(valueId)
            switch outcome {
            case .absent:
                writer.append(0)
            case .reference(let storedBy):
                writer.append(1)
                writer.appendIdentifier(storedBy)
            case .newData(let data):
                writer.append(2)
                writer.append(contentsOf: SHA256.hash(data: data))
            }
        }
        writer.appendVarint(UInt64(metadata.count))
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            writer.appendString(key.rawValue)
            writer.appendLengthPrefixed(value.data)
        }
        let hex = Hex.encode(Array(SHA256.hash(data: writer.bytes).prefix(16))).uppercased()
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return Version.ID(groups.joined(separator: "-"))
    }
}
