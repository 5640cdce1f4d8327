import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSSupport

/// Who opens a keyring: an enrolled device, or the recovery phrase.
public enum KeyringMember: Sendable {
    /// An enrolled device, with its private keys.
    case device(DeviceIdentity)
    /// The current recovery phrase (a device restoring the store before it is enrolled).
    case phrase(RecoveryPhrase)

    /// The secrets `keyring` holds for this member.
    ///
    /// - Throws: As ``Keyring/secrets(for:)-(DeviceIdentity)``.
    func secrets(in keyring: Keyring) throws(EncryptionError) -> KeyringSecrets {
        switch self {
        case .device(let device): return try keyring.secrets(for: device)
        case .phrase(let phrase): return try keyring.secrets(for: phrase)
        }
    }
}

/// The keyring an exchange follows, and what it learnt from the other side.
struct KeyringMembership: Sendable {
    var keyring: Keyring
    let member: KeyringMember
    /// Set when a revision removed the member: sends stop, what it holds stays readable.
    var removal: EncryptionError?
    /// Devices that asked to join and are not enrolled, by identifier.
    var enrollmentRequests: [Data: DeviceRecord] = [:]
    /// How many of the keyring's revisions are known to be on the other side (listed there,
    /// or sent by this exchange).
    var publishedCount = 0

    init(keyring: Keyring, member: KeyringMember) {
        self.keyring = keyring
        self.member = member
    }
}

/// The keyring on the other side. Beside the sealed versions, an encrypted exchange carries
/// two more kinds of carrier (SPEC.md, "Encrypted exchanges"):
///
/// - `keyring-` and the revision number in 8 lower-case hex digits: one revision of the
///   ``Keyring`` each. Two devices that make the same revision number at once conflict, and
///   the second is refused (``ExchangeError/conflictingVersion(_:location:)``): it retrieves
///   and makes its change again on the newer keyring.
/// - `device-` and a device identifier in 32 hex digits: a device asking to join, holding its
///   ``DeviceRecord`` (its name and public keys, in the clear).
extension EncryptedExchange {
    /// The keyring followed, with every revision taken so far; nil when the keys were given
    /// directly (``init(sealing:keys:)``).
    public var keyring: Keyring? { membership.withLock { $0?.keyring } }

    /// Devices that asked to join (`requestEnrollment(of:through:)`) and are not enrolled,
    /// as the retrieves so far found them.
    public var enrollmentRequests: [DeviceRecord] {
        membership.withLock { $0.map { Array($0.enrollmentRequests.values).sorted { $0.idHex < $1.idHex } } ?? [] }
    }

    /// Sends the revisions of `keyring` the other side lacks and follows it from now on: its
    /// current epoch seals what is sent next.
    ///
    /// - Throws: ``EncryptionError/keyringRejected(revision:reason:)`` when `keyring` does not
    ///   extend the keyring followed (no roll-back, no other chain);
    ///   `ExchangeError.conflictingVersion(_:location:)` when another device published a
    ///   revision of the same number first (retrieve, then make the change again);
    ///   ``EncryptionError/notEnrolled(reason:)`` when it holds no keys for this member.
    public func publish(_ keyring: Keyring) async throws {
        guard let held = membership.withLock({ $0 }) else {
            throw EncryptionError.keyringRejected(revision: 0, reason: "this exchange was given keys, not a keyring to follow")
        }
        guard keyring.extends(held.keyring) else {
            throw EncryptionError.keyringRejected(revision: UInt32(keyring.revisions.count - 1), reason: "it does not extend the keyring followed")
        }
        let blobs = keyring.revisions.enumerated().dropFirst(held.publishedCount).map {
            (name: Self.keyringCarrierName($0.offset), data: $0.element)
        }
        let differing: [String]
        do {
            differing = try await putBlobs(Array(blobs))
        } catch EncryptionError.writeTokenRejected(let reason) {
            // A device behind the other side's keyring: what it would publish is there already
            // when the keyring there extends it.
            guard try await catchUpWithKeyring(), let caughtUp = self.keyring, caughtUp.extends(keyring) else {
                throw EncryptionError.writeTokenRejected(reason: reason)
            }
            return
        }
        if let differing = differing.first {
            throw ExchangeError.conflictingVersion(Version.ID(differing), location: "the other side")
        }
        let previous = currentKeys
        try take(keyring)
        let keys = currentKeys
        if keys.currentEpoch != previous.currentEpoch, let old = previous.writeToken(ofEpoch: previous.currentEpoch),
           let new = keys.writeToken(ofEpoch: keys.currentEpoch) {
            // The revision went under the old epoch's token; from now on only the new one writes.
            try await transport.replaceWriteToken(current: old, with: new)
        }
        membership.withLock { membership in
            if let published = membership?.publishedCount { membership?.publishedCount = max(published, keyring.revisions.count) }
        }
    }

