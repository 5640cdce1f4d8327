import Foundation

/// The paths of a blind store (SPEC.md, "Blind stores"): the server keeps ordered opaque
/// blobs, each under a name the client chose, and learns nothing else. Every path begins
/// with `/v1/blind/{store}`; a client is given that prefix as the *blind store URL*.
/// Blind stores are a namespace of their own: `/v1/blind/notes` and `/v1/stores/notes`
/// are two stores.
public enum BlindAPI {
    /// The prefix of every blind store's paths.
    public static let storesPath = "/v1/blind"

    /// `GET ?after=CURSOR&limit=N`: the names and sizes of the blobs stored after a cursor
    /// (``BlobListing``); `POST` (``BlobFrames`` body, write token header): store blobs
    /// (``BlobPutResponse``).
    public static let blobs = "blobs"
    /// `POST {"names":[…]}` (``BlobNamesRequest``): the blobs by name, as ``BlobFrames``
    /// (`application/octet-stream`); a name the store lacks is left out.
    public static let fetchBlobs = "blobs/fetch"
    /// `GET ?after=CURSOR&timeout=SECONDS`: a long poll answered once blobs are stored after
    /// the cursor, or when the timeout passes (``EventsResponse``).
    public static let events = "events"
    /// `PUT {"tokenHash":"…"}` (``WriteTokenRequest``), with the current write token in
    /// the header: replaces the hash of the token writes need (a new key epoch).
    public static let writeToken = "write-token"

    /// The header carrying a write token: 64 lower-case hex digits (32 bytes).
    public static let writeTokenHeader = "LLVS-Write-Token"

    /// The prefix of names any holder of an access token may write without a write token:
    /// requests to join, posted by a device that holds no key yet.
    public static let unguardedNamePrefix = "device-"

    /// The longest blob name, in bytes.
    public static let maximumNameByteCount = 100

    /// Why `name` is not a blob name (1 to 100 of `a-z 0-9 -`), or nil when it is one.
    public static func nameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumNameByteCount else {
            return "a blob name has 1 to \(maximumNameByteCount) bytes, not \(bytes.count)"
        }
        guard bytes.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }) else {
            return "a blob name holds only a-z, 0-9 and -"
        }
        return nil
    }
}

/// `GET blobs`: the blobs stored after a cursor, in storage order.
public struct BlobListing: Codable, Hashable, Sendable {
    /// One listed blob.
    public struct Entry: Codable, Hashable, Sendable {
        /// The blob's name.
        public var name: String
        /// Its size in bytes.
        public var size: Int64

        /// Creates an entry.
        public init(name: String, size: Int64) {
            self.name = name
            self.size = size
        }
    }

    /// The blobs, in storage order.
    public var blobs: [Entry]
    /// The cursor after the last blob listed; pass it as `after` to continue.
    public var cursor: String
    /// True when the listing started from the beginning (no cursor, or a foreign one).
    public var isCompleteListing: Bool
    /// True when more blobs follow; ask again with ``cursor``.
    public var hasMore: Bool

    /// Creates a listing.
    public init(blobs: [Entry], cursor: String, isCompleteListing: Bool, hasMore: Bool) {
        self.blobs = blobs
        self.cursor = cursor
        self.isCompleteListing = isCompleteListing
        self.hasMore = hasMore
    }
}

/// The body of `POST blobs/fetch`.
public struct BlobNamesRequest: Codable, Hashable, Sendable {
    /// The names asked for (at most ``SyncLimits/maximumIdentifiersPerRequest``).
    public var names: [String]

    /// Creates a request.
    public init(names: [String]) {
        self.names = names
    }
}

/// The answer to a blob `POST`.
public struct BlobPutResponse: Codable, Hashable, Sendable {
    /// How many blobs this request stored.
    public var addedCount: Int
    /// Names the store held already with the same bytes.
    public var alreadyPresentCount: Int
    /// Names the store held already with other bytes; those blobs were not stored (the
    /// first blob stored under a name stays).
    public var differing: [String]
    /// The store's cursor after the request.
    public var cursor: String

    /// Creates a response.
    public init(addedCount: Int, alreadyPresentCount: Int, differing: [String], cursor: String) {
        self.addedCount = addedCount
        self.alreadyPresentCount = alreadyPresentCount
        self.differing = differing
        self.cursor = cursor
    }
}

/// The body of `PUT write-token`.
public struct WriteTokenRequest: Codable, Hashable, Sendable {
    /// SHA-256 of the new write token, 64 lower-case hex digits.
    public var tokenHash: String

    /// Creates a request.
    public init(tokenHash: String) {
        self.tokenHash = tokenHash
    }
}

/// Blobs in a binary body (`application/octet-stream`): one frame per blob, a byte giving
/// the name's length (1...100), the name (`a-z 0-9 -`), four bytes giving the blob's length
/// (big-endian), then the blob. Nothing before, between or after the frames.
public enum BlobFrames {
    /// The frames of `blobs`.
    ///
    /// - Throws: ``BlobFramesError`` for a name that is not a blob name or a blob of 4 GiB or more.
    public static func encode(_ blobs: [(name: String, data: Data)]) throws(BlobFramesError) -> Data {
        var out = Data()
        out.reserveCapacity(blobs.reduce(0) { $0 + 5 + $1.name.utf8.count + $1.data.count })
        for (name, data) in blobs {
            if let problem = BlindAPI.nameProblem(name) { throw BlobFramesError(offset: out.count, reason: problem) }
            guard let length = UInt32(exactly: data.count) else { throw BlobFramesError(offset: out.count, reason: "blob \(name) has 4 GiB or more") }
            out.append(UInt8(name.utf8.count))
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: [UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)])
            out.append(data)
        }
        return out
    }

    /// The blobs framed in `data`, in order.
    ///
    /// - Throws: ``BlobFramesError`` naming the offset of the first frame that is cut short
    ///   or holds a name that is not a blob name.
    public static func decode(_ data: Data) throws(BlobFramesError) -> [(name: String, data: Data)] {
        let bytes = [UInt8](data)
        var blobs: [(name: String, data: Data)] = []
        var offset = 0
        while offset < bytes.count {
            let nameLength = Int(bytes[offset])
            guard bytes.count - offset - 1 >= nameLength + 4 else {
                throw BlobFramesError(offset: offset, reason: "the frame is cut short")
            }
            let name = String(decoding: bytes[(offset + 1)..<(offset + 1 + nameLength)], as: UTF8.self)
            if let problem = BlindAPI.nameProblem(name) { throw BlobFramesError(offset: offset, reason: problem) }
            let lengthStart = offset + 1 + nameLength
            let length = bytes[lengthStart..<(lengthStart + 4)].reduce(0) { $0 << 8 | Int($1) }
            let start = lengthStart + 4
            guard bytes.count - start >= length else {
                throw BlobFramesError(offset: offset, reason: "blob \(name) declares \(length) bytes; \(bytes.count - start) follow")
            }
            blobs.append((name, Data(bytes[start..<(start + length)])))
            offset = start + length
        }
        return blobs
    }
}

/// Why a body of blob frames cannot be read or written.
public struct BlobFramesError: Error, Hashable, CustomStringConvertible {
    /// The byte offset of the frame at fault.
    public var offset: Int
    /// What is wrong with it.
    public var reason: String

    /// Creates an error.
    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    /// A sentence naming the frame and the problem.
    public var description: String { "blob frame at byte \(offset): \(reason)" }
}
