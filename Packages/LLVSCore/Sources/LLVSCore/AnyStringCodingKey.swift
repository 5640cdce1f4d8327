/// A coding key for any string: the key a ``Version/MetadataKey`` encodes under, and the
/// key used to list every key of an object while decoding.
struct AnyStringCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        return nil
    }
}
