import Foundation
import LLVSCore
import LLVSExchange
import LLVSMerge
import LLVSStore
import LLVSSupport
import LLVSTesting
import PropertyBased
import Testing

/// Damage in a file-system exchange directory: random bytes of random files of a directory
/// holding a few versions are flipped, and a fresh store retrieves from it. Every retrieve
/// either adds exactly the original data or fails with a typed ``ExchangeError``; no
/// version is ever added with a byte that differs from what was sent.
@Suite struct ExchangeDamagePropertyTests {
    /// One flip: which file (modulo the file count), which byte (modulo its size, from the
    /// end when negative), which bits.
    struct Flip: Sendable, CustomStringConvertible {
        var file: Int
        var offset: Int
        var mask: UInt8
        init(_ file: Int, _ offset: Int, _ mask: UInt8) {
            self.file = file
            self.offset = offset
            self.mask = mask
        }
        var description: String { "file \(file) byte \(offset) ^ \(mask)" }
    }

    /// One to three flips.
    static let flips = zip(Gen.int(in: 0...10_000), Gen.int(in: 0...1_000_000), Gen.int(in: 1...255)).array(of: 1...3)

    /// `LLVS_PROPERTY_CASES` lowers the count (the thread-sanitizer run of `Scripts/test --extended`).
    static func cases(_ count: Int) -> Int {
        ProcessInfo.processInfo.environment["LLVS_PROPERTY_CASES"].flatMap(Int.init).map { min($0, count) } ?? count
    }

    /// A source store of five versions (a branch, a merge, a removal, binary values) sent
    /// to a fresh directory of the given format, and the directory's files.
    final class Pristine: Sendable {
        let source: Replica
        let directory: TemporaryDirectory
        let files: [String]

        /// The same directory as a sender from before checksums wrote it: no checksum
        /// members, no `checksums` key in the marker.
        func strippingChecksums() throws -> Pristine {
            let copy = try TemporaryDirectory(prefix: "llvs-exchange-damage-legacy")
            try FileManager.default.removeItem(at: copy.url)
            try FileManager.default.copyItem(at: directory.url, to: copy.url)
            for path in files {
                let url = copy.url.appendingPathComponent(path)
                let bytes = try Data(contentsOf: url)
                if path == "llvs-exchange.json" {
                    try Data(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: #"{"checksums":true,"#, with: "{").utf8).write(to: url)
                } else if path.hasSuffix(".json") {
                    try (Data("{".utf8) + bytes.dropFirst(79)).write(to: url)
                }
            }
            return Pristine(source: source, directory: copy, files: files)
        }

        init(source: Replica, directory: TemporaryDirectory, files: [String]) {
            self.source = source
            self.directory = directory
            self.files = files
        }

        init(format: DirectoryFormat) async throws {
            source = try Replica("damage-source")
            let first = try source.save(["a": "alpha", "b": "bravo"])
            let second = try source.save(["a": "alpha two", "d": String(repeating: "long value ", count: 40)], basedOn: first.id)
            let branch = try source.store.makeVersion(basedOnPredecessor: first.id, storing: [
                .update(Value(idString: "b", data: Data([0, 1, 2, 0xFF, 0x7F, 0x80]))),
                .insert(Value(idString: "c", data: Data("{\"json\": [1, 2]}".utf8))),
            ])
            let merged = try source.store.mergeRelated(version: second.id, with: branch.id, resolvingWith: MostRecentChangeFavoringArbiter())
            try source.store.makeVersion(basedOnPredecessor: merged.id, storing: [.remove(Value.ID("a"))])
            let root = try TemporaryDirectory(prefix: "llvs-exchange-damage-pristine")
            directory = root
            try await FileSystemExchange(rootDirectoryURL: root.url, store: source.store, newDirectoryFormat: format).send()
            files = (FileManager.default.enumerator(atPath: root.url.path)?.compactMap { $0 as? String } ?? [])
                .filter { path in
                    var isDirectory: ObjCBool = false
                    return FileManager.default.fileExists(atPath: root.url.appendingPathComponent(path).path, isDirectory: &isDirectory)
                        && !isDirectory.boolValue
                }
                .sorted()
        }
    }

