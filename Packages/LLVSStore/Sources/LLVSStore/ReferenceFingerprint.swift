import Crypto
import Foundation
import LLVSCore

/// 128 bits of the SHA-256 of a value reference (the value identifier's UTF-8 bytes with
/// their length, then the storing version's): what a verification run remembers of each
/// reference whose data it read, in 16 bytes rather than two strings, so that a store of a
/// million values is checked without holding a million references. Two references share a
/// fingerprint with probability 2⁻¹²⁸.
struct ReferenceFingerprint: Hashable, Sendable {
    private let high: UInt64
    private let low: UInt64

    /// The fingerprint of `reference`.
    init(_ reference: Value.Reference) {
        var hasher = SHA256()
        reference.valueId.withUTF8 { valueBytes in
            withUnsafeBytes(of: UInt64(valueBytes.count).littleEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(bufferPointer: valueBytes)
        }
        reference.storedVersionId.withUTF8 { hasher.update(bufferPointer: $0) }
        let digest = Array(hasher.finalize())
        high = digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = digest[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
