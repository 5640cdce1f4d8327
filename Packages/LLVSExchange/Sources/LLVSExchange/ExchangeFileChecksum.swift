import Crypto
import Foundation
import LLVSCore
import LLVSSupport

/// The checksum a file-system exchange writes into each version and changes file
/// (SPEC.md section 11): the file is the canonical JSON of its object with a first member
/// `"checksum":"<64 lower-case hex>"`, the SHA-256 of the same canonical JSON without that
/// member. Since `checksum` sorts before every other key of both objects, the member always
/// opens the object, and the checked bytes are the file with it cut out.
enum ExchangeFileChecksum {
    /// The bytes that open a file carrying a checksum.
    static let opening = Array(#"{"checksum":""#.utf8)
    /// `opening`, 64 hex digits, `",`.
    static let headerCount = opening.count + 64 + 2

    /// `canonical` (a canonical JSON object with at least one member, none named
    /// `checksum`) with its checksum member inserted first.
    static func seal(_ canonical: Data) -> Data {
        let digest = Hex.encode(Array(SHA256.hash(data: canonical)))
        var sealed = Data(capacity: canonical.count + headerCount - 1)
        sealed.append(contentsOf: opening)
        sealed.append(contentsOf: Array(digest.utf8))
        sealed.append(contentsOf: Array(#"","#.utf8))
        sealed.append(canonical.dropFirst())
        return sealed
    }

    /// What checking a file's bytes found.
    enum Outcome: Equatable {
        /// The file carries a checksum and matches it; `content` is the file without it.
        case verified(content: Data)
        /// The file carries no checksum member (a file written before checksums).
        case unsealed
        /// The file opens like one with a checksum but does not match it; `reason` says how.
        case mismatch(reason: String)
    }

    /// Checks `data` against the checksum it carries.
    static func check(_ data: Data) -> Outcome {
        let bytes = [UInt8](data)
        guard bytes.starts(with: opening) else { return .unsealed }
        guard bytes.count > headerCount,
              bytes[opening.count + 64] == UInt8(ascii: "\""), bytes[opening.count + 65] == UInt8(ascii: ",") else {
            return .mismatch(reason: "the checksum member is cut short or malformed")
        }
        let written = bytes[opening.count..<(opening.count + 64)]
        var content = Data(capacity: bytes.count - headerCount + 1)
        content.append(UInt8(ascii: "{"))
        content.append(contentsOf: bytes[headerCount...])
        let computed = Hex.encode(Array(SHA256.hash(data: content)))
        guard Array(computed.utf8) == Array(written) else {
            return .mismatch(reason: "its content does not match its checksum (SHA-256 \(computed), written \(String(decoding: written, as: UTF8.self)))")
        }
        return .verified(content: content)
    }
}
