extension Version {
    /// The one or two versions a version is based on.
    ///
    /// Codable form: `{"idOfFirst": string, "idOfSecond": string?}`; the two must differ.
    public struct Predecessors: Hashable, Codable, Sendable {
        /// The first (or only) predecessor. In a merge, the version merged into.
        public let idOfFirst: Version.ID

        /// The second predecessor of a merge, or nil.
        public let idOfSecond: Version.ID?

        /// The predecessor identifiers, first then second.
        public var ids: [Version.ID] {
            idOfSecond.map { [idOfFirst, $0] } ?? [idOfFirst]
        }

        /// Creates predecessors. A merge's two predecessors must differ; the history graph
        /// rejects a version whose predecessors are the same version twice.
        public init(idOfFirst: Version.ID, idOfSecond: Version.ID? = nil) {
            self.idOfFirst = idOfFirst
            self.idOfSecond = idOfSecond
        }

        private enum CodingKeys: String, CodingKey {
            case idOfFirst, idOfSecond
        }

        /// Decodes predecessors.
        ///
        /// - Throws: `DecodingError` when `idOfFirst` is missing, or when both identifiers
        ///   are the same version.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            idOfFirst = try container.decode(Version.ID.self, forKey: .idOfFirst)
            idOfSecond = try container.decodeIfPresent(Version.ID.self, forKey: .idOfSecond)
            if idOfSecond == idOfFirst {
                throw DecodingError.dataCorruptedError(
                    forKey: .idOfSecond, in: container,
                    debugDescription: "Both predecessors are version \(idOfFirst).")
            }
        }

        /// Encodes predecessors, omitting a missing second one.
        ///
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(idOfFirst, forKey: .idOfFirst)
            try container.encodeIfPresent(idOfSecond, forKey: .idOfSecond)
        }
    }

    /// The versions based on a version. Derived by the history graph, never stored.
    public struct Successors: Hashable, Codable, Sendable {
        /// The identifiers of the successor versions.
        public var ids: Set<Version.ID>

        /// Creates a successor set.
        public init(ids: Set<Version.ID> = []) {
            self.ids = ids
        }
    }
}
