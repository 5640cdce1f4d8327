extension Value {
    /// The key of a value in the store: an arbitrary string chosen by the caller.
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
