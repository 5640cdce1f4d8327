import Foundation
import LLVSCore

/// Why an encrypted exchange refused something. Each case names the blob (by its name on
/// the other side, 64 hex digits) or the key involved; nothing from a refused blob is added
/// to the store.
public enum EncryptionError: Error, Hashable, CustomStringConvertible {
    /// A key of the wrong size or form.
    case invalidKey(reason: String)
    /// Words that are not a recovery phrase: a word not in the list, a count other than 24,
    /// or words whose checksum does not match.
    case invalidPhrase(reason: String)
    /// The keyring on the other side does not hold up: a revision not signed by a device
    /// enrolled before it, a broken chain, a slot that does not open, or a revision made by
    /// someone without the store's key.
    case keyringRejected(revision: UInt32, reason: String)
    /// The keyring holds no keys for this device or phrase: it was never enrolled, it was
    /// removed, or the phrase was replaced when a device was removed.
    case notEnrolled(reason: String)
    /// A blind store refused a write: the write token is not the one of the store's current
    /// key epoch (a device removed from the keyring, or one that has not yet retrieved the
    /// revision that started the epoch; a retrieve brings it).
    case writeTokenRejected(reason: String)
    /// The blob does not open under the key its header names: a flipped bit, a cut, a blob
    /// moved from another name or replayed from another store, a header changed.
    case tampered(name: String, reason: String)
    /// The blob opened, but what it holds is not one version whose name is the blob's.
    case malformedContents(name: String, reason: String)
    /// The blob's first byte names a format this version of LLVS cannot open.
    case unsupportedFormat(name: String, format: UInt8)
    /// What the other side holds under a name is not a sealed version (a plaintext version
    /// in an encrypted location, or a carrier of the wrong shape).
    case notSealed(name: String, reason: String)

    /// A sentence naming the blob or key and what was wrong.
    public var description: String {
        switch self {
        case .invalidKey(let reason):
            return "invalid encryption key: \(reason)"
        case .invalidPhrase(let reason):
            return "not a recovery phrase: \(reason)"
        case let .keyringRejected(revision, reason):
            return "keyring revision \(revision) refused: \(reason)"
        case .notEnrolled(let reason):
            return "the keyring holds no keys for you: \(reason)"
        case .writeTokenRejected(let reason):
            return "the other side refused the write: \(reason)"
        case let .tampered(name, reason):
            return "sealed version \(name) was tampered with or belongs elsewhere: \(reason)"
        case let .malformedContents(name, reason):
            return "sealed version \(name) opened but holds no valid version: \(reason)"
        case let .unsupportedFormat(name, format):
            return "sealed version \(name) is in format \(format), which this LLVS cannot open"
        case let .notSealed(name, reason):
            return "\(name) on the other side is not a sealed version: \(reason)"
        }
    }
}
