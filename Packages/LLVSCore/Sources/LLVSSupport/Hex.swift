/// Lower-case hexadecimal text of bytes.
public enum Hex {
    /// Two lower-case hex digits per byte, most significant nibble first.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        return encode(Array(bytes))
    }

    /// Two lower-case hex digits per byte of a contiguous buffer.
    public static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (offset, byte) in bytes.enumerated() {
                buffer[2 * offset] = digit(byte >> 4)
                buffer[2 * offset + 1] = digit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    /// The ASCII lower-case hex digit of a nibble (0…15).
    @inline(__always)
    static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}
