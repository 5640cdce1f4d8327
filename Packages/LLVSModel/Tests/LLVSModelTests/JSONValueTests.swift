import Foundation
import LLVSCore
import PropertyBased
import Testing
@testable import LLVSModel

/// The JSON layer merges rely on: a strict parser and the canonical writer of SPEC.md
/// section 2, which must agree with the project's `CanonicalJSON` encoder byte for byte.
@Suite struct JSONValueTests {
    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Data(text.utf8))
    }

    @Test func writesTheCanonicalForm() throws {
        let value = try parse(#" { "b" : [1, 2.50, -0.0, 1e3, true, null], "a" : "x\u0001\n\"/é", "é": {}, "Z": 12345678901234567890 } "#)
        #expect(value.description == #"{"Z":12345678901234567890,"a":"x\u0001\n\"/é","b":[1,2.5,-0,1000,true,null],"é":{}}"#)
        #expect(try parse(value.description) == value)
    }

    @Test func integersStayExactAtEveryLength() throws {
        #expect(try parse("999999999999999999") == .number(.integer(999_999_999_999_999_999)))
        #expect(try parse("-999999999999999999") == .number(.integer(-999_999_999_999_999_999)))
        #expect(try parse("9223372036854775807") == .number(.integer(.max)))
        #expect(try parse("-9223372036854775808") == .number(.integer(.min)))
        #expect(try parse("9223372036854775808") == .number(.largeInteger("9223372036854775808")))
        #expect(try parse("-0").description == "-0" && parse("0").description == "0")
        #expect(try parse(#"["a\"b","\u00e9","é"]"#).description == #"["a\"b","é","é"]"#)
    }

    @Test func numbersCompareByTheirCanonicalText() throws {
        #expect(try parse("1") == parse("1.0"))
        #expect(try parse("100") == parse("1e2"))
        #expect(try parse("0.1") != parse("0.10000000000000002"))
        #expect(try parse("[1,2]") != parse("[2,1]"))
        #expect(try parse(#"{"a":1,"b":2}"#) == parse(#"{"b":2,"a":1}"#))
    }

    @Test func keysAreComparedAsBytes() throws {
        // "é" composed and decomposed are two keys (SPEC.md section 1), never merged.
        let value = try parse("{\"\u{E9}\": 1, \"e\u{301}\": 2}")
        #expect(value.objectValue?.count == 2)
        #expect(value.objectValue?["\u{E9}"] == .number(.integer(1)))
    }

    @Test(arguments: [
        ("", "the document ends"), ("{", "the document ends"), ("[1,]", "unexpected"), ("{\"a\":1,\"a\":2}", "appears twice"),
        ("01", "may not start with 0"), ("1e400", "beyond a double"), ("\"\\ud800\"", "surrogate"), ("\"\\udc00\"", "lone low surrogate"),
        ("[1] x", "after the document"), ("\"a\u{01}\"", "control character"), ("tru", "literal"), ("{1:2}", "key must be a string"),
    ])
    func refusesWhatIsNotJSON(_ input: (String, String)) {
        #expect { try JSONValue(parsing: Data(input.0.utf8)) } throws: { error in
            (error as? JSONParseError)?.reason.contains(input.1) == true
        }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data([0x22, 0xC3, 0x28, 0x22])) }
    }

    @Test func nestingDeeperThanTheLimitIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect { try JSONValue(parsing: Data(deep.utf8)) } throws: { ($0 as? JSONParseError)?.reason.contains("nesting") == true }
        let allowed = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: Never.self) { try JSONValue(parsing: Data(allowed.utf8)) }
    }

    /// Doubles, strings and keys come out as `CanonicalJSON` (JSONEncoder with the project's
    /// settings) writes them, so a model encoded by `Codable` and one written by a merge agree.
    @Test func agreesWithTheCanonicalEncoder() async {
        let strings = Gen.character(in: "\u{0}"..."\u{2FF}").string(of: 0...6)
        let input = zip(Gen.double(in: -1e20...1e20), Gen.int(in: -20...20), strings, strings)
        await propertyCheck(count: 1_000, input: input) { mantissa, exponent, key, text in
            let number = mantissa * pow(10, Double(exponent))
            let encoded = try CanonicalJSON.encode([key: [Value(number: number, text: text)]])
            let value = try JSONValue(parsing: encoded)
            #expect(value.canonicalData == encoded, "\(String(decoding: encoded, as: UTF8.self))")
        }
    }

    /// `$version` (SPEC.md section 17): absent or null is 1, `2` and `2.0` are 2, and
    /// anything else is not a model version.
    @Test func modelVersionsAreNumbersEqualToIntegers() throws {
        func version(_ text: String) throws -> Int {
            try StoredModel.version(of: try #require(try JSONValue(parsing: Data(text.utf8)).objectValue), valueId: "M/x")
        }
        #expect(try version("{}") == 1 && version(#"{"$version":null}"#) == 1)
        #expect(try version(#"{"$version":2}"#) == 2 && version(#"{"$version":2.0}"#) == 2 && version(#"{"$version":2e0}"#) == 2)
        for invalid in [#"2.5"#, #"0"#, #"-1"#, #""2""#, #"9007199254740993"#, #"1e300"#, #"[2]"#] {
            #expect(throws: ModelError.self, "\(invalid)") { try version(#"{"$version":\#(invalid)}"#) }
        }
    }

    private struct Value: Codable {
        var number: Double
        var text: String
    }
}