    /// What the trials found, printed at the end.
    struct Tally {
        var trials = 0
        var damaged = 0
        var detected = 0
        var undetectedHarmless = 0
        var wrongVersions = 0
    }

    @Test func noWrongByteIsEverAddedFromADamagedDirectory() async throws {
        let pristine = try await Pristine(format: .versionFiles)
        #expect(pristine.files.count == 12, "five versions of two files each, the marker and one log segment: \(pristine.files)")
        let tally = Locked(Tally())
        await propertyCheck(count: Self.cases(300), input: Self.flips) { flips in
            try await Self.check(flips.map { Flip($0.0, $0.1, UInt8($0.2)) }, pristine: pristine, tally: tally)
        }
        let result = tally.withLock { $0 }
        print("exchange damage: \(result.trials) trials, \(result.damaged) damaged a file, \(result.detected) failed with a typed error, "
              + "\(result.undetectedHarmless) added only intact versions without error (damage in the log's final record or the marker's identifier), "
              + "\(result.wrongVersions) versions added with wrong data")
        #expect(result.wrongVersions == 0)
    }

    /// The same in a directory of format 2: the five versions are one batch file, checked
    /// against the SHA-256 its log record names.
    @Test func noWrongByteIsEverAddedFromADamagedBatchDirectory() async throws {
        let pristine = try await Pristine(format: .batches)
        #expect(pristine.files.count == 3, "one batch file, the marker and one log segment: \(pristine.files)")
        let tally = Locked(Tally())
        await propertyCheck(count: Self.cases(300), input: Self.flips) { flips in
            try await Self.check(flips.map { Flip($0.0, $0.1, UInt8($0.2)) }, pristine: pristine, tally: tally)
        }
        let result = tally.withLock { $0 }
        print("exchange damage (batches): \(result.trials) trials, \(result.damaged) damaged a file, \(result.detected) failed with a typed error, "
              + "\(result.undetectedHarmless) added only intact versions without error, \(result.wrongVersions) versions added with wrong data")
        #expect(result.wrongVersions == 0)
    }

    /// Regressions and the cases the random flips rarely reach: a flip in a checksum's
    /// hex digits, in the `checksum` key, in the closing bytes, and in the marker's keys.
    @Test(arguments: [
        [Flip(0, 20, 0x01)], [Flip(0, 3, 0x20)], [Flip(0, -1, 0x01)], [Flip(0, 1_000_000, 0x04), Flip(0, 2, 0x01)],
    ], DirectoryFormat.allCases)
    func chosenFlipsInEveryFileAreDetectedOrHarmless(_ flips: [Flip], format: DirectoryFormat) async throws {
        let pristine = try await Pristine(format: format)
        let tally = Locked(Tally())
        for file in pristine.files.indices {
            try await Self.check(flips.map { Flip(file, $0.offset, $0.mask) }, pristine: pristine, tally: tally)
        }
        #expect(tally.withLock { $0.wrongVersions } == 0)
    }

    /// The harness is sensitive: the same random flips in a directory written before
    /// checksums (which stays readable, unchecked) do add versions with wrong data — what
    /// the checksums prevent. The figure is printed; at least one wrong version is required.
    @Test func withoutChecksumsTheSameFlipsAddWrongData() async throws {
        let legacy = try await Pristine(format: .versionFiles).strippingChecksums()
        let tally = Locked(Tally())
        // A few percent of trials add wrong data, depending on the directory's random
        // content, so 200 can see none: go on, up to ten times as many, until one does.
        var generator = SplitMix64(seed: 20_261_125)
        var trials = 0
        while trials < Self.cases(200) || (tally.withLock { $0.wrongVersions } == 0 && trials < 10 * Self.cases(200)) {
            trials += 1
            let flips = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                Flip(Int.random(in: 0...10_000, using: &generator), Int.random(in: 0...1_000_000, using: &generator),
                     UInt8.random(in: 1...255, using: &generator))
            }
            try await Self.check(flips, pristine: legacy, tally: tally, expectingIntegrity: false)
        }
        let result = tally.withLock { $0 }
        print("exchange damage without checksums: \(result.trials) trials, \(result.detected) failed with a typed error, "
              + "\(result.wrongVersions) versions added with wrong data")
        if Self.cases(200) >= 200 { #expect(result.wrongVersions > 0, "the harness must see wrong data where nothing checks it") }
    }

