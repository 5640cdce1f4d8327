extension Version {
    /// The identifier of a version. New versions get a random UUID string; merge versions
    /// made by the store get an identifier derived from their content.
    ///
    /// Identifiers compare by their exact UTF-8 bytes (see ``StringIdentifier``).
    public struct Identifier: StringIdentifier {
        /// The identifier's string form.
        public var rawValue: String

        /// Creates an identifier from its string form.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }
    }
}
