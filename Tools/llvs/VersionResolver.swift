import LLVS

extension StoreDirectory {
    /// The version a user named: `HEAD`, a branch's name (its tip; as in Git, a branch wins
    /// over an identifier it begins), a full identifier, a unique prefix of one (any case),
    /// each optionally followed by `~N` (the N-th first predecessor, as in Git) or `^`.
    ///
    /// - Throws: ``CLIError/unknownVersion(_:)``, ``CLIError/ambiguousVersion(_:candidates:)``,
    ///   ``CLIError/emptyStore`` for `HEAD` in an empty store.
    func resolveVersion(_ name: String) throws -> Version.ID {
        let (base, steps) = try Self.splitAncestry(name)
        var id = try resolveBase(base, fullName: name)
        for _ in 0..<steps {
            guard let predecessor = store.version(identifiedBy: id)?.predecessors?.idOfFirst else {
                throw CLIError.unknownVersion(name)
            }
            id = predecessor
        }
        return id
    }

    private func resolveBase(_ base: String, fullName: String) throws -> Version.ID {
        if base == "HEAD" || base == "@" { return try requireHead() }
        if branchExists(base), let tip = tip(of: Branch(base)) ?? state.createdBranches?[base]?.start { return tip }
        let matches = store.queryHistory { $0.identifiers(matchingPrefix: base) }
        switch matches.count {
        case 0: throw CLIError.unknownVersion(fullName)
        case 1: return matches[0]
        default: throw CLIError.ambiguousVersion(fullName, candidates: matches.prefix(10).map(\.rawValue))
        }
    }

    /// Splits `name~3` into (`name`, 3) and `name^^` into (`name`, 2); a suffix that is not
    /// a count, or counts whose sum overflows, is an unknown version.
    static func splitAncestry(_ name: String) throws -> (String, Int) {
        if let tilde = name.lastIndex(of: "~") {
            let count = name[name.index(after: tilde)...]
            guard count.isEmpty || Int(count) != nil, let steps = count.isEmpty ? 1 : Int(count), steps >= 0 else {
                throw CLIError.unknownVersion(name)
            }
            let (base, more) = try splitAncestry(String(name[..<tilde]))
            // Counts beyond any history name no version; their sum must not trap either.
            let (total, overflowed) = more.addingReportingOverflow(steps)
            guard !overflowed else { throw CLIError.unknownVersion(name) }
            return (base, total)
        }
        var base = Substring(name), steps = 0
        while base.count > 1, base.hasSuffix("^") { base = base.dropLast(); steps += 1 }
        return (String(base), steps)
    }
}
