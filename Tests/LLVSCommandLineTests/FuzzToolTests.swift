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
}
