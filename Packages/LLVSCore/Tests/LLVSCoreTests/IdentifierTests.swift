import Foundation
import Testing
import LLVSCore

@Suite struct IdentifierTests {
    @Test func canonicallyEquivalentStringsAreDifferentIdentifiers() {
        let precomposed = Value.ID("caf\u{E9}")
        let decomposed = Value.ID("cafe\u{301}")
        // Swift's String considers these equal; identifiers compare bytes.
        #expect(precomposed.rawValue == decomposed.rawValue)
        #expect(precomposed != decomposed)
        #expect(Set([precomposed, decomposed]).count == 2)
        #expect(decomposed < precomposed) // "e" (0x65) sorts before 0xC3
    }

    @Test func identifiersOrderByUTF8Bytes() {
        // Swift's String orders "Z" < "a" too, but not "é" vs "z" consistently with bytes
        // across normalization forms; identifiers always use the bytes.
        let ids: [Version.ID] = ["b", "a", "Z", "\u{E9}", "aa", ""]
        #expect(ids.sorted().map(\.rawValue) == ["", "Z", "a", "aa", "b", "\u{E9}"])
    }

    @Test func identifiersEncodeAsPlainStrings() throws {
        let data = try CanonicalJSON.encode([Value.ID("x/y"), Value.ID("")])
        #expect(String(decoding: data, as: UTF8.self) == #"["x/y",""]"#)
        #expect(try CanonicalJSON.decode([Value.ID].self, from: data) == ["x/y", ""])
    }

    @Test func identifierThatIsNotAStringIsRejected() {
        #expect(throws: DecodingError.self) {
            _ = try CanonicalJSON.decode([Version.ID].self, from: Data("[1]".utf8))
        }
    }

    @Test func freshIdentifiersAreUniqueUUIDs() {
        let ids = (0..<100).map { _ in Version.ID() }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { UUID(uuidString: $0.rawValue) != nil })
        #expect(UUID(uuidString: Value.ID().rawValue) != nil)
    }

    @Test func literalsAndInitializersAgree() {
        let fromLiteral: Value.ID = "MESSAGE"
        #expect(fromLiteral == Value.ID("MESSAGE"))
        #expect(fromLiteral == Value.Identifier(rawValue: "MESSAGE"))
        #expect(fromLiteral.description == "MESSAGE")
    }

    @Test func randomizedBranchNamesKeepTheirBase() {
        let branch = Branch(randomizedNameBasedOn: "import")
        #expect(branch.rawValue.hasPrefix("import_"))
        #expect(UUID(uuidString: String(branch.rawValue.dropFirst("import_".count))) != nil)
        #expect(UUID(uuidString: Branch(randomizedNameBasedOn: "").rawValue) != nil)
        #expect(Branch(randomizedNameBasedOn: "x") != Branch(randomizedNameBasedOn: "x"))
    }
}
