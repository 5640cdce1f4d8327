import Foundation
import LLVSCore
import LLVSTesting
@testable import LLVSModel

/// Builds `conformance/models/merges.json`: hand-made cases naming each rule of SPEC.md
/// section 17, then random ones per strategy from fixed seeds.
struct MergeVectorMaker {
    private var properties: [JSONValue] = []
    private var models: [JSONValue] = []

    static func s(_ name: String) -> JSONValue { json(#"{"strategy":"\#(name)"}"#) }
    static func list(_ element: JSONValue = s("threeWay"), removal: String = "updateWins") -> JSONValue {
        .object(JSONObject([("strategy", .string("list")), ("idKey", .string("id")), ("element", element), ("removal", .string(removal))]))
    }
    static func dictionary(_ value: JSONValue = s("threeWay"), removal: String = "updateWins") -> JSONValue {
        .object(JSONObject([("strategy", .string("dictionary")), ("value", value), ("removal", .string(removal))]))
    }
    static func model(_ properties: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject([("strategy", .string("model")), ("properties", .object(JSONObject(properties)))]))
    }
    static let longer = json(#"{"strategy":"custom","name":"longer"}"#)

    /// A property case: `first` is the newer (time 2) unless `firstIsOlder`.
    mutating func property(_ name: String, _ strategy: JSONValue, base: String?, _ first: String?, _ second: String?, firstIsOlder: Bool = false) throws {
        try property(name, strategy, base: base.map(json), VectorSide(value: first.map(json), id: "V1", time: firstIsOlder ? 1 : 2),
                     VectorSide(value: second.map(json), id: "V2", time: firstIsOlder ? 2 : 1))
    }

    mutating func property(_ name: String, _ strategy: JSONValue, base: JSONValue?, _ first: VectorSide, _ second: VectorSide) throws {
        var members: [(String, JSONValue)] = [("name", .string(name)), ("strategy", strategy), ("first", first.json), ("second", second.json)]
        if let base { members.append(("base", base)) }
        do {
            if let result = try mergeProperty(try VectorSchema.strategy(strategy), base: base, first.side, second.side) {
                members.append(("result", result))
            }
        } catch ModelError.counterOutOfRange {
            members.append(("error", .string("counterOutOfRange")))
        }
        properties.append(.object(JSONObject(members)))
    }

    mutating func model(_ name: String, _ schema: JSONValue, version: Int = 1, base: String?, _ first: String, _ second: String,
                        firstTime: Double = 2, secondTime: Double = 1) throws {
        let a = VectorSide(value: json(first), id: "V1", time: firstTime), b = VectorSide(value: json(second), id: "V2", time: secondTime)
        var members: [(String, JSONValue)] = [("name", .string(name)), ("schema", schema), ("modelVersion", int(version)),
                                              ("first", a.json), ("second", b.json)]
        if let base { members.append(("base", json(base))) }
        var run = PropertyMergeRun(newerIsFirst: a.isNewer(than: b))
        do {
            let merged = try ModelMergeEngine.merge(base: base.map(json)?.objectValue, first: json(first).objectValue ?? JSONObject(),
                                                    second: json(second).objectValue ?? JSONObject(), newerIsFirst: a.isNewer(than: b),
                                                    schema: try VectorSchema.schema(schema), modelVersion: version, valueId: "M/x", run: &run)
            members.append(("result", merged.model))
            if let keeps = merged.keeps { members.append(("keeps", .string(keeps == .first ? "first" : "second"))) }
        } catch ModelError.newerModelVersion {
            members.append(("error", .string("newerModelVersion")))
        } catch ModelError.invalidModelVersion {
            members.append(("error", .string("invalidModelVersion")))
        }
        models.append(.object(JSONObject(members)))
    }

    func makeDocument() -> VectorDocument {
        VectorDocument(header: [("format", .string("llvs-conformance-models")), ("formatVersion", int(1)), ("section", .string("17")),
                                ("about", .string("Model merges (SPEC.md section 17). properties: M(base, newer, older, strategy) for one value; the newer side is the one whose version has the later timestamp, then the greater identifier; a missing base, value or result is absent; result holds in either order; error names the failure. models: two stored models merged against a base with a schema (keys it does not list merge threeWay) and the reader's modelVersion; keeps names the side whose stored object equals the result."))],
                       arrays: [("properties", properties), ("models", models)])
    }

    func document() throws -> VectorDocument {
        var maker = self
        try maker.handMade()
        try maker.random()
        return maker.makeDocument()
    }

    private mutating func handMade() throws {
        let s = Self.s
        // The rules before any strategy.
        try property("a side equal to the base gives the other", s("threeWay"), base: "1", "1", "2")
        try property("equal sides give their value", s("threeWay"), base: "1", "3", "3")
        try property("null is absent", s("threeWay"), base: "null", "null", "2", firstIsOlder: true)
        try property("a removal against a change keeps the change", s("threeWay"), base: "1", nil, "2")
        try property("both removed", s("set"), base: "[1]", nil, "null")
        try property("1 and 1.0 are equal", s("threeWay"), base: "1", "1.0", "1")
        try property("threeWay: the newer side", s("threeWay"), base: "1", "2", "3")
        try property("threeWay: the newer side, the second given first", s("threeWay"), base: "1", "2", "3", firstIsOlder: true)
        try property("threeWay: equal times, the greater identifier", s("threeWay"), base: json("1"),
                     VectorSide(value: json("2"), id: "A", time: 5), VectorSide(value: json("3"), id: "B", time: 5))
        try property("threeWay: identifiers in byte order (é after z)", s("threeWay"), base: json("1"),
                     VectorSide(value: json("2"), id: "z", time: 5), VectorSide(value: json("3"), id: "é", time: 5))
        // Counters.
        try property("counter: increments add", s("counter"), base: "10", "11", "15")
        try property("counter: the same increment on both sides counts twice", s("counter"), base: "5", "6", "6")
        try property("counter: no base counts from 0", s("counter"), base: nil, "3", "4")
        try property("counter: doubles", s("counter"), base: "1.5", "2.5", "4")
        try property("counter: decrements", s("counter"), base: "0", "-3", "2")
        try property("counter: past 2^63 fails", s("counter"), base: "0", "9223372036854775807", "1")
        try property("counter: operands near the limits in range", s("counter"), base: "9223372036854775807", "9223372036854775807", "9223372036854775806")
        try property("counter: an integer beyond 64 bits fails", s("counter"), base: "0", "1.5", "18446744073709551616")
        try property("counter: not numbers, threeWay", s("counter"), base: "0", #""a""#, "1")
        // Sets: the truth table of one element, x (another element changes on both sides).
        for combination in 0..<8 {
            let inBase = combination & 1 != 0, inFirst = combination & 2 != 0, inSecond = combination & 4 != 0
            func set(_ holds: Bool, _ marker: String) -> String { holds ? #"["x","\#(marker)"]"# : #"["\#(marker)"]"# }
            try property("set: x in base \(inBase), first \(inFirst), second \(inSecond)", s("set"), base: inBase ? #"["x"]"# : "[]",
                         set(inFirst, "m"), set(inSecond, "n"))
        }
        try property("set: sorted by canonical bytes", s("set"), base: "[]", #"["b",10,{"a":1}]"#, #"[2,"a",true,null]"#)
        try property("set: duplicates once", s("set"), base: "[]", "[1,1,2]", "[3,1]")
        try property("set: no base unites", s("set"), base: nil, "[1,2]", "[2,3]")
        try property("set: a base that is not an array, threeWay", s("set"), base: #""x""#, "[1]", "[2]")
        // Multi-values.
        try property("multiValue: concurrent writes both kept", s("multiValue"), base: #"["a"]"#, #"["b"]"#, #"["c"]"#)
        try property("multiValue: settled differently on both sides keeps both", s("multiValue"), base: #"["b","c"]"#, #"["b"]"#, #"["c"]"#)
        try property("multiValue: one side settles", s("multiValue"), base: #"["b","c"]"#, #"["b"]"#, #"["b","c"]"#)
        // Text.
        try property("text: edits in different places both kept", s("text"), base: #""The quick brown fox""#, #""The slow brown fox""#, #""The quick brown cat""#)
        try property("text: overlapping edits, the newer", s("text"), base: #""The quick brown fox""#, #""The quick red fox""#, #""The quick blue fox""#)
        try property("text: both insert at one place, older then newer", s("text"), base: #""ab""#, #""aXb""#, #""aYb""#)
        try property("text: both insert at one place, the second newer", s("text"), base: #""ab""#, #""aXb""#, #""aYb""#, firstIsOlder: true)
        try property("text: both append", s("text"), base: #""note""#, #""note, first""#, #""note, second""#)
        try property("text: the same edit once", s("text"), base: #""abc""#, #""abXc""#, #""abXc""#)
        try property("text: a deletion and an edit elsewhere", s("text"), base: #""one two three""#, #""one three""#, #""one two 3""#)
        try property("text: scalars, not characters (e + combining acute)", s("text"), base: #""e""#, "\"e\u{301}\"", #""ex""#)
        try property("text: non-BMP scalars", s("text"), base: "\"a\u{1F600}b\"", "\"a\u{1F600}\u{1F601}b\"", "\"Xa\u{1F600}b\"")
        try property("text: no base, threeWay", s("text"), base: nil, #""x""#, #""y""#)
        try property("text: lines", s("text"), base: #""a\nb\nc\n""#, #""A\nb\nc\n""#, #""a\nb\nC\n""#)
        // Max and min.
        try property("max: numbers", s("max"), base: "5", "3", "9")
        try property("max: integer and double", s("max"), base: "0", "2", "1.5")
        try property("max: strings by UTF-8 bytes", s("max"), base: #""m""#, #""z""#, #""é""#)
        try property("max: large integers exactly", s("max"), base: "0", "18446744073709551617", "18446744073709551616")
        try property("max: one side changed takes it, even lower", s("max"), base: "5", "3", "5")
        try property("min: numbers", s("min"), base: "5", "3", "9")
        try property("min: a number and a string, threeWay", s("min"), base: "5", #""a""#, "1")
        // Lists.
        let cards = Self.list(Self.model([("title", s("text")), ("points", s("counter"))]))
        func card(_ id: String, _ title: String = "t", _ points: Int = 0) -> String { #"{"id":"\#(id)","title":"\#(title)","points":\#(points)}"# }
        func cardList(_ items: String...) -> String { "[" + items.joined(separator: ",") + "]" }
        let base3 = cardList(card("a"), card("b"), card("c"))
        try property("list: edits of different elements both kept", cards, base: base3,
                     cardList(card("a", "tA"), card("b"), card("c")), cardList(card("a"), card("b"), card("c", "t", 2)))
        try property("list: both edit one element, merged by its properties", cards, base: base3,
                     cardList(card("a", "tX", 1), card("b"), card("c")), cardList(card("a", "Yt", 2), card("b"), card("c")))
        try property("list: inserts at one place, older then newer", cards, base: base3,
                     cardList(card("a"), card("x"), card("b"), card("c")), cardList(card("a"), card("y"), card("b"), card("c")))
        try property("list: a move and an insert", cards, base: base3,
                     cardList(card("c"), card("a"), card("b")), cardList(card("a"), card("b"), card("z"), card("c")))
        try property("list: moved on both sides, the newer's place", cards, base: base3,
                     cardList(card("b"), card("c"), card("a")), cardList(card("b"), card("a"), card("c")))
        try property("list: removed on one side, unchanged on the other", cards, base: base3,
                     cardList(card("a"), card("c")), cardList(card("a"), card("b"), card("c", "t", 1)))
        try property("list: removed and updated, updateWins keeps it", cards, base: base3,
                     cardList(card("a"), card("c")), cardList(card("a"), card("b", "t!"), card("c")))
        try property("list: removed and updated, removalWins removes it", Self.list(s("threeWay"), removal: "removalWins"), base: base3,
                     cardList(card("a"), card("c")), cardList(card("a"), card("b", "t!"), card("c")))
        try property("list: a run of inserts stays together", cards, base: cardList(card("a")),
                     cardList(card("a"), card("x1"), card("x2"), card("x3")), cardList(card("y1"), card("a"), card("y2")))
        try property("list: inserted after an element the other side removed", cards, base: base3,
                     cardList(card("a"), card("b"), card("n"), card("c")), cardList(card("a"), card("c"), card("m")))
        try property("list: no base, the newer's order then the older's elements", cards, base: nil,
                     cardList(card("a"), card("b")), cardList(card("b"), card("c")))
        try property("list: identifiers compare as bytes", Self.list(), base: "[]", "[{\"id\":\"\u{E9}\",\"v\":1}]",
                     "[{\"id\":\"e\u{301}\",\"v\":2}]")
        try property("list: integer identifiers", Self.list(), base: #"[{"id":1},{"id":2}]"#, #"[{"id":2},{"id":1}]"#, #"[{"id":1},{"id":2},{"id":3}]"#)
        try property("list: an identifier twice, threeWay", Self.list(), base: "[]", #"[{"id":1},{"id":1}]"#, #"[{"id":2}]"#)
        try property("list: an element without its identifier, threeWay", Self.list(), base: "[]", #"[{"id":1},{"x":1}]"#, #"[{"id":2}]"#)
        // Dictionaries.
        try property("dictionary: keys merged one by one", Self.dictionary(s("counter")), base: #"{"a":1,"b":1}"#, #"{"a":2,"b":1}"#, #"{"a":3,"b":1,"c":5}"#)
        try property("dictionary: removed and updated, updateWins", Self.dictionary(), base: #"{"a":1,"b":1}"#, #"{"b":1}"#, #"{"a":2,"b":1,"c":1}"#)
        try property("dictionary: removed and updated, removalWins", Self.dictionary(removal: "removalWins"), base: #"{"a":1,"b":1}"#, #"{"b":1}"#, #"{"a":2,"b":1,"c":1}"#)
        try property("dictionary: null entries are absent", Self.dictionary(), base: #"{"a":1}"#, #"{"a":null,"b":2}"#, #"{"a":1,"c":3}"#)
        try property("dictionary: keys by bytes", Self.dictionary(), base: "{}", "{\"\u{E9}\":1}", "{\"e\u{301}\":2}")
        // Nested models and custom rules.
        let nested = Self.model([("x", s("counter")), ("name", s("text"))])
        try property("model: properties merged one by one, unlisted ones threeWay", nested, base: #"{"x":1,"name":"ab","z":0}"#,
                     #"{"x":2,"name":"aXb","z":1}"#, #"{"x":3,"name":"abY","z":2}"#)
        try property("model: keys compare as bytes", nested, base: "{}", "{\"\u{E9}\":1,\"x\":1}", "{\"e\u{301}\":2,\"x\":1}")
        try property("model: no base merges two-way", nested, base: nil, #"{"x":2,"name":"a"}"#, #"{"x":3,"name":"b","w":1}"#)
        try property("custom longer: the longer", Self.longer, base: #""a""#, #""bb""#, #""ccc""#)
        try property("custom longer: equal length, the newer", Self.longer, base: #""a""#, #""bb""#, #""cc""#)

        // Model merges.
        let schema = json(#"{"properties":{"name":{"strategy":"threeWay"},"views":{"strategy":"counter"},"tags":{"strategy":"set"}}}"#)
        try model("both changed different properties", schema, base: #"{"name":"n","views":1,"tags":[]}"#,
                  #"{"name":"n1","views":1,"tags":[]}"#, #"{"name":"n","views":3,"tags":["t"]}"#)
        try model("the merge equals the newer side: keeps it", schema, base: #"{"name":"n","views":1}"#,
                  #"{"name":"n1","views":1}"#, #"{"name":"n2","views":1}"#)
        try model("the merge equals the older side: keeps it", schema, base: #"{"name":"n","views":1}"#,
                  #"{"name":"n","views":1}"#, #"{"views":1,"name":"n2"}"#)
        try model("equal counter changes on both sides count twice", schema, base: #"{"name":"n","views":1}"#,
                  #"{"views":2,"name":"m"}"#, #"{"name":"m","views":2.0}"#)
        try model("unknown members merge threeWay", schema, base: #"{"name":"n","color":"red"}"#,
                  #"{"name":"n1","color":"red","size":2}"#, #"{"name":"n","color":"blue"}"#)
        try model("$version: the greater side's", schema, version: 3, base: #"{"name":"n"}"#, #"{"name":"n1","$version":2}"#, #"{"name":"n","views":1}"#)
        try model("$version 1 is left out", schema, version: 2, base: #"{"name":"n"}"#, #"{"$version":1,"name":"a"}"#, #"{"name":"b","$version":1}"#)
        try model("$version null is 1", schema, version: 1, base: #"{"name":"n","$version":null}"#, #"{"name":"a","$version":null}"#, #"{"name":"n"}"#)
        try model("a $version that is not an integer fails", schema, version: 3, base: #"{"name":"n"}"#, #"{"name":"a","$version":2.5}"#, #"{"name":"n"}"#)
        try model("a newer model version fails", schema, version: 1, base: #"{"name":"n"}"#, #"{"name":"a","$version":2}"#, #"{"name":"b"}"#)
        try model("a newer base fails too", schema, version: 2, base: #"{"name":"n","$version":3}"#, #"{"name":"a"}"#, #"{"name":"b"}"#)
        try model("no base: inserted on both sides", schema, base: nil, #"{"name":"a","views":2,"tags":["x"]}"#, #"{"name":"b","views":3,"tags":["y"]}"#)
        try model("the second newer", schema, base: #"{"name":"n","views":1}"#, #"{"name":"a","views":2}"#, #"{"name":"b","views":2}"#,
                  firstTime: 1, secondTime: 2)
        try model("nested model and list", json(#"{"properties":{"inner":{"strategy":"model","properties":{"x":{"strategy":"counter"}}},"items":{"strategy":"list","idKey":"id","element":{"strategy":"threeWay"},"removal":"updateWins"}}}"#),
                  base: #"{"inner":{"x":1,"y":1},"items":[{"id":1},{"id":2}]}"#,
                  #"{"inner":{"x":2,"y":1},"items":[{"id":2},{"id":1}]}"#, #"{"inner":{"x":5,"y":2},"items":[{"id":1},{"id":2},{"id":3}]}"#)
    }

    /// Random cases per strategy, from fixed seeds, over small domains so sides collide.
    private mutating func random() throws {
        var generator = SplitMix64(seed: 17)
        func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        func maybe(_ make: () -> String) -> String? { number(0...9) == 0 ? nil : make() }
        let makers: [(String, JSONValue, () -> String)] = [
            ("threeWay", Self.s("threeWay"), { number(0...1) == 0 ? "\(number(0...4))" : #""s\#(number(0...3))""# }),
            ("counter", Self.s("counter"), { "\(number(-5...5))" }),
            ("set", Self.s("set"), { "[" + (0..<number(0...4)).map { _ in "\(number(0...5))" }.joined(separator: ",") + "]" }),
            ("multiValue", Self.s("multiValue"), { "[" + (0..<number(1...3)).map { _ in "\(number(0...4))" }.joined(separator: ",") + "]" }),
            ("text", Self.s("text"), { "\"" + String((0..<number(0...10)).map { _ in Array("ab c")[number(0...3)] }) + "\"" }),
            ("max", Self.s("max"), { "\(number(0...9))" }),
            ("min", Self.s("min"), { #""\#(Array("abcé")[number(0...3)])""# }),
            ("list", Self.list(Self.model([("v", Self.s("counter"))])), {
                var ids = Array(0...5)
                ids.shuffle(using: &generator)
                return "[" + ids.prefix(number(0...5)).map { #"{"id":\#($0),"v":\#(number(0...2))}"# }.joined(separator: ",") + "]"
            }),
            ("dictionary", Self.dictionary(Self.s("counter"), removal: "updateWins"), {
                "{" + Set((0..<number(0...3)).map { _ in number(0...4) }).sorted().map { #""k\#($0)":\#(number(0...3))"# }.joined(separator: ",") + "}"
            }),
            ("custom longer", Self.longer, { "\"" + String(repeating: "x", count: number(0...3)) + String(repeating: "y", count: number(0...1)) + "\"" }),
        ]
        for (name, strategy, make) in makers {
            for index in 0..<30 {
                let base = maybe(make)
                // Sides are often the base, so one-sided changes are as common as two-sided.
                let first = number(0...3) == 0 ? base : maybe(make), second = number(0...3) == 0 ? base : maybe(make)
                try property("random \(name) \(index)", strategy, base: base.map(json),
                             VectorSide(value: first.map(json), id: "V\(number(1...3))", time: Double(number(0...2))),
                             VectorSide(value: second.map(json), id: "W\(number(1...3))", time: Double(number(0...2))))
            }
        }
    }
}

/// Builds `conformance/models/stored.json`: saves over stored values (SPEC.md section 17,
/// "Stored form").
struct StoredVectorMaker {
    private var cases: [JSONValue] = []

    mutating func save(_ name: String, knownKeys: [String]?, schema: String? = nil, version: Int = 1, existing: String?, encoded: String) {
        var members: [(String, JSONValue)] = [("name", .string(name)), ("modelVersion", int(version)), ("encoded", json(encoded))]
        if let knownKeys { members.append(("knownKeys", .array(knownKeys.map(JSONValue.string)))) }
        if let schema { members.append(("schema", json(schema))) }
        if let existing { members.append(("existing", json(existing))) }
        do {
            let parsedSchema = try schema.map { try VectorSchema.schema(json($0)) }
            let stored = try StoredModel.storedForm(of: json(encoded).objectValue ?? JSONObject(), modelVersion: version, knownKeys: knownKeys,
                                                    schema: parsedSchema, replacing: existing.map(json)?.objectValue, valueId: "M/x")
            members.append(("result", stored))
        } catch let error as ModelError {
            switch error {
            case .newerModelVersion: members.append(("error", .string("newerModelVersion")))
            case .invalidModelVersion: members.append(("error", .string("invalidModelVersion")))
            default: members.append(("error", .string("\(error)")))
            }
        } catch {
            members.append(("error", .string("\(error)")))
        }
        cases.append(.object(JSONObject(members)))
    }

    func document() throws -> VectorDocument {
        var maker = self
        maker.save("a new model", knownKeys: ["name", "note"], existing: nil, encoded: #"{"name":"a"}"#)
        maker.save("model version above 1 is written", knownKeys: ["name"], version: 3, existing: nil, encoded: #"{"name":"a"}"#)
        maker.save("unknown members of the stored value kept", knownKeys: ["name", "note"], existing: #"{"name":"a","note":"n","color":"red"}"#,
                   encoded: #"{"name":"b"}"#)
        maker.save("a known key the encoding leaves out (nil) stays out", knownKeys: ["name", "note"], existing: #"{"name":"a","note":"n"}"#,
                   encoded: #"{"name":"b"}"#)
        maker.save("unknown keys without a key list: members the encoding lacks", knownKeys: nil, existing: #"{"name":"a","note":"n"}"#,
                   encoded: #"{"name":"b"}"#)
        maker.save("nested models, list elements and dictionary entries keep theirs", knownKeys: ["inner", "items", "map"],
                   schema: #"{"properties":{"inner":{"strategy":"model","properties":{"x":{"strategy":"threeWay"}}},"items":{"strategy":"list","idKey":"id","element":{"strategy":"model","properties":{"id":{"strategy":"threeWay"},"v":{"strategy":"threeWay"}}},"removal":"updateWins"},"map":{"strategy":"dictionary","value":{"strategy":"model","properties":{"x":{"strategy":"threeWay"}}},"removal":"updateWins"}}}"#,
                   existing: #"{"inner":{"x":1,"extra":true},"items":[{"id":1,"v":1,"p":9},{"id":2,"v":2,"p":8}],"map":{"k":{"x":1,"q":7}}}"#,
                   encoded: #"{"inner":{"x":2},"items":[{"id":2,"v":3},{"id":3,"v":4}],"map":{"k":{"x":5},"l":{"x":6}}}"#)
        maker.save("a nested model's own keys are known: one its encoding leaves out stays out", knownKeys: ["inner"],
                   schema: #"{"properties":{"inner":{"strategy":"model","properties":{"x":{"strategy":"threeWay"},"note":{"strategy":"threeWay"}}}}}"#,
                   existing: #"{"inner":{"x":1,"note":"n","extra":true}}"#, encoded: #"{"inner":{"x":2}}"#)
        maker.save("keys compare as bytes", knownKeys: ["\u{E9}"], existing: "{\"e\u{301}\":1,\"\u{E9}\":2}", encoded: "{\"\u{E9}\":3}")
        maker.save("$version null is 1", knownKeys: ["name"], existing: #"{"$version":null,"name":"a"}"#, encoded: #"{"name":"b"}"#)
        maker.save("$version of the stored value is replaced", knownKeys: ["name"], version: 2, existing: #"{"$version":1,"name":"a"}"#,
                   encoded: #"{"name":"b"}"#)
        maker.save("a stored value of a newer model version is refused", knownKeys: ["name"], version: 2,
                   existing: #"{"$version":3,"name":"a"}"#, encoded: #"{"name":"b"}"#)
        maker.save("a $version that is not an integer from 1 to 2^53 is refused", knownKeys: ["name"], existing: #"{"$version":"2","name":"a"}"#,
                   encoded: #"{"name":"b"}"#)
        maker.save("$version 0 is refused", knownKeys: ["name"], existing: #"{"$version":0,"name":"a"}"#, encoded: #"{"name":"b"}"#)
        return VectorDocument(header: [("format", .string("llvs-conformance-models")), ("formatVersion", int(1)), ("section", .string("17")),
                                       ("about", .string("Saving a model over a stored value (SPEC.md section 17, Stored form): encoded is the model's Codable encoding, knownKeys the keys its type encodes (absent: unknown), schema its merge schema where nested members matter, existing the stored object it replaces; result is the object stored (before canonical JSON), or error."))],
                              arrays: [("saves", maker.cases)])
    }
}

/// Builds `conformance/models/schemas.json`: recorded schemas (SPEC.md section 17,
/// "Recorded schemas"): what the model layer records for sample types, and how a reader
/// reads recorded bytes (an unknown kind as `value`; a value that is no schema refused).
struct SchemaVectorMaker {
    private var cases: [JSONValue] = []

    /// What a reader makes of `schema`, in the vectors' form.
    static func read(_ schema: ModelSchema) -> JSONValue {
        let properties = schema.properties.map { property -> JSONValue in
            var members: [(String, JSONValue)] = [("name", .string(property.name)), ("kind", .string(property.kind.recordedName))]
            if case .reference(let target) = property.kind { members.append(("target", .string(target))) }
            return .object(JSONObject(members))
        }
        return .object(JSONObject([("type", .string(schema.typeIdentifier)), ("modelVersion", int(schema.modelVersion)),
                                   ("properties", .array(properties))]))
    }

    mutating func type<Model: StorableModel>(_ name: String, _ type: Model.Type) throws {
        let schema = try ModelSchema.of(type)
        cases.append(.object(JSONObject([("name", .string(name)), ("recorded", .string(String(decoding: schema.storedData, as: UTF8.self))),
                                         ("read", Self.read(schema))])))
    }

    mutating func recorded(_ name: String, _ text: String) {
        var members: [(String, JSONValue)] = [("name", .string(name)), ("recorded", .string(text))]
        do {
            members.append(("read", Self.read(try ModelSchema(recorded: Data(text.utf8), valueId: "$schema/T"))))
        } catch {
            members.append(("error", .string("invalidSchema")))
        }
        cases.append(.object(JSONObject(members)))
    }

    func document() throws -> VectorDocument {
        var maker = self
        try maker.type("every kind of property", Appointment.self)
        try maker.type("a model version above 1, nested values, a reference", Board.self)
        maker.recorded("members in any order, a kind a newer writer knows read as value",
                       #"{"type":"T","properties":[{"name":"a","kind":"vector"},{"kind":"date","name":"b"}],"modelVersion":2}"#)
        maker.recorded("no properties", #"{"modelVersion":1,"properties":[],"type":"T"}"#)
        maker.recorded("not an object", #"["T"]"#)
        maker.recorded("not JSON", "T")
        maker.recorded("no type", #"{"modelVersion":1,"properties":[]}"#)
        maker.recorded("an empty type", #"{"modelVersion":1,"properties":[],"type":""}"#)
        maker.recorded("model version 0", #"{"modelVersion":0,"properties":[],"type":"T"}"#)
        maker.recorded("a model version that is a string", #"{"modelVersion":"1","properties":[],"type":"T"}"#)
        maker.recorded("a reference with no target", #"{"modelVersion":1,"properties":[{"kind":"reference","name":"r"}],"type":"T"}"#)
        maker.recorded("a property with no name", #"{"modelVersion":1,"properties":[{"kind":"text"}],"type":"T"}"#)
        return VectorDocument(header: [("format", .string("llvs-conformance-models")), ("formatVersion", int(1)), ("section", .string("17")),
                                       ("about", .string("Recorded schemas (SPEC.md section 17): recorded is the value's bytes (the model layer's, for Swift types: canonical JSON); read is what a reader makes of them (type, modelVersion, properties with name, kind and a reference's target; a kind it does not know is value), or error when the value is no schema."))],
                              arrays: [("schemas", maker.cases)])
    }
}
