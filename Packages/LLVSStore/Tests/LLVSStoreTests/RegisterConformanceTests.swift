import Foundation
import LLVSCore
import LLVSStore
import LLVSTesting
import Testing

/// `conformance/formats/registers.json` (SPEC.md section 16): registers decode and encode
/// to the same canonical JSON, corrupt ones are refused, and joins and writes give the
/// registers listed.
@Suite struct RegisterConformanceTests {
    static func register(_ json: Any?) throws -> MultiValueRegister {
        let text = try #require(json as? String)
        return try MultiValueRegister(decoding: Data(text.utf8), valueId: "vector")
    }

    @Test func registers() throws {
        let file = try ConformanceVectors.file("formats/registers.json")
        let cases = { (key: String) throws -> [[String: Any]] in try #require(file[key] as? [[String: Any]]) }
        #expect(try cases("valid").count > 0 && cases("invalid").count > 0 && cases("joins").count > 0 && cases("writes").count > 0)
        for vector in try cases("valid") {
            let json = try #require(vector["json"] as? String)
            #expect(try Self.register(json).encoded() == Data(json.utf8), "\(vector["name"] ?? "")")
        }
        for vector in try cases("invalid") {
            #expect(throws: MultiValueRegisterError.self, "\(vector["name"] ?? "")") { try Self.register(vector["json"]) }
        }
        for vector in try cases("joins") {
            let joined = try Self.register(vector["x"]).merged(with: try Self.register(vector["y"]))
            let join = try #require(vector["join"] as? String)
            #expect(try joined.encoded() == Data(join.utf8), "\(vector["name"] ?? "")")
        }
        for vector in try cases("writes") {
            var register = try Self.register(vector["before"])
            let payload = try #require(vector["payload"] as? [String: String])
            let written: MultiValueRegister.Payload
            switch payload["kind"] {
            case "text": written = .text(try #require(payload["text"]))
            case "json": written = .json(try #require(payload["text"]))
            case "blob": written = .blob(try ConformanceVectors.bytes(try #require(payload["blob"])))
            default: written = .tombstone
            }
            let actor = try #require(vector["actor"] as? String)
            let authorText = try #require(vector["author"] as? String)
            let author = try #require(UUID(uuidString: authorText))
            let timestamp = try #require(vector["timestamp"] as? Double)
            register.assign(written, actor: actor, authorId: author, timestamp: timestamp)
            let after = try #require(vector["after"] as? String)
            #expect(try register.encoded() == Data(after.utf8), "\(vector["name"] ?? "")")
        }
    }
}
