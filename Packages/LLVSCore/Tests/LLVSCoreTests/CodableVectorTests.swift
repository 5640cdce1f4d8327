import Foundation
import Testing
@testable import LLVSCore

/// Runs the language-neutral vectors in `Vectors/core-codable.json` (SPEC.md) — the same
/// file a port in another language runs against its own decoder and encoder.
@Suite struct CodableVectorTests {
    struct VectorFile: Decodable {
        struct Case: Decodable {
            var name: String
            var type: String
            var json: String
        }
        var format: String
        var formatVersion: Int
        var valid: [Case]
        var invalid: [Case]
    }

    static func loadVectors() throws -> VectorFile {
        let url = try #require(Bundle.module.url(forResource: "core-codable", withExtension: "json", subdirectory: "Vectors"))
        return try JSONDecoder().decode(VectorFile.self, from: Data(contentsOf: url))
    }

    /// Decodes `json` as the named type and re-encodes it canonically.
    static func roundTrip(type: String, json: String) throws -> String {
        let data = Data(json.utf8)
        func trip<T: Codable>(_: T.Type) throws -> String {
            let decoded = try CanonicalJSON.decode(T.self, from: data)
            return String(decoding: try CanonicalJSON.encode(decoded), as: UTF8.self)
        }
        switch type {
        case "Value": return try trip(Value.self)
        case "Value.Reference": return try trip(Value.Reference.self)
        case "Value.Change": return try trip(Value.Change.self)
        case "Value.Fork": return try trip(Value.Fork.self)
        case "Version": return try trip(Version.self)
        default: throw VectorError.unknownType(type)
        }
    }

    enum VectorError: Error { case unknownType(String) }

    @Test func vectorFileIsTheSupportedFormat() throws {
        let file = try Self.loadVectors()
        #expect(file.format == "llvs-core-codable")
        #expect(file.formatVersion == 1)
        #expect(file.valid.count >= 10)
        #expect(file.invalid.count >= 10)
    }

    @Test func validVectorsRoundTripToTheSameBytes() throws {
        for vector in try Self.loadVectors().valid {
            let reencoded = try Self.roundTrip(type: vector.type, json: vector.json)
            #expect(reencoded == vector.json, "vector '\(vector.name)'")
        }
    }

    @Test func invalidVectorsAreRejected() throws {
        for vector in try Self.loadVectors().invalid {
            #expect(throws: DecodingError.self, "vector '\(vector.name)'") {
                _ = try Self.roundTrip(type: vector.type, json: vector.json)
            }
        }
    }

    @Test func mergeVersionVectorDecodesToTheDocumentedFields() throws {
        let json = #"{"identifier":"V4","metadata":{"__llvs_branch":"ImRyYWZ0Ig==","app":"AA=="},"predecessors":{"idOfFirst":"V2","idOfSecond":"V3"},"timestamp":785000001.5,"valueDataSize":0}"#
        let version = try CanonicalJSON.decode(Version.self, from: Data(json.utf8))
        #expect(version.id == "V4")
        #expect(version.predecessors?.idOfFirst == "V2")
        #expect(version.predecessors?.idOfSecond == "V3")
        #expect(version.timestamp == 785_000_001.5)
        #expect(version.valueDataSize == 0)
        #expect(version.branch == Branch("draft"))
        #expect(version.metadata["app"]?.data == Data([0]))
        #expect(version.successors.ids.isEmpty)
    }
}
