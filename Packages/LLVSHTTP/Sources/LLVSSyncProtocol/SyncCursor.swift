/// A position in a server store's list of versions: the store's identity (which changes if
/// the store is recreated, so an old cursor is recognised as foreign) and the sequence
/// number of the last version listed.
///
/// Wire form: `IDENTITY.SEQUENCE`, for example `0F6C…9A.1042`. Sequence numbers start at 1
/// and grow by one per stored version, in commit order.
public struct SyncCursor: Hashable, Sendable, CustomStringConvertible {
    /// The store's identity on the server.
    public var storeIdentity: String
    /// The sequence number of the last version covered (0: none).
    public var sequence: Int64

    /// Creates a cursor.
    public init(storeIdentity: String, sequence: Int64) {
        self.storeIdentity = storeIdentity
        self.sequence = sequence
    }

    /// Parses the wire form; nil when it is not `IDENTITY.SEQUENCE` with a sequence ≥ 0.
    public init?(_ text: String) {
        guard let dot = text.lastIndex(of: "."), let sequence = Int64(text[text.index(after: dot)...]), sequence >= 0 else { return nil }
        let identity = String(text[..<dot])
        guard !identity.isEmpty, identity.utf8.count <= 64 else { return nil }
        self.init(storeIdentity: identity, sequence: sequence)
    }

    /// The wire form.
    public var description: String { "\(storeIdentity).\(sequence)" }
}
