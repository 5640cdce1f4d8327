/// The name of a store on a sync server: 1 to 64 characters from `A–Z a–z 0–9 . _ -`, not
/// starting with a dot. Names appear in URLs and in the server's tables.
public struct SyncStoreName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The name.
    public let rawValue: String

    /// Accepts a valid name, or returns nil.
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// True when `name` is a valid store name.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// The name.
    public var description: String { rawValue }
}