    /// An exchange through `inner` (as carriers) for a device that restores the store from
    /// its recovery phrase alone: reads the keyring on the other side and opens it with `phrase`.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` for a phrase that is not the
    ///   store's current one or no keyring on the other side,
    ///   ``EncryptionError/keyringRejected(revision:reason:)`` when it does not hold up; what
    ///   `inner` throws. Nothing is written.
    public static func restoring(through inner: any Exchange, phrase: RecoveryPhrase) async throws -> EncryptedExchange {
        try await restoring(through: CarrierBlobTransport(inner), store: inner.store, phrase: phrase)
    }

    /// An exchange into `transport` for `store`, restored from the recovery phrase alone (as
    /// ``restoring(through:phrase:)``).
    ///
    /// - Throws: As ``restoring(through:phrase:)``.
    public static func restoring(through transport: any SealedBlobTransport, store: Store, phrase: RecoveryPhrase) async throws -> EncryptedExchange {
        try EncryptedExchange(blobs: transport, store: store, keyring: try await readKeyring(through: transport), member: .phrase(phrase))
    }

    /// An exchange through `inner` (as carriers) for `device`, once an enrolled device has added it.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` until it is added (or while the
    ///   other side holds no keyring);
    ///   ``EncryptionError/keyringRejected(revision:reason:)``; what `inner` throws.
    public static func joining(through inner: any Exchange, as device: DeviceIdentity) async throws -> EncryptedExchange {
        try await joining(through: CarrierBlobTransport(inner), store: inner.store, as: device)
    }

    /// An exchange into `transport` for `store` and `device`, once an enrolled device has
    /// added it (as ``joining(through:as:)``).
    ///
    /// - Throws: As ``joining(through:as:)``.
    public static func joining(through transport: any SealedBlobTransport, store: Store, as device: DeviceIdentity) async throws -> EncryptedExchange {
        try EncryptedExchange(blobs: transport, store: store, keyring: try await readKeyring(through: transport), member: .device(device))
    }

    /// Publishes `device`'s record through `inner` (as a carrier), so an enrolled device finds
    /// it among its ``enrollmentRequests`` and adds it after checking its
    /// ``DeviceRecord/enrollmentCode``. Sending the same request again does nothing.
    ///
    /// - Throws: What `inner` throws.
    public static func requestEnrollment(of device: DeviceRecord, through inner: any Exchange) async throws {
        try await requestEnrollment(of: device, through: CarrierBlobTransport(inner))
    }

    /// Publishes `device`'s record into `transport` (no write token needed), as
    /// `requestEnrollment(of:through:)-(_,any Exchange)`.
    ///
    /// - Throws: What `transport` throws.
    public static func requestEnrollment(of device: DeviceRecord, through transport: any SealedBlobTransport) async throws {
        _ = try await transport.put([(name: "device-" + device.idHex, data: device.serialized)], writeToken: nil)
    }

    /// The keyring on the other side of `transport`, read whole.
    static func readKeyring(through transport: any SealedBlobTransport) async throws -> Keyring {
        try await transport.prepareToRetrieve()
        let names = try await transport.allBlobNames()
        let numbered = names.compactMap { name in keyringRevisionNumber(name).map { ($0, name) } }
        guard !numbered.isEmpty else {
            throw EncryptionError.notEnrolled(reason: "the other side holds no keyring yet")
        }
        return try Keyring(revisions: try await fetchRevisions(Dictionary(numbered) { first, _ in first }, from: 0, through: transport))
    }

    /// Reads the keyring on the other side and follows what it adds, after a blind store
    /// refused this device's write token. Returns true when the current epoch changed.
    ///
    /// - Throws: The member's removal (``EncryptionError/notEnrolled(reason:)``) when the
    ///   keyring there removed it; ``EncryptionError/keyringRejected(revision:reason:)``;
    ///   what the transport throws.
    func catchUpWithKeyring() async throws -> Bool {
        guard membership.withLock({ $0 != nil }) else { return false }
        let epoch = currentKeys.currentEpoch
        _ = try await takeKeyringCarriers(from: try await transport.allBlobNames())
        if let removal = membership.withLock({ $0?.removal }) { throw removal }
        return currentKeys.currentEpoch != epoch
    }

