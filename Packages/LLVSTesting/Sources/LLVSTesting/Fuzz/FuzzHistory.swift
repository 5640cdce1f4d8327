import Foundation
import LLVSCore

/// A random history for the convergence harness: operations on several replicas of one
/// store, over a small key space so that conflicts are frequent.
///
/// A history is plain data. It is what a property test generates and shrinks, what
/// `llvs-fuzz` writes as JSON when a case fails, and what a regression test loads again.
/// Versions are named by *picks*: a non-negative number taken modulo the count of versions
/// the replica holds, in the order it got them, so every pick is valid in every history and
/// removing an operation while shrinking never makes a history invalid.
///
/// The JSON form is the synthesized `Codable` form, for example:
///
/// ```json
/// {"replicaCount": 2, "finalRule": "mostRecentChange", "operations": [
///   {"write": {"replica": 0, "time": 0, "edits": [{"key": 1, "action": 2}]}},
///   {"exchange": {"from": 0, "to": 1}},
///   {"merge": {"replica": 1, "first": 0, "second": 1, "rule": "mostRecentBranch"}}]}
/// ```
public struct FuzzHistory: Codable, Hashable, Sendable {
    /// How many replicas take part (at least 1); replica numbers are taken modulo it.
    public var replicaCount: Int

    /// The arbiter rule of the final merge of every replica's heads (the convergence step).
    public var finalRule: ReferenceModel.ArbiterRule

    /// The operations, in order.
    public var operations: [FuzzOperation]

    /// Creates a history.
    public init(replicaCount: Int, finalRule: ReferenceModel.ArbiterRule = .mostRecentChange, operations: [FuzzOperation]) {
        self.replicaCount = max(1, replicaCount)
        self.finalRule = finalRule
        self.operations = operations
    }

    /// The history as pretty-printed JSON with sorted keys.
    public var jsonString: String {
        guard let data = try? Self.prettyJSON(self) else { return "<unencodable history>" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Pretty-printed JSON with sorted keys, the form of the harness's files.
    static func prettyJSON(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(value)
    }

    /// Decodes a history from its JSON form.
    ///
    /// - Throws: `DecodingError` naming what is missing or malformed.
    public init(json: Data) throws {
        self = try JSONDecoder().decode(FuzzHistory.self, from: json)
    }

    enum CodingKeys: String, CodingKey {
        case replicaCount, finalRule, operations
    }

    /// Decodes a history, rejecting a replica count below 1.
    ///
    /// - Throws: `DecodingError` naming what is missing or malformed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let replicaCount = try container.decode(Int.self, forKey: .replicaCount)
        guard replicaCount >= 1 else {
            throw DecodingError.dataCorruptedError(forKey: .replicaCount, in: container,
                                                   debugDescription: "replicaCount must be at least 1, not \(replicaCount)")
        }
        self.init(replicaCount: replicaCount, finalRule: try container.decode(ReferenceModel.ArbiterRule.self, forKey: .finalRule),
                  operations: try container.decode([FuzzOperation].self, forKey: .operations))
    }
}

/// One step of a ``FuzzHistory``.
public enum FuzzOperation: Codable, Hashable, Sendable {
    /// A new version on `replica` with `edits`: on the version `base` picks among those the
    /// replica holds, or a new root — an unrelated history — when `base` is nil or the
    /// replica holds nothing yet.
    case write(replica: Int, base: Int?, time: Int, edits: [KeyEdit])

    /// A hand-made merge on `replica`: a version whose predecessors are the two picked
    /// versions and whose content is the first's with `edits`, as an app that merges by
    /// itself writes it. Such merges make criss-cross histories. Picking one version twice
    /// makes an ordinary write on it.
    case handMerge(replica: Int, first: Int, second: Int, time: Int, edits: [KeyEdit])

    /// `Store.merge` of two picked versions on `replica` with the arbiter of `rule`.
    case merge(replica: Int, first: Int, second: Int, rule: ReferenceModel.ArbiterRule)

    /// `Store.mergeHeads` into the picked version on `replica` with the arbiter of `rule`.
    case mergeHeads(replica: Int, into: Int, rule: ReferenceModel.ArbiterRule)

    /// Replica `to` receives the versions of replica `from` that it lacks: all of them, or
    /// only the picked version of `from` and its ancestors.
    case exchange(from: Int, to: Int, upTo: Int?)

    /// Replicas `from` and `and` send everything they hold at the same time into the one
    /// channel every replica shares (one directory, one space), then replica `to` receives
    /// everything that channel holds.
    case concurrentExchange(from: Int, and: Int, to: Int)

