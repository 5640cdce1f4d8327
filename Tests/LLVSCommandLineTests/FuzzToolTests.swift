import Foundation
import Testing

/// `llvs-fuzz` through its built binary: the shape knobs refuse values out of range with a
/// message naming the option, and a short run with every knob set plays its cases.
@Suite struct FuzzToolTests {
    @Test(arguments: [
        (["--replicas", "0"], "--replicas"), (["--replicas", "65"], "--replicas"),
        (["--keys", "0"], "--keys"), (["--keys", "10001"], "--keys"),
        (["--rungs", "0"], "--rungs"), (["--rungs", "100001"], "--rungs"),
        (["--shapes", "-1"], "--shapes"), (["--shapes", "101"], "--shapes"),
        (["--maximum-operations", "0"], "--maximum-operations"),
        (["--cases", "0"], "--cases"), (["--jobs", "0"], "--jobs"),
        (["--backend", "tape"], "tape"), (["--property", "9"], "'9'"),
    ])
    func knobsOutOfRangeAreRefused(arguments: [String], named: String) throws {
        let budget = arguments.contains("--cases") ? [] : ["--cases", "1"]
        let result = try ToolRunner("llvs-fuzz").run(arguments + budget)
        #expect(result.status != 0, "llvs-fuzz \(arguments.joined(separator: " ")) was accepted")
        #expect(result.stderr.contains(named), "the refusal of \(arguments) does not name \(named): \(result.stderr)")
    }

    @Test func aShortRunWithEveryKnobPlaysItsCases() throws {
        let output = try ScratchDirectory()
        let result = try ToolRunner("llvs-fuzz").run([
            "--seed", "19", "--cases", "4", "--backend", "memory", "--replicas", "3", "--keys", "30",
            "--maximum-operations", "12", "--rungs", "6", "--shapes", "40", "--jobs", "1", "--output", output.url.path,
        ])
        #expect(result.status == 0, "\(result.text)\n\(result.stderr)")
        #expect(result.text.contains("up to 3 replicas, 30 keys, 12 operations, ladders and braids of up to 6 rungs in 40% of operations"),
                "the run does not print its shape: \(result.text)")
        #expect(result.text.contains("4 cases"), "\(result.text)")
        #expect(result.text.contains("No property violated."), "\(result.text)")
    }

    /// `--help` states the defaults runs really use: each default a run prints for its
    /// shape (plain, `--deep` and `--models`) is the one the help gives. Each run is stopped
    /// once it has printed its shape (its first line): a deep case takes minutes of CPU.
    @Test func theHelpStatesTheRealDefaults() throws {
        let fuzz = try ToolRunner("llvs-fuzz")
        let help = try fuzz.succeed(["--help"]).text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        func shape(_ arguments: [String]) throws -> [Int] {
            let output = try ScratchDirectory()
            let text = try fuzz.firstLine(containing: "shape: up to",
                                          arguments + ["--seed", "7", "--cases", "1", "--backend", "memory", "--output", output.url.path])
            let line = try #require(text.split(separator: "\n").first { $0.contains("shape: up to") })
            return line[line.range(of: "shape: up to")!.upperBound...].split { !$0.isNumber }.compactMap { Int($0) }
        }
        let plain = try shape([]), deep = try shape(["--deep"]), models = try shape(["--models"])
        // replicas, keys, operations, rungs, percent
        #expect(plain.count == 5 && deep.count == 5, "\(plain) \(deep)")
        guard plain.count == 5, deep.count == 5, models.count >= 3 else { return }
        #expect(help.contains("operations a history has, 1-100000 (default \(plain[2]); \(models[2]) with --models)"), "\(help)")
        #expect(help.contains("replicas a history has, 1-64 (default \(plain[0]); \(models[0]) with --models)"), "\(help)")
        #expect(help.contains("keys histories write, 1-10000 (default \(plain[1]);"), "\(help)")
        #expect(help.contains("braid, 1-100000 (default \(plain[3]);"), "\(help)")
        #expect(help.contains("0-100 (default \(plain[4]);"), "\(help)")
        #expect(help.contains("become \(deep[2]) operations, \(deep[0]) replicas, \(deep[1]) keys, \(deep[3]) rungs and \(deep[4])%"), "\(help)")
        #expect(help.contains("(default 60 unless --cases is given)"))
    }
}