    /// Takes the keyring and enrollment carriers out of a listing: new revisions are checked
    /// and followed (or, with no keyring followed, skipped), requests are read. Returns the
    /// other identifiers, in order.
    func takeKeyringCarriers(from names: [String]) async throws -> [String] {
        var others: [String] = []
        var revisions: [UInt32: String] = [:]
        var requests: [String] = []
        for name in names {
            if let number = Self.keyringRevisionNumber(name) {
                revisions[number] = name
            } else if name.hasPrefix("device-") {
                requests.append(name)
            } else if Self.isSnapshotBlobName(name) {
                continue   // sealed snapshots are read by restoreSnapshot, not listed as versions
            } else {
                others.append(name)
            }
        }
        guard let held = membership.withLock({ $0 }) else { return others }
        let heldCount = held.keyring.revisions.count
        let newer = revisions.filter { $0.key >= heldCount }
        if !newer.isEmpty {
            let fetched = try await Self.fetchRevisions(newer, from: heldCount, through: transport)
            try take(try Keyring(revisions: held.keyring.revisions + fetched))
        }
        if let listedCount = revisions.keys.max().map({ Int($0) + 1 }) {
            // Revisions are published in order, so the ones before a listed one are there too.
            membership.withLock { membership in
                guard let held = membership else { return }
                membership?.publishedCount = max(held.publishedCount, min(listedCount, held.keyring.revisions.count))
            }
        }
        if !requests.isEmpty {
            try await readEnrollmentRequests(requests)
        }
        return others
    }

    /// Follows `keyring` (already checked to hold up): its keys when it holds some for the
    /// member, or the member's removal.
    private func take(_ keyring: Keyring) throws(EncryptionError) {
        guard let member = membership.withLock({ $0?.member }) else { return }
        do {
            let secrets = try member.secrets(in: keyring)
            updateKeys { $0 = secrets.encryptionKeys }
            membership.withLock { membership in
                membership?.keyring = keyring
                membership?.removal = nil
                for device in keyring.devices { membership?.enrollmentRequests[device.id] = nil }
            }
        } catch .notEnrolled(let reason) {
            membership.withLock { membership in
                membership?.keyring = keyring
                membership?.removal = .notEnrolled(reason: reason)
            }
        }
    }

    /// Reads the records of devices asking to join. Anyone who can write to the other side
    /// can post a request, so one that is not a record, or not the record of the device its
    /// name says, is passed over (never listed, never an error that would stop the sync).
    private func readEnrollmentRequests(_ names: [String]) async throws {
        var records: [DeviceRecord] = []
        for name in names {
            // One at a time: a request that is not a blob must not hide the others.
            guard let bytes = try? await transport.blobs(named: [name])[name],
                  let record = try? DeviceRecord(serialized: bytes), "device-" + record.idHex == name else { continue }
            records.append(record)
        }
        membership.withLock { membership in
            for record in records where membership?.keyring.devices.contains(record) == false {
                membership?.enrollmentRequests[record.id] = record
            }
        }
    }

    /// The bytes of the revisions numbered from `first` on, which must all be listed.
    private static func fetchRevisions(_ listed: [UInt32: String], from first: Int, through transport: any SealedBlobTransport) async throws -> [Data] {
        let last = Int(listed.keys.max() ?? 0)
        let wanted = (first...max(first, last)).map { UInt32($0) }
        if let missing = wanted.first(where: { listed[$0] == nil }) {
            throw EncryptionError.keyringRejected(revision: missing, reason: "revision \(missing) is missing on the other side, before revision \(last)")
        }
        let names = wanted.compactMap { listed[$0] }
        let blobs = try await transport.blobs(named: names)
        return try names.map { name in
            guard let blob = blobs[name] else { throw ExchangeError.missingValueChanges(Version.ID(name)) }
            return blob
        }
    }

    /// The carrier name of keyring revision `number`.
    static func keyringCarrierName(_ number: Int) -> String {
        let digits = String(number, radix: 16)
        return "keyring-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// The revision number a carrier name stands for, or nil.
    static func keyringRevisionNumber(_ name: String) -> UInt32? {
        guard name.hasPrefix("keyring-") else { return nil }
        let digits = name.dropFirst(8)
        guard digits.count == 8, digits.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else { return nil }
        return UInt32(digits, radix: 16)
    }
}
