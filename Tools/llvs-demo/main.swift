// llvs-demo: a tour of the versioned store. It creates a store in a temporary directory,
// lets two "devices" edit a small contact list on separate branches, merges them with a
// built-in arbiter, then shows a criss-cross history merged against a virtual ancestor.
// It is the README's "run" command until the command-line tool and exchanges arrive.

import Foundation
import LLVS

func text(_ store: Store, _ id: String, at version: Version.ID) throws -> String {
    try store.value(idString: id, at: version).map { String(decoding: $0.data, as: UTF8.self) } ?? "—"
}

func show(_ store: Store, _ title: String, _ version: Version.ID, ids: [String]) throws {
    let values = try ids.map { "\($0)=\(try text(store, $0, at: version))" }.joined(separator: "  ")
    print("  \(title.padding(toLength: 24, withPad: " ", startingAt: 0)) \(values)")
}

func run() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-demo-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try Store(rootDirectoryURL: directory)
    let ids = ["alice", "bob", "carol", "dave"]
    func contact(_ id: String, _ phone: String) -> Value { Value(idString: id, data: Data(phone.utf8)) }

    print("LLVS demo — a store in \(directory.path)\n")
    print("1. Two devices edit the same contact list while offline")
    let initial = try store.makeVersion(basedOnPredecessor: nil, inserting: [contact("alice", "555-0100"), contact("bob", "555-0101"), contact("carol", "555-0102")])
    let phone = try store.makeVersion(basedOnPredecessor: initial.id, inserting: [contact("dave", "555-0103")], updating: [contact("alice", "555-0199")])
    let laptop = try store.makeVersion(basedOnPredecessor: initial.id, updating: [contact("alice", "555-0177")], removing: ["bob"])
    try show(store, "initial", initial.id, ids: ids)
    try show(store, "phone (adds dave)", phone.id, ids: ids)
    try show(store, "laptop (removes bob)", laptop.id, ids: ids)
    print("  heads: \(store.queryHistory { $0.headIdentifiers.count }) — the history has branched")

    print("\n2. Merge with MostRecentChangeFavoringArbiter")
    let merged = try store.merge(version: phone.id, with: laptop.id, resolvingWith: MostRecentChangeFavoringArbiter())
    try show(store, "merged", merged.id, ids: ids)
    print("  alice changed on both sides: the newer change (the laptop's) wins; dave and bob's removal carry over.")
    let again = try store.merge(version: laptop.id, with: phone.id, resolvingWith: MostRecentChangeFavoringArbiter())
    print("  merging again the other way round gives the same version: \(again.id == merged.id ? "yes" : "no") (\(merged.id))")

    print("\n3. A criss-cross: each device merges the other's work, then edits again")
    let phone2 = try store.makeVersion(basedOnPredecessor: merged.id, updating: [contact("carol", "555-0222")])
    let laptopMerge = try store.makeVersion(basedOn: .init(idOfFirst: laptop.id, idOfSecond: phone.id), storing: [
        .preserve(.init(valueId: "dave", storedVersionId: phone.id)),
    ])
    let laptop2 = try store.makeVersion(basedOnPredecessor: laptopMerge.id, updating: [contact("dave", "555-0333")])
    let bases = try store.queryHistory { try $0.mergeBases(phone2.id, laptop2.id) }
    print("  merge bases of the two heads: \(bases.count) (\(bases.map(\.rawValue).joined(separator: ", ")))")
    let final = try store.merge(version: phone2.id, with: laptop2.id, resolvingWith: MostRecentBranchFavoringArbiter())
    try show(store, "criss-cross merged", final.id, ids: ids)
    print("  Both bases were merged into a virtual ancestor first, so each device's last edit")
    print("  (carol on the phone, dave on the laptop) survives without a false conflict.")
    print("\n  versions: \(store.queryHistory { $0.count }), heads: \(store.queryHistory { $0.headIdentifiers.count })")
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("llvs-demo failed: \(error)\n".utf8))
    exit(1)
}
