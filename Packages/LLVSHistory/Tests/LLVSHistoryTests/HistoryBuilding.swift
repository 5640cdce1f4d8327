import LLVSCore
@testable import LLVSHistory

/// Builds a version with predecessors named by string, at a given timestamp.
func version(_ id: String, _ predecessors: [String] = [], at timestamp: Double = 0) -> Version {
    let preds: Version.Predecessors? = switch predecessors.count {
    case 0: nil
    case 1: .init(idOfFirst: Version.ID(predecessors[0]))
    default: .init(idOfFirst: Version.ID(predecessors[0]), idOfSecond: Version.ID(predecessors[1]))
    }
    return Version(id: Version.ID(id), predecessors: preds, timestamp: timestamp)
}

/// A history from `(id, predecessors)` pairs added in order, with timestamps 0, 1, 2, ….
func history(_ spec: [(String, [String])]) throws -> History {
    var history = History()
    for (offset, (id, predecessors)) in spec.enumerated() {
        try history.add(version(id, predecessors, at: Double(offset)))
    }
    return history
}

/// A serial history `s1 … s<depth>` with two branches of `branchLength` versions off the
/// head, `a1 …` and `b1 …`.
func deepForkedHistory(depth: Int, branchLength: Int) throws -> History {
    var versions: [Version] = []
    versions.reserveCapacity(depth + 2 * branchLength)
    for i in 1...depth {
        versions.append(version("s\(i)", i == 1 ? [] : ["s\(i - 1)"], at: Double(i)))
    }
    for side in ["a", "b"] {
        for i in 1...branchLength {
            versions.append(version("\(side)\(i)", [i == 1 ? "s\(depth)" : "\(side)\(i - 1)"], at: Double(depth + i)))
        }
    }
    return try History(versions: versions)
}

extension Array where Element == Version.ID {
    var strings: [String] { map(\.rawValue) }
}

extension Set where Element == Version.ID {
    var strings: Set<String> { Set<String>(map(\.rawValue)) }
}
