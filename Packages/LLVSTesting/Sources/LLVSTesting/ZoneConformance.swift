import Foundation
import LLVSCore
import LLVSZones
import Testing

/// The checks every `Zone` and `VersionLog` backend must pass (the contract documented
/// on `Zone` and `VersionLog`). A backend's tests run each check, for example:
///
/// ```swift
/// @Test(arguments: ZoneConformance.Check.allCases)
/// func fileStorageConforms(_ check: ZoneConformance.Check) throws {
///     let root = try TemporaryDirectory()
///     try ZoneConformance(storage: FileStorage(), rootDirectoryURL: root.url).run(check)
/// }
/// ```
///
/// Failures are recorded with Swift Testing expectations naming the check.
public struct ZoneConformance: Sendable {
    /// One property of the contract.
    public enum Check: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Stored items read back, singly and in batches; unknown references read as nil.
        case storesAndReadsBack
        /// Storing a reference again does not change its data; within one batch the last
        /// data of a repeated reference wins.
        case isAppendOnly
        /// Keys and versions that are hostile as paths (`/`, `..`, NUL, empty, very long,
        /// canonically equivalent Unicode) are stored distinctly and stay inside the store.
        case acceptsAnyIdentifiers
        /// Empty, large and many items in one batch.
        case handlesEmptyLargeAndManyItems
        /// Data survives reopening the storage.
        case survivesReopening
        /// Writers on several threads lose nothing.
        case isThreadSafe
        /// The version log returns what was appended, incrementally by cursor, from every
        /// writer, and after reopening.
        case versionLogKeepsEveryRecord

