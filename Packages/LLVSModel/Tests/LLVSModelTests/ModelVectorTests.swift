import Foundation
import LLVSCore
import LLVSTesting
import Testing
@testable import LLVSModel

/// `conformance/models/`: the vectors of SPEC.md section 17. This suite makes them from the
/// cases below with the model layer's own engine and fails when the committed files differ
/// (`LLVS_WRITE_MODEL_VECTORS=1` writes them); it also reads the files back as a port does,
/// checking every case in both argument orders. The Python port (`ports/python`) must
/// reproduce every result.
@Suite struct ModelVectorTests {
    static let directory = ConformanceVectors.directory.appendingPathComponent("models")

    @Test func theMergeVectorsAreWhatTheEngineMakes() throws {
        try Self.compareOrWrite(try MergeVectorMaker().document(), to: Self.directory.appendingPathComponent("merges.json"))
    }

    @Test func theStoredFormVectorsAreWhatTheEngineMakes() throws {
        try Self.compareOrWrite(try StoredVectorMaker().document(), to: Self.directory.appendingPathComponent("stored.json"))
    }

    @Test func theRecordedSchemaVectorsAreWhatTheEngineMakes() throws {
        try Self.compareOrWrite(try SchemaVectorMaker().document(), to: Self.directory.appendingPathComponent("schemas.json"))
    }

