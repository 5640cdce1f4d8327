import LLVSCore
import PropertyBased
import Testing
@testable import LLVSHistory

/// Abbreviations over random sets of identifiers built to collide: a few shared stems
/// (empty, hex, a long one), random tails from an alphabet with letters in both cases,
/// digits, a two-byte "é" and a combining accent, and random case flips — so identifiers
/// often share long prefixes, are prefixes of one another, or differ only in case.
///
/// Each of ``cases`` sets checks every identifier against a brute-force scan: its
/// abbreviation resolves to it alone through `identifiers(matchingPrefix:)` (also typed in
/// the other case, when it is shorter than the identifier), and one character less would be
/// below the minimum length or shared, without regard to case, with another identifier.
@Suite struct HistoryAbbreviationPropertyTests {
    static let cases = 1_000

    static let stems = ["", "deadbeef", "DEADBEEFcafe0123", "0123456789abcdef0123456789abcdef"]
    static let alphabet = ["a", "A", "b", "B", "0", "1", "\u{e9}", "e\u{301}"]

    /// `(stem, tail, case flips)` per identifier, and the minimum length.
    static let input = zip(
        zip(Gen.int(in: 0...(stems.count - 1)), Gen.int(in: 0...(alphabet.count - 1)).array(of: 0...6), Gen.int(in: 0...255)).array(of: 1...30),
        Gen.int(in: 0...10))

    /// The distinct, non-empty identifiers the raw parts spell.
    static func identifiers(_ parts: [(Int, [Int], Int)]) -> [Version.ID] {
        var seen: Set<Version.ID> = []
        var ids: [Version.ID] = []
        for (stem, tail, flips) in parts {
            let spelled = stems[stem] + tail.map { alphabet[$0] }.joined()
            let flipped = String(String.UnicodeScalarView(spelled.unicodeScalars.enumerated().map { offset, scalar in
                guard flips & (1 << (offset % 8)) != 0, scalar.isASCII else { return scalar }
                let text = String(scalar)
                return (text == text.uppercased() ? text.lowercased() : text.uppercased()).unicodeScalars.first ?? scalar
            }))
            let id = Version.ID(flipped)
            if !flipped.isEmpty, seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    static func folded(_ string: Substring) -> [UInt8] { string.utf8.map(IdentifierFolding.fold) }
    static func folded(_ string: String) -> [UInt8] { string.utf8.map(IdentifierFolding.fold) }

    /// `string` with its ASCII letters in upper or lower case.
    static func recased(_ string: String, upper: Bool) -> String {
        String(String.UnicodeScalarView(string.unicodeScalars.map { scalar in
            guard scalar.isASCII else { return scalar }
            let text = String(scalar)
            return (upper ? text.uppercased() : text.lowercased()).unicodeScalars.first ?? scalar
        }))
    }

    @Test func everyAbbreviationResolvesToItsVersionAloneAndIsNoLongerThanNeeded() async {
        await propertyCheck(count: Self.cases, input: Self.input) { parts, minimumLength in
            let ids = Self.identifiers(parts)
            let history = try History(versions: ids.map { Version(id: $0, timestamp: 0) })
            let abbreviations = history.abbreviatedIdentifiers(minimumLength: minimumLength)
            #expect(abbreviations.count == ids.count)
            var problems: [String] = []
            for id in ids {
                guard let abbreviation = abbreviations[id] else { problems.append("\(id): no abbreviation"); continue }
                if !Array(id.rawValue.utf8).starts(with: Array(abbreviation.utf8)) || !id.rawValue.hasPrefix(abbreviation) {
                    problems.append("\(id): \(abbreviation) is not a prefix of it")
                }
                if history.identifiers(matchingPrefix: abbreviation) != [id] {
                    problems.append("\(id): \(abbreviation) resolves to \(history.identifiers(matchingPrefix: abbreviation))")
                }
                if abbreviation.count < min(minimumLength, id.rawValue.count) {
                    problems.append("\(id): \(abbreviation) is shorter than the minimum \(minimumLength)")
                }
                // One character less must be too short, empty, or shared regardless of case.
                let shorter = abbreviation.dropLast()
                let shared = ids.contains { other in other != id && Self.folded(other.rawValue).starts(with: Self.folded(shorter)) }
                if !(shorter.isEmpty || shorter.count < minimumLength || shared) {
                    problems.append("\(id): \(shorter) would do instead of \(abbreviation)")
                }
                if abbreviation.utf8.count < id.rawValue.utf8.count {
                    for recased in [Self.recased(abbreviation, upper: true), Self.recased(abbreviation, upper: false)]
                    where history.identifiers(matchingPrefix: recased) != [id] {
                        problems.append("\(id): \(recased), \(abbreviation) in another case, resolves to \(history.identifiers(matchingPrefix: recased))")
                    }
                }
            }
            #expect(problems.isEmpty, "\(problems)")
        }
    }
}
