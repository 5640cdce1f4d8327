import Crypto
import Foundation

/// HMAC-SHA256 (RFC 2104) under one key, keyed once, on swift-crypto's `SHA256`: the states
/// after the inner and the outer padded key are kept, so a code costs the message's
/// compressions and two more. Sealing a version takes several MACs under keys that live as
/// long as an epoch; swift-crypto's generic `HMAC<SHA256>` spent about 3 µs on each short
/// one here (keying, copying and unspecialized calls), this about a fifth of that. Tests
/// check it against `HMAC<SHA256>` for keys and messages of every length around the block.
///
/// `@unchecked Sendable`: the keyed states are never mutated. Each code is computed on a
/// copy, whose digest context is copied on its first update (copy-on-write), so threads
/// sharing one `KeyedMAC` never touch the same context.
final class KeyedMAC: @unchecked Sendable {
    /// The hash after the inner padded key, before any message.
    private let inner: SHA256
    /// The hash after the outer padded key, before the inner digest.
    private let outer: SHA256

    /// SHA-256's block size, which the key is padded (or hashed) to.
    private static let blockCount = 64

    /// A MAC keyed by `key`'s bytes (hashed first when longer than a block, as RFC 2104 says).
    init(key: some ContiguousBytes) {
        var block: [UInt8] = key.withUnsafeBytes { raw in
            raw.count > Self.blockCount ? SHA256.hash(data: raw).withUnsafeBytes { Array($0) } : Array(raw)
        }
        block += repeatElement(UInt8(0), count: Self.blockCount - block.count)
        var inner = SHA256(), outer = SHA256()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        block.map { $0 ^ 0x5c }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        self.inner = inner
        self.outer = outer
    }

    /// HMAC-SHA256 of the concatenation of `first`, `second` and `third`.
    func code(_ first: [UInt8], _ second: [UInt8], _ third: [UInt8] = []) -> [UInt8] {
        var hasher = inner
        first.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        second.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        third.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return finish(hasher)
    }

    /// HMAC-SHA256 of `prefix` followed by `bytes`.
    func code(of bytes: UnsafeRawBufferPointer, after prefix: [UInt8] = []) -> [UInt8] {
        var hasher = inner
        prefix.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(bufferPointer: bytes)
        return finish(hasher)
    }

    /// The outer hash of `hasher`'s digest.
    private func finish(_ hasher: SHA256) -> [UInt8] {
        var outer = self.outer
        hasher.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize().withUnsafeBytes { Array($0) }
    }
}
