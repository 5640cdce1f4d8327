import Foundation
import Testing

/// `llvs query`: read-only SQL over the models and values at a version, with no app code.
@Suite struct QueryToolTests {
    @Test(arguments: ["file", "sqlite"])
    func modelsAndValuesAnswerSQL(_ storage: String) throws {
        let llvs = try ToolRunner("llvs")
        let scratch = try ScratchDirectory()
        let store = ["--store", scratch.path("store")]
        try llvs.succeed(["init", "--storage", storage] + store)
        try llvs.succeed(["put", "Note/n1", #"{"title":"Groceries","category":"home","stars":2,"place":{"city":"Paris"},"pinned":true}"#] + store)
        let first = try llvs.succeed(["put", "Note/n2", #"{"title":"Report","category":"work","stars":5,"place":{"city":"Oslo"},"pinned":false}"#,
                                      "--json"] + store).object()["version"] as? String
        try llvs.succeed(["put", "Note/n3", #"{"title":"Review","category":"work","stars":4.5}"#] + store)
        try llvs.succeed(["put", "greeting", "hello"] + store)

        let counts = try llvs.succeed(["query", "SELECT category, count(*) AS notes FROM Note GROUP BY category ORDER BY category"] + store)
        #expect(counts.text == "category  notes\n--------  -----\nhome      1\nwork      2\n")
        let rows = try llvs.succeed(["query", "--json", """
            SELECT llvs_instance, title, stars, json_extract(place, '$.city') AS city, pinned FROM Note ORDER BY llvs_instance
            """] + store).array()
        #expect(rows.map { $0["llvs_instance"] as? String } == ["n1", "n2", "n3"])
        #expect(rows.first?["city"] as? String == "Paris" && rows.first?["pinned"] as? Int == 1)
        #expect(rows.last?["stars"] as? Double == 4.5 && rows.last?["city"] is NSNull)
        let plain = try llvs.succeed(["query", "--json", "SELECT llvs_id, llvs_data FROM llvs_values"] + store).array()
        #expect(plain.count == 1 && plain.first?["llvs_data"] as? String == "hello")

        // At an earlier version, the later notes are not there.
        let version = try #require(first)
        let earlier = try llvs.succeed(["query", "--at", version, "--json", "SELECT llvs_instance FROM Note ORDER BY 1"] + store).array()
        #expect(earlier.map { $0["llvs_instance"] as? String } == ["n1", "n2"])
    }

    @Test func writesAndBadSQLAreRefusedWithAClearError() throws {
        let llvs = try ToolRunner("llvs")
        let scratch = try ScratchDirectory()
        let store = ["--store", scratch.path("store")]
        try llvs.succeed(["init"] + store)
        try llvs.succeed(["put", "Note/n1", #"{"title":"x"}"#] + store)
        for statement in ["DELETE FROM Note", "INSERT INTO llvs_values VALUES ('a', 'b', 'c')", "DROP TABLE Note", "CREATE TABLE t (a)"] {
            let refused = try llvs.run(["query", statement] + store)
            #expect(refused.status == 64, "\(statement)")
            #expect(refused.stderr.contains("read-only"), "\(refused.stderr)")
        }
        let bad = try llvs.run(["query", "SELEC nonsense"] + store)
        #expect(bad.status != 0 && bad.stderr.contains("not valid"))
        #expect(try llvs.succeed(["query", "--json", "SELECT count(*) AS n FROM Note"] + store).array().first?["n"] as? Int == 1)
    }
}
