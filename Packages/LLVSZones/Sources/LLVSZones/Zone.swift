import Foundation

/// Raw, append-only storage of byte items addressed by ``ZoneReference``. A store keeps its
/// value data in one zone and its map nodes in another.
///
/// Contract, checked for every backend by the conformance suite in LLVSTesting
/// (`ZoneConformance`):
/// - Append-only: once `data(for:)` returns bytes for a reference, it returns the same bytes
///   forever; storing a reference again does not change them. A reference repeated within
///   one `store` call gets the last of its data.
/// - Atomic: the items of one `store` call that share a version become readable together or
///   not at all, even if the process is killed midway.
/// - Durable: when `store` returns, the items survive a process crash.
/// - Thread-safe, and (for persistent backends) safe for several processes at once.
/// - Keys and version identifiers may be any strings; a backend must never let one address
///   anything outside its own storage.
public protocol Zone: Sendable {
    /// Stores items; items sharing a version are written together atomically.
    ///
    /// - Throws: ``ZoneError`` when the items cannot be written; nothing of a failed version
    ///   group becomes readable.
    func store(_ items: [ZoneItem]) throws

    /// The bytes of each reference, or nil for a reference never stored, in order.
    ///
    /// - Throws: ``ZoneError`` when stored bytes cannot be read or are corrupt.
    func data(for references: [ZoneReference]) throws -> [Data?]

    /// Stores one item.
    ///
    /// - Throws: ``ZoneError`` when the item cannot be written.
    func store(_ data: Data, for reference: ZoneReference) throws

    /// The bytes of one reference, or nil if it was never stored.
    ///
    /// - Throws: ``ZoneError`` when stored bytes cannot be read or are corrupt.
    func data(for reference: ZoneReference) throws -> Data?
}

extension Zone {
    /// Stores one item as a batch of one.
    ///
    /// - Throws: ``ZoneError`` when the item cannot be written.
    public func store(_ data: Data, for reference: ZoneReference) throws {
        try store([ZoneItem(reference: reference, data: data)])
    }

    /// Reads one reference as a batch of one.
    ///
    /// - Throws: ``ZoneError`` when stored bytes cannot be read or are corrupt.
    public func data(for reference: ZoneReference) throws -> Data? {
        try data(for: [reference]).first ?? nil
    }
}
