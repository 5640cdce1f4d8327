extension Value {
    /// Locates stored value data: the value's identifier and the version whose changes
    /// stored it. The map index records, for every version, a reference per live value.
    ///
    /// Codable form: `{"valueId": string, "storedVersionId": string}`.
    public struct Reference: Hashable, Comparable, Codable, Sendable {
        /// The identifier of the value.
        public var valueId: Value.ID

        /// The version in which the value's data was stored.
        public var storedVersionId: Version.ID

        /// Creates a reference to the data of `valueId` stored in `storedVersionId`.
        public init(valueId: Value.ID, storedVersionId: Version.ID) {
            self.valueId = valueId
            self.storedVersionId = storedVersionId
        }

        /// Orders by value identifier, then by stored version identifier.
        public static func < (lhs: Reference, rhs: Reference) -> Bool {
            if lhs.valueId != rhs.valueId { return lhs.valueId < rhs.valueId }
            return lhs.storedVersionId < rhs.storedVersionId
        }
    }
}
