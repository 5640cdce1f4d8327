import Foundation
@testable import LLVSEncryption
import PropertyBased
import Testing

/// The recovery phrase: BIP-39's encoding of 32 bytes (its published vectors), round trips,
/// what a person may type, and every wrong phrase refused with a reason.
@Suite struct RecoveryPhraseTests {
    /// BIP-39's 256-bit test vectors (entropy → words), as the `mnemonic` reference
    /// implementation prints them.
    static let vectors: [(secret: [UInt8], words: String)] = [
        ([UInt8](repeating: 0, count: 32), Array(repeating: "abandon", count: 23).joined(separator: " ") + " art"),
        ([UInt8](repeating: 0x7f, count: 32), "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title"),
        ([UInt8](repeating: 0x80, count: 32), "letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic avoid letter advice cage absurd amount doctor acoustic bless"),
        ([UInt8](repeating: 0xff, count: 32), Array(repeating: "zoo", count: 23).joined(separator: " ") + " vote"),
        (Array(0..<32), "abandon amount liar amount expire adjust cage candy arch gather drum bullet absurd math era live bid rhythm alien crouch range attend journey unaware"),
    ]

    @Test func theWordListIsBIP39s() {
        #expect(RecoveryPhrase.wordList.count == 2_048)
        #expect(Set(RecoveryPhrase.wordList).count == 2_048)
        #expect(Set(RecoveryPhrase.wordList.map { $0.prefix(4) }).count == 2_048, "four letters name a word")
        #expect(RecoveryPhrase.wordList.first == "abandon" && RecoveryPhrase.wordList[1_024] == "length" && RecoveryPhrase.wordList.last == "zoo")
    }

    @Test(arguments: 0..<5)
    func theWordsAreBIP39s(vector: Int) throws {
        let (secret, words) = Self.vectors[vector]
        #expect(try RecoveryPhrase(secret: secret).description == words)
        #expect(try RecoveryPhrase(words).secret == Data(secret))
    }

    @Test func anyThirtyTwoBytesComeBackFromTheirWords() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 32)) { secret in
            let phrase = try RecoveryPhrase(secret: secret)
            #expect(phrase.words.count == 24)
            #expect(try RecoveryPhrase(phrase.description).secret == Data(secret))
            #expect(try RecoveryPhrase(phrase.words.map { String($0.prefix(4)).uppercased() }.joined(separator: ",\n ")) == phrase)
        }
    }

    @Test func aWrongWordNeverGivesTheSameSecret() async {
        await propertyCheck(count: 300, input: zip(Gen.uint8().array(of: 32), Gen.int(in: 0...23), Gen.int(in: 1...2_047))) { secret, position, shift in
            let phrase = try RecoveryPhrase(secret: secret)
            var words = phrase.words
            let index = RecoveryPhrase.wordList.firstIndex(of: Substring(words[position])) ?? 0
            words[position] = String(RecoveryPhrase.wordList[(index + shift) % 2_048])
            do {
                #expect(try RecoveryPhrase(words.joined(separator: " ")).secret != phrase.secret)
            } catch EncryptionError.invalidPhrase(let reason) {
                #expect(reason.contains("do not check"))
            }
        }
    }

    @Test func wrongPhrasesAreRefusedWithTheirReason() throws {
        let phrase = RecoveryPhrase.random()
        var words = phrase.words
        #expect(throws: EncryptionError.invalidPhrase(reason: "it has 23 words; a recovery phrase has 24")) {
            try RecoveryPhrase(words.dropLast().joined(separator: " "))
        }
        #expect(throws: EncryptionError.invalidPhrase(reason: "it has 0 words; a recovery phrase has 24")) { try RecoveryPhrase("  \n") }
        words[6] = "abandun"
        #expect(throws: EncryptionError.invalidPhrase(reason: "word 7, \"abandun\", is not in the word list")) {
            try RecoveryPhrase(words.joined(separator: " "))
        }
        words[6] = "aba"
        #expect(throws: EncryptionError.invalidPhrase(reason: "word 7, \"aba\", is not in the word list"), "three letters are not enough") {
            try RecoveryPhrase(words.joined(separator: " "))
        }
        #expect(throws: EncryptionError.invalidKey(reason: "a recovery phrase stands for 32 bytes, not 16")) {
            try RecoveryPhrase(secret: [UInt8](repeating: 1, count: 16))
        }
        // The last word carries the checksum: of the 2,048 words that could end a phrase,
        // only those with its 8 checksum bits pass.
        var passing = 0
        for candidate in RecoveryPhrase.wordList {
            if (try? RecoveryPhrase((phrase.words.dropLast() + [String(candidate)]).joined(separator: " "))) != nil { passing += 1 }
        }
        #expect(passing == 8)
    }

    @Test func aStoreKeysPhraseGivesTheStoreKeyBack() {
        let key = StoreEncryptionKey()
        #expect(RecoveryPhrase(storeKey: key).storeKey == key)
        #expect(RecoveryPhrase(storeKey: key).secret == key.rawRepresentation)
    }
}
