// llvs-demo: builds a small branching history in memory and prints its heads, merge bases
// and topological order. It is the README's "run" command until the store and exchanges
// exist; it exercises only the history graph (`History`) through `import LLVS`.

import Foundation
import LLVS

/// The story: a phone and a laptop share an initial version, edit offline, then each
/// merges the other's work — in opposite order — which makes a criss-cross history.
let steps: [(id: String, predecessors: [String], note: String)] = [
    ("initial", [], "first save, shared by both devices"),
    ("phone-1", ["initial"], "phone edits offline"),
    ("laptop-1", ["initial"], "laptop edits offline"),
    ("phone-merge", ["phone-1", "laptop-1"], "phone syncs and merges the laptop's work"),
    ("laptop-merge", ["laptop-1", "phone-1"], "laptop syncs and merges the phone's work"),
    ("phone-2", ["phone-merge"], "phone edits again"),
    ("laptop-2", ["laptop-merge"], "laptop edits again"),
]

func run() throws {
    var history = History()
    for (offset, step) in steps.enumerated() {
        let ids = step.predecessors.map { Version.ID($0) }
        let predecessors = ids.first.map { Version.Predecessors(idOfFirst: $0, idOfSecond: ids.count > 1 ? ids[1] : nil) }
        try history.add(Version(id: Version.ID(step.id), predecessors: predecessors, timestamp: Double(offset)))
    }
    let notes = Dictionary(uniqueKeysWithValues: steps.map { (Version.ID($0.id), $0.note) })

    print("LLVS demo: a branching history of \(history.count) versions (in memory)\n")
    print("Versions, newest first (topological order):")
    for version in history {
        let generation = try history.generation(of: version.id)
        let parents = version.predecessorIds.map(\.rawValue).joined(separator: " + ")
        let marker = history.headIdentifiers.contains(version.id) ? "*" : " "
        let from = parents.isEmpty ? "root" : "from \(parents)"
        print("  \(marker) \(version.id.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) gen \(generation)  \(from.padding(toLength: 28, withPad: " ", startingAt: 0)) \(notes[version.id] ?? "")")
    }

    let heads = history.headIdentifiers.sorted()
    print("\nHeads (* above): \(heads.map(\.rawValue).joined(separator: ", "))")
    print("Most recent head: \(history.mostRecentHead?.id.rawValue ?? "none")")

    let bases = try history.mergeBases(heads[0], heads[1])
    print("\nMerge bases of \(heads[0]) and \(heads[1]): \(bases.map(\.rawValue).joined(separator: ", "))")
    if bases.count > 1 {
        print("  A criss-cross: \(bases.count) best common ancestors, neither an ancestor of the other.")
        print("  A correct three-way merge combines them into one virtual ancestor (as Git's recursive")
        print("  strategy does) instead of picking one of them.")
    }
    if let single = try history.greatestCommonAncestor(ofVersionsIdentifiedBy: (heads[0], heads[1])) {
        print("  Deterministic single pick (greatestCommonAncestor): \(single)")
    }
    print("\nIs 'initial' an ancestor of '\(heads[0])'? \(try history.isAncestor("initial", of: heads[0]) ? "yes" : "no")")
    print("Is '\(heads[0])' an ancestor of '\(heads[1])'? \(try history.isAncestor(heads[0], of: heads[1]) ? "yes" : "no")")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("llvs-demo failed: \(error)\n".utf8))
    exit(1)
}
