import Foundation
import LLVSCore
import LLVSExchange
import LLVSStore
import LLVSTesting
import LLVSZones
import Testing

/// The checksums of exchange files (SPEC.md section 11), directories written before them,
/// and the temporary files killed senders leave behind.
@Suite struct ExchangeChecksumTests {
    static let opening = #"{"checksum":""#

    /// The version and changes files of a directory.
    static func dataFiles(_ root: URL) -> [URL] {
        ["versions", "changes"].flatMap { folder in
            FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        }
    }

    /// A format 1 directory (the checksums here are those of its JSON files) with three
    /// versions of `source`.
    static func sent() async throws -> (Replica, TemporaryDirectory) {
        let source = try Replica("checksum-source")
        try source.save(["a": "one"])
        try source.save(["a": "two", "b": "three"])
        try source.save(["b": "four"])
        let shared = try makeSharedDirectory()
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store, newDirectoryFormat: .versionFiles).send()
        return (source, shared)
    }

    @Test func everyFileCarriesTheChecksumOfItsCanonicalContent() async throws {
        let (source, shared) = try await Self.sent()
        let marker = try String(decoding: Data(contentsOf: shared.url.appendingPathComponent("llvs-exchange.json")), as: UTF8.self)
        #expect(marker.hasPrefix(#"{"checksums":true,"format":"llvs-file-exchange","formatVersion":1,"identifier":""#), "\(marker)")
        let files = Self.dataFiles(shared.url)
        #expect(files.count == 6)
        for url in files {
            let bytes = try Data(contentsOf: url)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasPrefix(Self.opening), "\(url.path)")
            // The digest covers the file without its checksum member, which is the canonical
            // JSON of the object (the file as directories before checksums hold it).
            let content = Data("{".utf8) + bytes.dropFirst(79)
            let digest = String(text.dropFirst(Self.opening.count).prefix(64))
            #expect(digest == FileNaming.sha256Hex(content), "\(url.path)")
            #expect(Array(bytes[77...78]) == Array(#"","#.utf8))
        }
        let target = try Replica("checksum-target")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        #expect(target.versionIds == source.versionIds)
    }

    /// A directory written before checksums (marker without `checksums`, files without a
    /// checksum member) stays readable, a new sender adds checksummed files to it without
    /// calling its old files conflicts, and a file there that does carry a checksum is
    /// still checked.
    @Test func aDirectoryFromBeforeChecksumsStaysReadableAndWritable() async throws {
        let (source, shared) = try await Self.sent()
        let markerURL = shared.url.appendingPathComponent("llvs-exchange.json")
        let marker = try String(decoding: Data(contentsOf: markerURL), as: UTF8.self)
        try Data(marker.replacingOccurrences(of: #"{"checksums":true,"#, with: "{").utf8).write(to: markerURL)
        let files = Self.dataFiles(shared.url)
        for url in files {
            let bytes = try Data(contentsOf: url)
            try (Data("{".utf8) + bytes.dropFirst(79)).write(to: url)
        }
        let target = try Replica("legacy-target")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        #expect(target.versionIds == source.versionIds)
        #expect(try target.texts() == source.texts())

        // Sending the same versions again (a sender that lost its state) is a no-op.
        let before = try files.map { try Data(contentsOf: $0) }
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        #expect(try files.map { try Data(contentsOf: $0) } == before)

        // A new version arrives checksummed; a flipped byte in it is caught even here.
        let newer = try source.save(["c": "five"])
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        let newFiles = Self.dataFiles(shared.url).filter { !files.contains($0) }
        #expect(newFiles.count == 2)
        for url in newFiles { #expect(try String(decoding: Data(contentsOf: url), as: UTF8.self).hasPrefix(Self.opening)) }
        let changesURL = try #require(newFiles.first { $0.path.contains("/changes/") })
        var bytes = try Data(contentsOf: changesURL)
        bytes[bytes.count - 5] ^= 0x01
        try bytes.write(to: changesURL)
        do {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
            Issue.record("a damaged checksummed file must fail the retrieve")
        } catch let ExchangeError.damagedFile(version, location, _) {
            #expect(version == newer.id)
            #expect(location == changesURL.path)
        }
        #expect(!target.versionIds.contains(newer.id))
    }

    /// In a directory made with checksums, a file without one is damage (a damaged opening,
    /// a replaced file), and a marker key damaged into an unknown one is refused rather
    /// than read as a directory from before checksums.
    @Test func missingChecksumsAndDamagedMarkerKeysAreRefused() async throws {
        let (source, shared) = try await Self.sent()
        let victim = try #require(Self.dataFiles(shared.url).first { $0.path.contains("/versions/") })
        let bytes = try Data(contentsOf: victim)
        try (Data("{".utf8) + bytes.dropFirst(79)).write(to: victim)
        let target = try Replica("checksum-target")
        do {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
            Issue.record("a file without its checksum must fail the retrieve")
        } catch let ExchangeError.damagedFile(_, location, reason) {
            #expect(location == victim.path)
            #expect(reason.contains("no checksum"))
        }
        #expect(target.versionIds.isEmpty, "version files are all checked before anything is added")
        try bytes.write(to: victim)

        let markerURL = shared.url.appendingPathComponent("llvs-exchange.json")
        let marker = try String(decoding: Data(contentsOf: markerURL), as: UTF8.self)
        try Data(marker.replacingOccurrences(of: #""checksums""#, with: #""chebksums""#).utf8).write(to: markerURL)
        await #expect(throws: ExchangeError.malformedData(location: markerURL.path, reason: #"unknown key "chebksums" in the exchange marker"#)) {
            try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        }
        try Data(marker.utf8).write(to: markerURL)
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        #expect(target.versionIds == source.versionIds)
    }

    /// Temporary files a killed sender left are removed by the next sender once they are an
    /// hour old; younger ones, which may be a live sender's, are kept.
    @Test func staleTemporaryFilesAreRemovedAndFreshOnesKept() async throws {
        let (source, shared) = try await Self.sent()
        let shard = try #require(Self.dataFiles(shared.url).first).deletingLastPathComponent()
        let folders = [shared.url, shared.url.appendingPathComponent("log"), shard,
                       shared.url.appendingPathComponent("snapshots/some-snapshot")]
        var stale: [URL] = []
        var fresh: [URL] = []
        for (index, folder) in folders.enumerated() {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let old = folder.appendingPathComponent(".tmp-99999-\(index)-dead")
            let young = folder.appendingPathComponent(".tmp-99999-\(index)-live")
            try Data("partial".utf8).write(to: old)
            try Data("partial".utf8).write(to: young)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_601)], ofItemAtPath: old.path)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_000)], ofItemAtPath: young.path)
            stale.append(old)
            fresh.append(young)
        }
        try source.save(["z": "new"])
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: source.store).send()
        for url in stale { #expect(!FileManager.default.fileExists(atPath: url.path), "\(url.path) removed") }
        for url in fresh { #expect(FileManager.default.fileExists(atPath: url.path), "\(url.path) kept") }
        // The directory is intact and complete.
        let target = try Replica("checksum-target")
        try await FileSystemExchange(rootDirectoryURL: shared.url, store: target.store).retrieve()
        #expect(target.versionIds == source.versionIds)
    }
}