        /// The check's name.
        public var testDescription: String { rawValue }
    }

    /// The backend under test.
    public let storage: any Storage
    /// The store location the checks use (each check uses its own subdirectory).
    public let rootDirectoryURL: URL

    /// Creates the suite for `storage`, using store locations under `rootDirectoryURL`.
    public init(storage: any Storage, rootDirectoryURL: URL) {
        self.storage = storage
        self.rootDirectoryURL = rootDirectoryURL
    }

    /// Runs one check, recording failures as issues.
    ///
    /// - Throws: Any error the backend throws where the contract says it must not.
    public func run(_ check: Check) throws {
        let root = rootDirectoryURL.appendingPathComponent(check.rawValue, isDirectory: true)
        switch check {
        case .storesAndReadsBack: try storesAndReadsBack(root)
        case .isAppendOnly: try isAppendOnly(root)
        case .acceptsAnyIdentifiers: try acceptsAnyIdentifiers(root)
        case .handlesEmptyLargeAndManyItems: try handlesEmptyLargeAndManyItems(root)
        case .survivesReopening: try survivesReopening(root)
        case .isThreadSafe: try isThreadSafe(root)
        case .versionLogKeepsEveryRecord: try versionLogKeepsEveryRecord(root)
        }
    }

    private static func reference(_ key: String, _ version: String) -> ZoneReference {
        ZoneReference(key: .init(key), version: .init(version))
    }

    private func storesAndReadsBack(_ root: URL) throws {
        let zone = try storage.makeZones(rootDirectoryURL: root).values
        let a = Self.reference("a", "V1"), b = Self.reference("b", "V1"), c = Self.reference("a", "V2")
        try zone.store(Data("one".utf8), for: a)
        try zone.store([ZoneItem(reference: b, data: Data("two".utf8)), ZoneItem(reference: c, data: Data("three".utf8))])
        #expect(try zone.data(for: a) == Data("one".utf8))
        #expect(try zone.data(for: [c, b, Self.reference("a", "V3"), Self.reference("zz", "V1")])
            == [Data("three".utf8), Data("two".utf8), nil, nil])
    }

    private func isAppendOnly(_ root: URL) throws {
        let zone = try storage.makeZones(rootDirectoryURL: root).values
        let reference = Self.reference("k", "V")
        try zone.store(Data("first".utf8), for: reference)
        try zone.store(Data("second".utf8), for: reference)
        try zone.store([ZoneItem(reference: reference, data: Data("third".utf8)),
                        ZoneItem(reference: Self.reference("other", "V"), data: Data("x".utf8))])
        #expect(try zone.data(for: reference) == Data("first".utf8))
        #expect(try zone.data(for: Self.reference("other", "V")) == Data("x".utf8))
        let repeated = Self.reference("repeated", "W")
        try zone.store([ZoneItem(reference: repeated, data: Data("early".utf8)),
                        ZoneItem(reference: repeated, data: Data("late".utf8))])
        #expect(try zone.data(for: repeated) == Data("late".utf8), "within one batch the last data wins")
    }

    private func acceptsAnyIdentifiers(_ root: URL) throws {
        let parent = root.deletingLastPathComponent()
        let before = Self.listing(of: parent, excluding: root)
        let hostile = ["../../escape", "/etc/passwd", "a/b", "..", ".", "", "nul\u{0}byte", String(repeating: "x", count: 5_000),
                       "caf\u{E9}", "cafe\u{301}", "CASE", "case", "~tilde", " space ", "\u{1F600}"]
        let zones = try storage.makeZones(rootDirectoryURL: root)
        var items: [ZoneItem] = []
        for (i, key) in hostile.enumerated() {
            for version in hostile {
                items.append(ZoneItem(reference: ZoneReference(key: .init(key), version: .init(version)),
                                      data: Data("\(i)|\(version.utf8.count)".utf8)))
            }
        }
        try zones.values.store(items)
        let read = try zones.values.data(for: items.map(\.reference))
        #expect(read == items.map { Optional($0.data) }, "every hostile key and version reads back its own data")
        try zones.versions.append(hostile.map { Data($0.utf8) })
        #expect(Self.listing(of: parent, excluding: root) == before, "nothing was created outside the store directory")
    }

    private func handlesEmptyLargeAndManyItems(_ root: URL) throws {
        let zone = try storage.makeZones(rootDirectoryURL: root).maps
        let large = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try zone.store([ZoneItem(reference: Self.reference("empty", "V"), data: Data()),
                        ZoneItem(reference: Self.reference("large", "V"), data: large)])
        #expect(try zone.data(for: Self.reference("empty", "V")) == Data())
        #expect(try zone.data(for: Self.reference("large", "V")) == large)
        let many = (0..<10_000).map { ZoneItem(reference: Self.reference("item-\($0)", "W"), data: Data("\($0)".utf8)) }
        try zone.store(many)
        #expect(try zone.data(for: many.map(\.reference)) == many.map { Optional($0.data) })
        try zone.store([])
    }

    private func survivesReopening(_ root: URL) throws {
        do {
            let zones = try storage.makeZones(rootDirectoryURL: root)
            try zones.values.store(Data("value".utf8), for: Self.reference("v", "V1"))
            try zones.maps.store(Data("node".utf8), for: Self.reference("n", "V1"))
            try zones.versions.append([Data("record".utf8)])
        }
        let reopened = try storage.makeZones(rootDirectoryURL: root)
        #expect(try reopened.values.data(for: Self.reference("v", "V1")) == Data("value".utf8))
        #expect(try reopened.maps.data(for: Self.reference("n", "V1")) == Data("node".utf8))
        #expect(try reopened.values.data(for: Self.reference("n", "V1")) == nil, "zones are separate")
        #expect(try reopened.versions.records(after: .start).records == [Data("record".utf8)])
    }

    private func isThreadSafe(_ root: URL) throws {
        let zones = try storage.makeZones(rootDirectoryURL: root)
        let threads = 8, perThread = 50
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<perThread {
                let version = "T\(thread)-\(i)"
                try? zones.values.store([ZoneItem(reference: Self.reference("k", version), data: Data(version.utf8)),
                                         ZoneItem(reference: Self.reference("shared", "S"), data: Data("same".utf8))])
                _ = try? zones.values.data(for: Self.reference("k", "T\((thread + 1) % threads)-\(i)"))
                try? zones.versions.append([Data(version.utf8)])
            }
        }
        for thread in 0..<threads {
            for i in 0..<perThread {
                let version = "T\(thread)-\(i)"
                #expect(try zones.values.data(for: Self.reference("k", version)) == Data(version.utf8))
            }
        }
        #expect(try zones.values.data(for: Self.reference("shared", "S")) == Data("same".utf8))
        let records = try zones.versions.records(after: .start).records
        #expect(records.count == threads * perThread)
        #expect(Set(records).count == threads * perThread)
    }

    private func versionLogKeepsEveryRecord(_ root: URL) throws {
        let first = try storage.makeZones(rootDirectoryURL: root)
        let second = try storage.makeZones(rootDirectoryURL: root)
        #expect(try first.versions.records(after: .start).records.isEmpty)
        try first.versions.append([Data("a".utf8), Data("b".utf8)])
        let (initial, cursor) = try second.versions.records(after: .start)
        #expect(initial == [Data("a".utf8), Data("b".utf8)])
        try second.versions.append([Data("c".utf8)])
        try first.versions.append([Data("d".utf8), Data()])
        let (more, _) = try first.versions.records(after: cursor)
        #expect(Set(more) == [Data("c".utf8), Data("d".utf8), Data()])
        #expect(more.count == 3)
        let reopened = try storage.makeZones(rootDirectoryURL: root)
        #expect(try reopened.versions.records(after: .start).records.count == 5)
    }

    /// Every path under `directory` except those under `excluded`, for detecting escapes.
    private static func listing(of directory: URL, excluding excluded: URL) -> Set<String> {
        guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return [] }
        let excludedPrefix = excluded.lastPathComponent
        var paths: Set<String> = []
        while let path = enumerator.nextObject() as? String {
            if path == excludedPrefix || path.hasPrefix(excludedPrefix + "/") { continue }
            paths.insert(path)
        }
        return paths
    }
}
