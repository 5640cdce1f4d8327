import Crypto
import Foundation

/// HMAC-SHA256 under one key, keyed once: swift-crypto spends about 4 µs keying an HMAC and
/// 1.5 µs copying a keyed one here, and sealing a version takes several MACs under keys that
/// live as long as an epoch.
///
/// `@unchecked Sendable`: the keyed state is never mutated. Each code is computed on a copy,
/// whose digest contexts are copied on their first update (copy-on-write), so threads
/// sharing one `KeyedMAC` never touch the same context.
final class KeyedMAC: @unchecked Sendable {
    /// The state after the key, before any message.
    private let keyed: HMAC<SHA256>

    /// A MAC keyed by `key`'s bytes.
    init(key: some ContiguousBytes) {
        keyed = HMAC<SHA256>(key: SymmetricKey(data: key))
    }

    /// HMAC-SHA256 of the concatenation of `parts`.
    func code(_ parts: [UInt8]...) -> [UInt8] {
        var mac = keyed
        for part in parts { mac.update(data: part) }
        return Array(mac.finalize())
    }

    /// HMAC-SHA256 of `prefix` followed by `data`.
    func code(_ prefix: [UInt8], _ data: Data) -> [UInt8] {
        var mac = keyed
        mac.update(data: prefix)
        mac.update(data: data)
        return Array(mac.finalize())
    }
}
