extension Value {
    /// The key of a value in the store: an arbitrary string chosen by the caller.
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