    /// Copies the pristine directory, applies `flips`, retrieves into a fresh store, and
    /// checks that every version added is exactly the source's, and that a retrieve
    /// without error missed nothing unless the damage was in the log or the marker
    /// (only counting, when not `expectingIntegrity`).
    static func check(_ flips: [Flip], pristine: Pristine, tally: Locked<Tally>, expectingIntegrity: Bool = true) async throws {
        let copy = try TemporaryDirectory(prefix: "llvs-exchange-damaged")
        let root = copy.url.appendingPathComponent("exchange", isDirectory: true)
        try FileManager.default.copyItem(at: pristine.directory.url, to: root)
        var originals: [String: Data] = [:]
        for flip in flips {
            let path = pristine.files[flip.file % pristine.files.count]
            let url = root.appendingPathComponent(path)
            var bytes = try Data(contentsOf: url)
            guard !bytes.isEmpty else { continue }
            if originals[path] == nil { originals[path] = bytes }
            let offset = ((flip.offset % bytes.count) + bytes.count) % bytes.count
            bytes[offset] ^= flip.mask
            try bytes.write(to: url)
        }
        let damaged = try originals.filter { try Data(contentsOf: root.appendingPathComponent($0.key)) != $0.value }.keys
        let onlyDataFiles = damaged.allSatisfy { $0.hasPrefix("versions/") || $0.hasPrefix("changes/") || $0.hasPrefix("batches/") }

        let target = try Replica("damage-target", backend: .memory)
        var failure: (any Error)?
        do {
            try await FileSystemExchange(rootDirectoryURL: root, store: target.store).retrieve()
        } catch {
            failure = error
        }
        var wrong: [String] = []
        for id in target.versionIds {
            guard let added = target.store.version(identifiedBy: id), let sent = pristine.source.store.version(identifiedBy: id) else {
                wrong.append("\(id): not a version that was sent")
                continue
            }
            if try CanonicalJSON.encode(added) != CanonicalJSON.encode(sent) { wrong.append("\(id): its record differs") }
            if try values(of: target.store, at: id) != values(of: pristine.source.store, at: id) { wrong.append("\(id): its values differ") }
        }
        tally.withLock { tally in
            tally.trials += 1
            if !damaged.isEmpty { tally.damaged += 1 }
            if failure != nil { tally.detected += 1 } else if !damaged.isEmpty { tally.undetectedHarmless += 1 }
            tally.wrongVersions += wrong.count
        }
        guard expectingIntegrity else { return }
        #expect(wrong.isEmpty, "flips \(flips) in \(damaged.sorted()): \(wrong)")
        if let failure {
            #expect(failure is ExchangeError, "an untyped error: \(failure)")
            #expect(!damaged.isEmpty, "an error without damage: \(failure)")
        } else if !damaged.isEmpty && onlyDataFiles {
            Issue.record("damage in \(damaged.sorted()) was not detected (flips \(flips))")
        } else if damaged.isEmpty {
            #expect(target.versionIds == pristine.source.versionIds)
        }
    }

    static func values(of store: Store, at version: Version.ID) throws -> [Value.ID: Data] {
        var result: [Value.ID: Data] = [:]
        for reference in try store.valueReferences(at: version) {
            result[reference.valueId] = try store.value(storedAt: reference)?.data
        }
        return result
    }
}
