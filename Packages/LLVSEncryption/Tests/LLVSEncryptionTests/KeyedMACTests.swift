import Crypto
import Foundation
@testable import LLVSEncryption
import LLVSSupport
import PropertyBased
import Testing

/// `KeyedMAC` is HMAC-SHA256 (RFC 2104) computed from kept padded-key states: it must equal
/// swift-crypto's `HMAC<SHA256>` for keys shorter than, equal to and longer than a block,
/// whatever the message, however the message is split.
@Suite struct KeyedMACTests {
    /// RFC 4231, test case 2 (a key shorter than a block).
    @Test func itGivesTheRFC4231Code() {
        let mac = KeyedMAC(key: Array("Jefe".utf8))
        let code = mac.code(Array("what do ya want ".utf8), Array("for nothing?".utf8))
        #expect(Hex.encode(code) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// RFC 4231, test case 6 (a 131-byte key, hashed first).
    @Test func aKeyLongerThanABlockIsHashedFirst() {
        let mac = KeyedMAC(key: [UInt8](repeating: 0xaa, count: 131))
        let code = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8).withUnsafeBytes { mac.code(of: $0) }
        #expect(Hex.encode(code) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func itEqualsSwiftCryptosHMACForAnyKeyAndMessage() async {
        let bytes = Gen<UInt8>.value(in: 0...255)
        let input = zip(bytes.array(of: 0...200), bytes.array(of: 0...300), Gen.int(in: 0...300))
        await propertyCheck(count: 300, input: input) { key, message, split in
            let expected = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
            let mac = KeyedMAC(key: key)
            let cut = min(split, message.count)
            #expect(mac.code(Array(message[..<cut]), Array(message[cut...])) == expected)
            #expect(message.withUnsafeBytes { mac.code(of: $0) } == expected)
            #expect(Array(message[cut...]).withUnsafeBytes { mac.code(of: $0, after: Array(message[..<cut])) } == expected)
        }
    }

    /// Codes computed at once on many threads from one keyed MAC all match.
    @Test func threadsSharingOneMACGetTheSameCodes() {
        let mac = KeyedMAC(key: Array("shared".utf8))
        let messages = (0..<2_000).map { Array("message \($0)".utf8) }
        let expected = messages.map { Array(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: Array("shared".utf8)))) }
        let codes = Locked([Int: [UInt8]]())
        DispatchQueue.concurrentPerform(iterations: messages.count) { index in
            let code = messages[index].withUnsafeBytes { mac.code(of: $0) }
            codes.withLock { $0[index] = code }
        }
        #expect(codes.withLock { $0 } == Dictionary(uniqueKeysWithValues: expected.enumerated().map { ($0.offset, $0.element) }))
    }
}
