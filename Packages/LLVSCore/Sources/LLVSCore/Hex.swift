/// Lower-case hexadecimal text of bytes, as used in SPEC.md for digests and file names.
public enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Two lower-case hex digits per byte, most significant nibble first.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var position = 0
            for byte in bytes {
                buffer[position] = digits[Int(byte >> 4)]
                buffer[position + 1] = digits[Int(byte & 0x0F)]
                position += 2
            }
            return position
        }
    }
}
