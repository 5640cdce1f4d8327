import Foundation
import LLVSSupport
import PropertyBased
import Testing
import LLVSCore

@Suite struct HexTests {
    @Test func encodesLowerCaseDigitsMostSignificantNibbleFirst() {
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        // A collection without contiguous storage takes the same path.
        #expect(Hex.encode((0...3).lazy.map { UInt8($0 * 5) }) == "00050a0f")
    }

    @Test func matchesFoundationsFormatting() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...64)) { bytes in
            #expect(Hex.encode(bytes) == bytes.map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test func appendStringWritesTheLengthAndTheUTF8Bytes() throws {
        var writer = ByteWriter()
        writer.appendString("é\u{0}a")
        #expect(writer.bytes == [4, 0xC3, 0xA9, 0x00, 0x61])
        var reader = ByteReader(writer.data)
        #expect(try reader.readString() == "é\u{0}a")
    }
}
