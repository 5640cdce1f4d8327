import Foundation
import LLVSCore
import PropertyBased
import Testing
@testable import LLVSModel

/// `JSONValueEncoder` writes what `CanonicalJSON`'s `JSONEncoder` writes (apart from sets,
/// which it sorts), so models it saves decode as before and merge the same.
@Suite struct JSONValueEncoderTests {
    struct Nested: Codable, Equatable {
        var flag: Bool
        var small: Int8
        var unsigned: UInt64
        var float: Float
        var optional: String?
    }

    enum Kind: Codable, Equatable {
        case plain
        case carrying(Int, label: String)
    }

    struct Everything: Codable, Equatable {
        var text: String
        var number: Int
        var double: Double
        var date: Date
        var data: Data
        var url: URL
        var decimal: Decimal
        var list: [Nested]
        var dictionary: [String: [Int]]
        var integerKeys: [Int: String]
        var uuidKeys: [UUID: Int]
        var kind: Kind
        var other: Kind
        var missing: Int?
        var null: Int?

        enum CodingKeys: String, CodingKey {
            case text, number, double, date, data, url, decimal, list, dictionary, integerKeys, uuidKeys, kind, other, missing, null
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encode(number, forKey: .number)
            try container.encode(double, forKey: .double)
            try container.encode(date, forKey: .date)
            try container.encode(data, forKey: .data)
            try container.encode(url, forKey: .url)
            try container.encode(decimal, forKey: .decimal)
            try container.encode(list, forKey: .list)
            try container.encode(dictionary, forKey: .dictionary)
            try container.encode(integerKeys, forKey: .integerKeys)
            try container.encode(uuidKeys, forKey: .uuidKeys)
            try container.encode(kind, forKey: .kind)
            try container.encode(other, forKey: .other)
            try container.encodeIfPresent(missing, forKey: .missing)
            try container.encodeNil(forKey: .null)
        }
    }

    @Test func writesWhatTheCanonicalEncoderWrites() async {
        let strings = Gen.character(in: "\u{0}"..."\u{2FF}").string(of: 0...8)
        let input = zip(strings, Gen.int(in: -1_000_000...1_000_000), Gen.double(in: -1e12...1e12), Gen.int64(in: .min ... .max),
                        Gen.uint64(in: .min ... .max), Gen.int8(in: .min ... .max), Gen.bool)
        await propertyCheck(count: 500, input: input) { text, number, double, big, unsigned, small, flag in
            let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()
            let value = Everything(
                text: text, number: number, double: double, date: Date(timeIntervalSinceReferenceDate: double),
                data: Data(text.utf8), url: URL(string: "https://example.com/\(number)?q=1") ?? URL(fileURLWithPath: "/"),
                decimal: Decimal(number) / 100,
                list: [Nested(flag: flag, small: small, unsigned: unsigned, float: Float(double), optional: flag ? text : nil)],
                // Not literals: a drawn text of "k" or number 0 would repeat a key, which traps.
                dictionary: Dictionary([(text, [number, Int(small)]), ("k", [])], uniquingKeysWith: { first, _ in first }),
                integerKeys: Dictionary([(number, text), (0, "zero")], uniquingKeysWith: { first, _ in first }), uuidKeys: [uuid: number],
                kind: .carrying(number, label: text), other: .plain, missing: nil, null: nil)
            let expected = try JSONValue(parsing: try CanonicalJSON.encode(value))
            let encoded = try JSONValueEncoder.encode(value)
            #expect(encoded == expected, "\(encoded) != \(expected)")
            #expect(try CanonicalJSON.decode(Everything.self, from: encoded.canonicalData) == value)
            #expect(try JSONValueEncoder.encode(big) == JSONValue(parsing: try CanonicalJSON.encode(big)))
        }
    }

    @Test func setsAreWrittenInCanonicalOrder() throws {
        let set: Set<String> = ["b", "a", "é", "10", "2"]
        #expect(try JSONValueEncoder.encode(set).description == #"["10","2","a","b","é"]"#)
        #expect(try JSONValueEncoder.encode(["s": Set([3, 1, 2])]).description == #"{"s":[1,2,3]}"#)
    }

    @Test func whatJSONCannotHoldIsRefused() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(Float.infinity) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder.encode(Empty()) }
    }

    struct Empty: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }
}
