import Foundation
import Testing
import LLVSCore

@Suite struct VersionTests {
    @Test func initialVersionHasNoPredecessors() {
        let version = Version()
        #expect(version.predecessors == nil)
        #expect(version.predecessorIds.isEmpty)
        #expect(version.successors.ids.isEmpty)
        #expect(abs(version.timestamp - Date().timeIntervalSinceReferenceDate) < 60)
    }

    @Test func mergePredecessorsKeepTheirOrder() {
        let predecessors = Version.Predecessors(idOfFirst: "A", idOfSecond: "B")
        #expect(predecessors.ids == ["A", "B"])
        #expect(Version.Predecessors(idOfFirst: "A").ids == ["A"])
    }

    @Test func versionsAreIdentifiedByTheirIdentifier() {
        let a = Version(id: "V", timestamp: 1)
        var b = Version(id: "V", timestamp: 2)
        b.successors.ids = ["W"]
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a != Version(id: "W", timestamp: 1))
    }

    @Test func recordsAreComparedFieldByFieldBesideSuccessors() {
        let record = Version(id: "V", predecessors: .init(idOfFirst: "A"), timestamp: 1, valueDataSize: 4,
                             metadata: [.init(rawValue: "device"): .init(data: Data("a".utf8))])
        var withSuccessors = record
        withSuccessors.successors.ids = ["W"]
        #expect(record.hasSameRecord(as: withSuccessors))
        var others: [Version] = []
        for change in 0..<5 {
            var other = record
            switch change {
            case 0: other.predecessors = .init(idOfFirst: "B")
            case 1: other.timestamp = 2
            case 2: other.valueDataSize = nil
            case 3: other.metadata = [:]
            default: other = Version(id: "W", predecessors: record.predecessors, timestamp: 1, valueDataSize: 4, metadata: record.metadata)
            }
            others.append(other)
        }
        for other in others { #expect(!record.hasSameRecord(as: other), "\(other)") }
    }

    @Test func codableFormOmitsSuccessorsAndEmptyMetadata() throws {
        var version = Version(id: "V2", predecessors: .init(idOfFirst: "V1"), timestamp: 10, valueDataSize: 3)
        version.successors.ids = ["V3"]
        let json = String(decoding: try CanonicalJSON.encode(version), as: UTF8.self)
        #expect(json == #"{"identifier":"V2","predecessors":{"idOfFirst":"V1"},"timestamp":10,"valueDataSize":3}"#)
    }

    @Test func metadataStoresCodableValues() throws {
        struct Note: Codable, Equatable { var author: String; var count: Int }
        let note = Note(author: "a/b", count: 2)
        let version = Version(metadata: ["note": try .init(note), .branch: try .init(Branch("main"))])
        #expect(try version.metadata["note"]?.value(Note.self) == note)
        #expect(version.branch == "main")
        #expect(String(decoding: try #require(version.metadata["note"]).data, as: UTF8.self) == #"{"author":"a/b","count":2}"#)
    }

    @Test func metadataOfTheWrongTypeGivesANamedError() throws {
        let value = try Version.MetadataValue("text")
        #expect(throws: Version.MetadataValue.ConversionError.self) {
            _ = try value.value(Int.self)
        }
        do {
            _ = try value.value(Int.self)
        } catch {
            #expect("\(error)".contains("Int"))
        }
        let undecodableBranch = Version(metadata: [.branch: .init(data: Data("{".utf8))])
        #expect(undecodableBranch.branch == nil)
    }

    @Test func metadataEncodesAsAnObjectWithSortedKeys() throws {
        let version = Version(id: "V", timestamp: 0, metadata: ["b": .init(data: Data([1])), "a": .init(data: Data())])
        let json = String(decoding: try CanonicalJSON.encode(version), as: UTF8.self)
        #expect(json == #"{"identifier":"V","metadata":{"a":"","b":"AQ=="},"timestamp":0}"#)
        let decoded = try CanonicalJSON.decode(Version.self, from: Data(json.utf8))
        #expect(decoded.metadata == version.metadata)
    }
}