    /// Read as a port reads them: every property and model case gives its result whichever
    /// side is passed first.
    @Test func everyMergeVectorHoldsInEitherOrder() throws {
        let document = try JSONValue(parsing: Data(contentsOf: Self.directory.appendingPathComponent("merges.json")))
        let properties = try #require(document.objectValue?["properties"]?.arrayValue)
        let models = try #require(document.objectValue?["models"]?.arrayValue)
        #expect(properties.count > 300 && models.count > 10)
        for vector in properties {
            let fields = try #require(vector.objectValue)
            let strategy = try VectorSchema.strategy(try #require(fields["strategy"]))
            let first = try VectorSide(try #require(fields["first"])), second = try VectorSide(try #require(fields["second"]))
            for (a, b) in [(first, second), (second, first)] {
                let outcome: JSONValue?
                do {
                    outcome = try mergeProperty(strategy, base: fields["base"], a.side, b.side)
                } catch ModelError.counterOutOfRange {
                    #expect(fields["error"] == .string("counterOutOfRange"), "\(fields["name"]?.description ?? "?")")
                    continue
                }
                #expect(fields["error"] == nil && outcome == fields["result"], "\(fields["name"]?.description ?? "?")")
            }
        }
        for vector in models {
            let fields = try #require(vector.objectValue)
            let schema = try VectorSchema.schema(try #require(fields["schema"]))
            let first = try VectorSide(try #require(fields["first"])), second = try VectorSide(try #require(fields["second"]))
            let version = Int(try #require(fields["modelVersion"]?.numberValue?.doubleValue))
            for swapped in [false, true] {
                let (a, b) = swapped ? (second, first) : (first, second)
                var run = PropertyMergeRun(newerIsFirst: a.isNewer(than: b))
                do {
                    let merged = try ModelMergeEngine.merge(base: fields["base"]?.objectValue, first: try #require(a.side.value?.objectValue),
                                                            second: try #require(b.side.value?.objectValue), newerIsFirst: a.isNewer(than: b),
                                                            schema: schema, modelVersion: version, valueId: "M/x", run: &run)
                    let keeps = merged.keeps.map { ($0 == .first) != swapped ? "first" : "second" }
                    #expect(merged.model == fields["result"], "\(fields["name"]?.description ?? "?")")
                    #expect(keeps.map(JSONValue.string) == fields["keeps"], "\(fields["name"]?.description ?? "?")")
                } catch ModelError.newerModelVersion {
                    #expect(fields["error"] == .string("newerModelVersion"), "\(fields["name"]?.description ?? "?")")
                } catch ModelError.invalidModelVersion {
                    #expect(fields["error"] == .string("invalidModelVersion"), "\(fields["name"]?.description ?? "?")")
                }
            }
        }
    }

    // MARK: Writing

    static func compareOrWrite(_ document: VectorDocument, to url: URL) throws {
        if ProcessInfo.processInfo.environment["LLVS_WRITE_MODEL_VECTORS"] == "1" {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(document.text.utf8).write(to: url)
        }
        let committed = try JSONValue(parsing: Data(contentsOf: url))
        #expect(committed == document.value, "\(url.lastPathComponent) differs from what the engine makes; LLVS_WRITE_MODEL_VECTORS=1 writes it")
    }
}

/// A vector file: a header and arrays of cases, written one case per line.
struct VectorDocument {
    var header: [(String, JSONValue)]
    var arrays: [(String, [JSONValue])]

    var value: JSONValue {
        .object(JSONObject(header + arrays.map { ($0.0, JSONValue.array($0.1)) }))
    }

    var text: String {
        var lines = ["{"]
        for (key, value) in header { lines.append("\(JSONValue.string(key)): \(value),") }
        for (index, (key, cases)) in arrays.enumerated() {
            lines.append("\(JSONValue.string(key)): [")
            lines.append(cases.map { "  \($0)" }.joined(separator: ",\n"))
            lines.append(index == arrays.count - 1 ? "]" : "],")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A side of a vector case: its value (absent when the key is missing) and its version.
struct VectorSide {
    let side: Side
    let json: JSONValue

    init(_ json: JSONValue) throws {
        let object = try #require(json.objectValue)
        let version = try #require(object["version"]?.objectValue)
        side = Side(value: object["value"], time: try #require(version["timestamp"]?.numberValue?.doubleValue),
                    id: try #require(version["id"]?.stringValue))
        self.json = json
    }

    init(value: JSONValue?, id: String, time: Double) {
        side = Side(value: value, time: time, id: id)
        var members: [(String, JSONValue)] = [("version", .object(JSONObject([("id", .string(id)), ("timestamp", .number(.double(time)))])))]
        if let value { members.append(("value", value)) }
        json = .object(JSONObject(members))
    }

    func isNewer(than other: VectorSide) -> Bool {
        side.time != other.side.time ? side.time > other.side.time : compareUTF8(side.id, other.side.id) > 0
    }
}

/// The JSON form of strategies and schemas (SPEC.md section 17, "Schemas").
enum VectorSchema {
    struct Invalid: Error {}

    static func strategy(_ json: JSONValue) throws -> MergeStrategy {
        guard let object = json.objectValue, let name = object["strategy"]?.stringValue else { throw Invalid() }
        func removal() throws -> RemovalRule {
            guard let rule = object["removal"]?.stringValue.flatMap(RemovalRule.init(rawValue:)) else { throw Invalid() }
            return rule
        }
        switch name {
        case "threeWay": return .threeWay
        case "counter": return .counter
        case "set": return .set
        case "text": return .text
        case "max": return .max
        case "min": return .min
        case "multiValue": return .multiValue
        case "list":
            guard let idKey = object["idKey"]?.stringValue, let element = object["element"] else { throw Invalid() }
            return .list(idKey: idKey, element: try strategy(element), removal: try removal())
        case "dictionary":
            guard let value = object["value"] else { throw Invalid() }
            return .dictionary(value: try strategy(value), removal: try removal())
        case "model": return .schema(try schema(json))
        case "custom":
            guard object["name"] == .string("longer") else { throw Invalid() }
            return .custom(LongerCustomMerge.merge)
        default: throw Invalid()
        }
    }

    static func schema(_ json: JSONValue) throws -> MergeSchema {
        guard let properties = json.objectValue?["properties"]?.objectValue else { throw Invalid() }
        return MergeSchema(try properties.map { MergeSchema.Property(key: $0.key, strategy: try strategy($0.value)) })
    }
}

/// The vectors' custom rule `longer`: the string with more Unicode scalars, the newer on a tie.
enum LongerCustomMerge {
    static let merge = CustomMerge(name: "longer") { _, newer, older in
        guard case .string(let n) = newer, case .string(let o) = older else { return newer }
        return o.unicodeScalars.count > n.unicodeScalars.count ? older : newer
    }
}