    /// Replica `from` offers the shared channel the versions it holds that the channel
    /// lacks, newest first in several offers, and replica `to` retrieves after each offer:
    /// merges arrive before their predecessors (as through a synced folder that delivers
    /// files in any order), and the last retrieve must complete the transfer.
    case outOfOrderExchange(from: Int, to: Int)

    /// Replica `replica` sends everything to the shared channel, then offers it a copy of
    /// the picked version with another timestamp (as an outdated client or a faulty port
    /// would): the channel must refuse it, since what is written for a logged version is
    /// immutable (ARCHITECTURE.md, "Invariants").
    case conflictingCopy(replica: Int, version: Int)

    /// A criss-cross ladder written on `replica` (as it arrives from peers that each
    /// merged the other's last merge with an order-dependent arbiter): two strands from
    /// the replica's newest version, then `rungs` rungs whose two versions each have both
    /// versions of the rung below as predecessors, in opposite orders, and each write key
    /// `key` — so merging the top two needs one virtual ancestor per rung.
    case ladder(replica: Int, rungs: Int, key: Int)

    /// A braid written on `replica`: three strands from its newest version; at each of
    /// `levels` levels every strand merges all three strands of the level below (a
    /// two-predecessor version, then another) and writes its own key, from `key` on — so
    /// the top versions have three merge bases at every level.
    case braid(replica: Int, levels: Int, key: Int)
}

/// A change to one key of the fuzz key space.
public struct KeyEdit: Codable, Hashable, Sendable {
    /// The key's number; its value identifier is `k<key>`.
    public var key: Int

    /// 0 removes the value; 3 writes data that names only the key (so versions write
    /// equal data under different references); any other number writes new data naming
    /// the key, the action and the version.
    public var action: Int

    /// Creates an edit.
    public init(key: Int, action: Int) {
        self.key = key
        self.action = action
    }

    /// The value identifier the edit changes.
    public var valueId: Value.ID { Value.ID("k\(key)") }

    /// The data the edit writes in `version`, or nil for a removal.
    public func data(in version: Version.ID) -> Data? {
        switch action {
        case 0: return nil
        case 3: return Data("k\(key).same".utf8)
        default: return Data("k\(key).\(action)@\(version.rawValue)".utf8)
        }
    }
}

extension FuzzHistory: CustomStringConvertible {
    /// One line per operation, numbered by step — the form failures print.
    public var description: String {
        var lines = ["FuzzHistory(replicas: \(replicaCount), final rule: \(finalRule.rawValue))"]
        for (step, operation) in operations.enumerated() {
            lines.append("  \(step): \(operation)")
        }
        return lines.joined(separator: "\n")
    }
}

extension FuzzOperation: CustomStringConvertible {
    /// A short readable form, such as `r0 write on #3 t5 [k1=2, k4 removed]`.
    public var description: String {
        func edits(_ edits: [KeyEdit]) -> String {
            "[" + edits.map { $0.action == 0 ? "k\($0.key) removed" : "k\($0.key)=\($0.action)" }.joined(separator: ", ") + "]"
        }
        switch self {
        case let .write(replica, base, time, list):
            return "r\(replica) write on \(base.map { "#\($0)" } ?? "nothing (new root)") t\(time) \(edits(list))"
        case let .handMerge(replica, first, second, time, list):
            return "r\(replica) hand-made merge of #\(first) and #\(second) t\(time) \(edits(list))"
        case let .merge(replica, first, second, rule):
            return "r\(replica) merge #\(first) with #\(second) (\(rule.rawValue))"
        case let .mergeHeads(replica, into, rule):
            return "r\(replica) merge heads into #\(into) (\(rule.rawValue))"
        case let .exchange(from, to, upTo):
            return "r\(to) receives from r\(from) \(upTo.map { "up to #\($0)" } ?? "everything")"
        case let .ladder(replica, rungs, key):
            return "r\(replica) ladder of \(rungs) rungs on k\(key)"
        case let .braid(replica, levels, key):
            return "r\(replica) braid of \(levels) levels from k\(key)"
        case let .concurrentExchange(from, and, to):
            return "r\(to) receives from r\(from) and r\(and) sending at once"
        case let .outOfOrderExchange(from, to):
            return "r\(to) receives from r\(from) newest first"
        case let .conflictingCopy(replica, version):
            return "r\(replica) offers an altered copy of #\(version)"
        }
    }
}
