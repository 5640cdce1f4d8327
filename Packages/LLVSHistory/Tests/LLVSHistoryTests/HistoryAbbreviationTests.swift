import LLVSCore
import Testing
@testable import LLVSHistory

/// Resolving abbreviated identifiers and abbreviating them, on named examples.
@Suite struct HistoryAbbreviationTests {
    /// A history of root versions with these identifiers.
    private func roots(_ ids: [String]) throws -> History {
        try History(versions: ids.map { version($0) })
    }

    @Test func anExactMatchWinsAlone() throws {
        let history = try roots(["abc", "abcd", "abce"])
        #expect(history.identifiers(matchingPrefix: "abc").strings == ["abc"])
        #expect(history.identifiers(matchingPrefix: "abcd").strings == ["abcd"])
        #expect(history.identifiers(matchingPrefix: "ab").strings == ["abc", "abcd", "abce"])
    }

    @Test func anAmbiguousPrefixGivesEveryMatchSortedByIdentifier() throws {
        let history = try roots(["b2", "B", "b1", "a"])
        #expect(history.identifiers(matchingPrefix: "b").strings == ["b1", "b2"])
        #expect(history.identifiers(matchingPrefix: "x").isEmpty)
        #expect(history.identifiers(matchingPrefix: "").isEmpty)
        #expect(History().identifiers(matchingPrefix: "a").isEmpty)
    }

    @Test func caseInsensitiveMatchesCountOnlyWhenNoCaseSensitiveOneExists() throws {
        let history = try roots(["ABC1", "abd"])
        #expect(history.identifiers(matchingPrefix: "abc").strings == ["ABC1"])
        #expect(history.identifiers(matchingPrefix: "AB").strings == ["ABC1"], "a case-sensitive match shuts out abd")
        #expect(history.identifiers(matchingPrefix: "ab").strings == ["abd"])
        #expect(history.identifiers(matchingPrefix: "Ab").strings == ["ABC1", "abd"])
    }

    @Test func prefixesAreComparedByBytes() throws {
        // "é" as e + combining acute: equal to the precomposed "é" for String, not for identifiers.
        let history = try roots(["e\u{301}x"])
        #expect(history.identifiers(matchingPrefix: "\u{e9}").isEmpty)
        #expect(history.identifiers(matchingPrefix: "\u{e9}x").isEmpty)
        #expect(history.identifiers(matchingPrefix: "e\u{301}").strings == ["e\u{301}x"])
        // Non-ASCII letters are never case-folded.
        #expect(try roots(["Éa"]).identifiers(matchingPrefix: "éa").isEmpty)
    }

    @Test func abbreviationsAreTheMinimumLengthOrOneCharacterPastTheLongestSharedPrefix() throws {
        let history = try roots(["0123456789", "0123456abc", "fedcba9876", "fedcb"])
        #expect(history.abbreviatedIdentifiers() == [
            "0123456789": "01234567", "0123456abc": "0123456a", "fedcba9876": "fedcba9", "fedcb": "fedcb",
        ])
        #expect(history.abbreviatedIdentifiers(minimumLength: 1) == [
            "0123456789": "01234567", "0123456abc": "0123456a", "fedcba9876": "fedcba", "fedcb": "fedcb",
        ])
        #expect(try roots(["a1", "b2"]).abbreviatedIdentifiers(minimumLength: 0) == ["a1": "a", "b2": "b"])
        #expect(History().abbreviatedIdentifiers().isEmpty)
    }

    @Test func identifiersShorterThanTheMinimumAreKeptWhole() throws {
        let history = try roots(["ab", "abc", "x"])
        #expect(history.abbreviatedIdentifiers() == ["ab": "ab", "abc": "abc", "x": "x"])
        #expect(history.abbreviatedIdentifiers(minimumLength: 1) == ["ab": "ab", "abc": "abc", "x": "x"])
        for (id, abbreviation) in history.abbreviatedIdentifiers(minimumLength: 1) {
            #expect(history.identifiers(matchingPrefix: abbreviation) == [id])
        }
    }

    @Test func identifiersDifferingOnlyInCaseAreAbbreviatedPastTheirSharedPrefix() throws {
        let history = try roots(["deadbeef01", "DEADBEEF02", "deadbeef", "DEADBEEF"])
        let abbreviations = history.abbreviatedIdentifiers()
        #expect(abbreviations == ["deadbeef01": "deadbeef01", "DEADBEEF02": "DEADBEEF02", "deadbeef": "deadbeef", "DEADBEEF": "DEADBEEF"])
        for (id, abbreviation) in abbreviations {
            #expect(history.identifiers(matchingPrefix: abbreviation) == [id])
        }
        // An abbreviation typed in the other case still finds its version.
        let mixed = try roots(["ABCDEF1234", "abcdef5678"])
        #expect(mixed.abbreviatedIdentifiers() == ["ABCDEF1234": "ABCDEF1", "abcdef5678": "abcdef5"])
        #expect(mixed.identifiers(matchingPrefix: "abcdef1").strings == ["ABCDEF1234"])
        #expect(mixed.identifiers(matchingPrefix: "ABCDEF5").strings == ["abcdef5678"])
    }

    @Test func abbreviationsEndOnCharacterBoundaries() throws {
        // Two-byte "é": one byte past the shared "éé" would split the third one.
        let accents = try roots(["\u{e9}\u{e9}\u{e9}1", "\u{e9}\u{e9}2"])
        #expect(accents.abbreviatedIdentifiers(minimumLength: 1) == ["\u{e9}\u{e9}\u{e9}1": "\u{e9}\u{e9}\u{e9}", "\u{e9}\u{e9}2": "\u{e9}\u{e9}2"])
        // "e" + combining acute is one Character: the abbreviation keeps it whole.
        let combining = try roots(["ae\u{301}1", "ae2"])
        let abbreviations = combining.abbreviatedIdentifiers(minimumLength: 1)
        #expect(abbreviations[Version.ID("ae\u{301}1")].map { Array($0.utf8) } == Array("ae\u{301}".utf8))
        #expect(abbreviations[Version.ID("ae2")].map { Array($0.utf8) } == Array("ae2".utf8))
        for (id, abbreviation) in abbreviations {
            #expect(id.rawValue.hasPrefix(abbreviation))
            #expect(combining.identifiers(matchingPrefix: abbreviation) == [id])
        }
    }
}
