extension Version {
    /// The identifier of a version. New versions get a random UUID string; merge versions
    /// made by the store get an identifier derived from their content.
    ///
    /// Identifiers compare by their exact UTF-8 bytes (see ``StringIdentifier``).
    public struct Identifier: CompactStringIdentifier {
        /// The identifier's bytes (a UUID string held as its 128 bits).
        public var storage: IdentifierStorage

        /// Creates the identifier holding `storage`.
        public init(storage: IdentifierStorage) {
            self.storage = storage
        }
    }
}
