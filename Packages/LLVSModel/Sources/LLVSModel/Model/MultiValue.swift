import Foundation

/// A property that keeps every value written concurrently, as the key-value database's
/// registers do, until someone writes one value again: the ``MergeStrategy/multiValue``
/// strategy. Conflicts stay in the model for the app (or its user) to settle later.
///
/// ```swift
/// @MergeableModel struct Meeting { var room = MultiValue("Kitchen") }
/// if meeting.room.isConflicted { show(meeting.room.values) }   // "Kitchen", "Library"
/// meeting.room.value = "Library"                               // settled
/// ```
///
/// It is stored as a JSON array of its values; a merge writes them sorted by their
/// canonical JSON (SPEC.md section 17).
public struct MultiValue<Wrapped: Codable>: Codable, MultiValueMarker {
    /// Every value kept: one, or several after concurrent writes; never none.
    public private(set) var values: [Wrapped]

    /// A property holding one value.
    public init(_ value: Wrapped) {
        values = [value]
    }

    /// True when concurrent writes left more than one value.
    public var isConflicted: Bool { values.count > 1 }

    /// The value: the only one, or the first of several (in canonical JSON order after a
    /// merge). Setting it settles any conflict.
    public var value: Wrapped {
        get { values[0] }
        set { values = [newValue] }
    }

    /// Keeps only `value`, settling any conflict.
    public mutating func resolve(to value: Wrapped) {
        values = [value]
    }

    /// Decodes a JSON array of at least one value (a single value is read as one too).
    ///
    /// - Throws: `DecodingError` when it is empty or not of `Wrapped`.
    public init(from decoder: any Decoder) throws {
        if var container = try? decoder.unkeyedContainer() {
            var values: [Wrapped] = []
            while !container.isAtEnd { values.append(try container.decode(Wrapped.self)) }
            guard !values.isEmpty else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a multi-value holds at least one value"))
            }
            self.values = values
        } else {
            self.values = [try decoder.singleValueContainer().decode(Wrapped.self)]
        }
    }

    /// Encodes the values as a JSON array.
    ///
    /// - Throws: What encoding a value throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for value in values { try container.encode(value) }
    }
}

extension MultiValue: Equatable where Wrapped: Equatable {}
extension MultiValue: Hashable where Wrapped: Hashable {}
extension MultiValue: Sendable where Wrapped: Sendable {}
