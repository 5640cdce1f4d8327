import Foundation
import LLVSCore
import LLVSExchange
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

    /// Devices that asked to join (``requestEnrollment(of:through:)``) and are not enrolled,
    /// as the retrieves so far found them.
    public var enrollmentRequests: [DeviceRecord] {
        membership.withLock { $0.map { Array($0.enrollmentRequests.values).sorted { $0.idHex < $1.idHex } } ?? [] }
    }

    /// Sends the revisions of `keyring` the other side lacks and follows it from now on: its
    /// current epoch seals what is sent next.
    ///
    /// - Throws: ``EncryptionError/keyringRejected(revision:reason:)`` when `keyring` does not
    ///   extend the keyring followed (no roll-back, no other chain);
    ///   ``ExchangeError/conflictingVersion(_:location:)`` when another device published a
    ///   revision of the same number first (retrieve, then make the change again);
    ///   ``EncryptionError/notEnrolled(reason:)`` when it holds no keys for this member.
    public func publish(_ keyring: Keyring) async throws {
        guard let held = membership.withLock({ $0 }) else {
            throw EncryptionError.keyringRejected(revision: 0, reason: "this exchange was given keys, not a keyring to follow")
        }
        guard keyring.extends(held.keyring) else {
            throw EncryptionError.keyringRejected(revision: UInt32(keyring.revisions.count - 1), reason: "it does not extend the keyring followed")
        }
        let carriers = keyring.revisions.enumerated().dropFirst(held.publishedCount).map {
            Self.carrier(named: Self.keyringCarrierName($0.offset), holding: $0.element)
        }
        try await sendCarriers(carriers, names: [:])
        try take(keyring)
        membership.withLock { membership in
            if let published = membership?.publishedCount { membership?.publishedCount = max(published, keyring.revisions.count) }
        }
    }

    /// An exchange through `inner` for a device that restores the store from its recovery
    /// phrase alone: reads the keyring on the other side and opens it with `phrase`.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` for a phrase that is not the
    ///   store's current one or no keyring on the other side,
    ///   ``EncryptionError/keyringRejected(revision:reason:)`` when it does not hold up; what
    ///   `inner` throws. Nothing is written.
    public static func restoring(through inner: any Exchange, phrase: RecoveryPhrase) async throws -> EncryptedExchange {
        try EncryptedExchange(sealing: inner, keyring: try await readKeyring(through: inner), member: .phrase(phrase))
    }

    /// An exchange through `inner` for `device`, once an enrolled device has added it.
    ///
    /// - Throws: ``EncryptionError/notEnrolled(reason:)`` until it is added (or while the
    ///   other side holds no keyring);
    ///   ``EncryptionError/keyringRejected(revision:reason:)``; what `inner` throws.
    public static func joining(through inner: any Exchange, as device: DeviceIdentity) async throws -> EncryptedExchange {
        try EncryptedExchange(sealing: inner, keyring: try await readKeyring(through: inner), member: .device(device))
    }

    /// Publishes `device`'s record through `inner`, so an enrolled device finds it among its
    /// ``enrollmentRequests`` and adds it after checking its ``DeviceRecord/enrollmentCode``.
    /// Sending the same request again does nothing.
    ///
    /// - Throws: What `inner` throws.
    public static func requestEnrollment(of device: DeviceRecord, through inner: any Exchange) async throws {
        try await inner.send(versionChanges: [carrier(named: "device-" + device.idHex, holding: device.serialized)])
    }

    /// The keyring on the other side of `inner`, read whole.
    static func readKeyring(through inner: any Exchange) async throws -> Keyring {
        try await inner.prepareToRetrieve()
        let numbered = try await inner.retrieveVersionIdentifiers(after: nil).versionIds.compactMap { id in
            keyringRevisionNumber(id.rawValue).map { ($0, id) }
        }
        guard !numbered.isEmpty else {
            throw EncryptionError.notEnrolled(reason: "the other side holds no keyring yet")
        }
        return try Keyring(revisions: try await fetchRevisions(Dictionary(numbered) { first, _ in first }, from: 0, through: inner))
    }

    /// Takes the keyring and enrollment carriers out of a listing: new revisions are checked
    /// and followed (or, with no keyring followed, skipped), requests are read. Returns the
    /// other identifiers, in order.
    func takeKeyringCarriers(from ids: [Version.ID]) async throws -> [Version.ID] {
        var others: [Version.ID] = []
        var revisions: [UInt32: Version.ID] = [:]
        var requests: [Version.ID] = []
        for id in ids {
            if let number = Self.keyringRevisionNumber(id.rawValue) {
                revisions[number] = id
            } else if id.rawValue.hasPrefix("device-") {
                requests.append(id)
            } else {
                others.append(id)
            }
        }
        guard let held = membership.withLock({ $0 }) else { return others }
        let heldCount = held.keyring.revisions.count
        let newer = revisions.filter { $0.key >= heldCount }
        if !newer.isEmpty {
            let fetched = try await Self.fetchRevisions(newer, from: heldCount, through: inner)
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
    private func readEnrollmentRequests(_ ids: [Version.ID]) async throws {
        let changes = try await inner.retrieveValueChanges(forVersionsIdentifiedBy: ids)
        let records = ids.compactMap { id -> DeviceRecord? in
            guard let bytes = try? Self.carriedBytes(name: id.rawValue, changes[id]),
                  let record = try? DeviceRecord(serialized: bytes), "device-" + record.idHex == id.rawValue else { return nil }
            return record
        }
        membership.withLock { membership in
            for record in records where membership?.keyring.devices.contains(record) == false {
                membership?.enrollmentRequests[record.id] = record
            }
        }
    }

    /// The bytes of the revisions numbered from `first` on, which must all be listed.
    private static func fetchRevisions(_ listed: [UInt32: Version.ID], from first: Int, through inner: any Exchange) async throws -> [Data] {
        let last = Int(listed.keys.max() ?? 0)
        let wanted = (first...max(first, last)).map { UInt32($0) }
        if let missing = wanted.first(where: { listed[$0] == nil }) {
            throw EncryptionError.keyringRejected(revision: missing, reason: "revision \(missing) is missing on the other side, before revision \(last)")
        }
        let ids = wanted.compactMap { listed[$0] }
        let changes = try await inner.retrieveValueChanges(forVersionsIdentifiedBy: ids)
        return try ids.map { try carriedBytes(name: $0.rawValue, changes[$0]) }
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
