import Foundation
import LLVSCore
import LLVSSupport
import LLVSTesting
@testable import LLVSStore
import PropertyBased
import Testing

/// Random damage to the files of a store, on every backend that keeps files: a flipped byte
/// anywhere, or inside the stored bytes of a value. Whatever the damage, no read returns a
/// wrong byte (a value reads as it was written, or the read throws), and whenever a read
/// throws, a version is missing, or the damage hit a value's bytes, `verify` reports it.
///
/// `LLVS_DAMAGE_TRIALS` sets the number of trials per backend (40 by default); the test
/// prints what it saw, for the release figures (`Scripts/trials`).
@Suite struct StoreDamagePropertyTests {
    /// A store written once, kept as bytes, and what every version holds.
    struct Template {
        let backend: Backend
        /// Each file of the store by its path inside the store directory.
        let files: [(path: String, bytes: Data)]
        /// The values at each version.
        let expected: [Version.ID: [Value.ID: Data]]
        /// Where each value's bytes lie, for values whose bytes occur once in the files.
        let valueSpans: [(file: Int, range: Range<Int>)]
    }

    /// What the trials of one backend saw.
    struct Tally: CustomStringConvertible {
        var trials = 0
        var refusedToOpen = 0
        var readsThatThrew = 0
        var reportedByVerify = 0
        var wrongBytes = 0
        var description: String {
            "\(trials) trials: \(refusedToOpen) refused at open, \(reportedByVerify) reported by verify, "
                + "\(readsThatThrew) reads refused, \(wrongBytes) wrong bytes returned"
        }
    }

    static let trials = ProcessInfo.processInfo.environment["LLVS_DAMAGE_TRIALS"].flatMap(Int.init) ?? 40

    static func makeTemplate(_ backend: Backend) throws -> Template {
        let test = try TestStore(backend)
        let store = test.store
        func values(_ version: String, _ keys: Range<Int>) -> [Value] {
            keys.map { Value(idString: "key \($0)", data: Data("[\(version) of key \($0): \(String(repeating: "\($0 % 10)", count: 24))]".utf8)) }
        }
        let v1 = try store.makeVersion(basedOnPredecessor: nil, inserting: values("v1", 0..<12))
        let v2 = try store.makeVersion(basedOnPredecessor: v1.id, inserting: values("v2", 12..<14), updating: values("v2", 0..<4))
        let v3 = try store.makeVersion(basedOnPredecessor: v2.id, updating: values("v3", 4..<6), removing: ["key 7"])
        let side = try store.makeVersion(basedOnPredecessor: v1.id, inserting: values("side", 14..<17), updating: values("side", 8..<10))
        _ = try store.merge(version: v3.id, with: side.id, resolvingWith: MostRecentBranchFavoringArbiter())
        var expected: [Version.ID: [Value.ID: Data]] = [:]
        for version in store.queryHistory({ Array($0) }) {
            var contents: [Value.ID: Data] = [:]
            for reference in try store.valueReferences(at: version.id) {
                contents[reference.valueId] = try #require(try store.value(id: reference.valueId, at: version.id)).data
            }
            expected[version.id] = contents
        }
        try store.close()

        let root = test.directory.url.resolvingSymlinksInPath()
        var files: [(path: String, bytes: Data)] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            let path = String(url.resolvingSymlinksInPath().path.dropFirst(root.path.count + 1))
            files.append((path, try Data(contentsOf: url)))
        }
        files.sort { $0.path < $1.path }
        var spans: [(file: Int, range: Range<Int>)] = []
        for data in Set(expected.values.flatMap(\.values)) {
            let hits = files.indices.flatMap { index in Self.occurrences(of: data, in: files[index].bytes).map { (index, $0) } }
            if hits.count == 1 { spans.append((file: hits[0].0, range: hits[0].1)) }
        }
        try #require(!spans.isEmpty, "the values' bytes are found in the \(backend) store's files")
        return Template(backend: backend, files: files, expected: expected, valueSpans: spans)
    }

    static func occurrences(of pattern: Data, in bytes: Data) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var start = bytes.startIndex
        while let range = bytes.range(of: pattern, in: start..<bytes.endIndex) {
            found.append(range)
            start = range.upperBound
        }
        return found
    }

    /// Writes the template with one byte changed, opens it, reads everything and verifies.
    static func trial(_ template: Template, inValue: Bool, choice: Int, position: Int, mask: UInt8, tally: inout Tally) throws {
        var files = template.files
        let (file, offset): (Int, Int)
        if inValue {
            let span = template.valueSpans[choice % template.valueSpans.count]
            (file, offset) = (span.file, span.range.lowerBound + position % span.range.count)
        } else {
            let nonEmpty = files.indices.filter { !files[$0].bytes.isEmpty }
            file = nonEmpty[choice % nonEmpty.count]
            offset = position % files[file].bytes.count
        }
        files[file].bytes[files[file].bytes.startIndex + offset] ^= mask
        let directory = try TemporaryDirectory()
        for (path, bytes) in files {
            let url = directory.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
        }
        tally.trials += 1
        let where_ = "\(template.backend): byte \(offset) of \(files[file].path) ^ \(mask)"

        let store: Store
        do {
            store = try Store(rootDirectoryURL: directory.url, storage: template.backend.makeStorage())
        } catch {
            #expect(error is StoreError, "\(where_): opening throws an untyped error \(error)")
            tally.refusedToOpen += 1
            return
        }
        defer { try? store.close() }
        var noticed = false
        let present = Set(store.queryHistory { $0.map(\.id) })
        if present != Set(template.expected.keys) {
            #expect(present.isSubset(of: Set(template.expected.keys)), "\(where_): versions appeared")
            noticed = true
        }
        for (version, contents) in template.expected where present.contains(version) {
            for (valueId, data) in contents {
                do {
                    let read = try store.value(id: valueId, at: version)
                    if read?.data != data {
                        tally.wrongBytes += 1
                        Issue.record("\(where_): \(valueId)@\(version) read \(String(describing: read?.data)) instead of its \(data.count) bytes")
                    }
                } catch {
                    tally.readsThatThrew += 1
                    noticed = true
                }
            }
        }
        let report = store.verify()
        if !report.isIntact { tally.reportedByVerify += 1 }
        #expect(report.isIntact == false || (!noticed && !inValue), "\(where_): damage that reads noticed, or in a value's bytes, is not reported by verify")
    }

    @Test(arguments: [Backend.file, .sqlite])
    func noWrongByteAndEveryDamageReported(_ backend: Backend) async throws {
        let template = try Self.makeTemplate(backend)
        let tally = Locked(Tally())
        let input = zip(Gen.bool, Gen.int(in: 0...10_000), Gen.int(in: 0...1_000_000), Gen.int(in: 1...255))
        await propertyCheck(count: Self.trials, input: input) { inValue, choice, position, mask in
            try tally.withLock { try Self.trial(template, inValue: inValue, choice: choice, position: position, mask: UInt8(mask), tally: &$0) }
        }
        let result = tally.withLock { $0 }
        print("StoreDamagePropertyTests \(backend): \(result)")
        #expect(result.wrongBytes == 0)
    }
}
