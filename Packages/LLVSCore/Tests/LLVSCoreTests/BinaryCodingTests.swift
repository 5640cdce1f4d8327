import Foundation
import LLVSSupport
import PropertyBased
import Testing
import LLVSCore

@Suite struct BinaryCodingTests {
    @Test func varintsUseLEB128() {
        var writer = ByteWriter()
        writer.appendVarint(0)
        writer.appendVarint(127)
        writer.appendVarint(128)
        writer.appendVarint(300)
        #expect(writer.bytes == [0x00, 0x7F, 0x80, 0x01, 0xAC, 0x02])
    }

    /// `varintByteCount` is the length `appendVarint` writes, at every boundary of 7 bits.
    @Test func varintByteCountIsTheWrittenLength() {
        let boundaries = (0..<64).flatMap { bit -> [UInt64] in
            let power = UInt64(1) << UInt64(bit)
            return [power - 1, power, power + 1]
        } + [UInt64.max, UInt64.max - 1]
        for value in boundaries {
            var writer = ByteWriter()
            writer.appendVarint(value)
            #expect(ByteWriter.varintByteCount(value) == writer.bytes.count, "\(value)")
        }
    }

    /// `Data` (whole, or a slice that does not start at 0) is written as the generic path
    /// writes the same bytes.
    @Test func dataIsWrittenAsItsBytes() async {
        await propertyCheck(count: 300, input: zip(Gen<UInt8>.value(in: 0...255).array(of: 0...300), Gen<Int>.value(in: 0...20))) { bytes, cut in
            let data = Data(bytes).dropFirst(min(cut, bytes.count))
            var fast = ByteWriter(), generic = ByteWriter()
            fast.appendLengthPrefixed(data)
            fast.append(contentsOf: data)
            generic.appendLengthPrefixed(Array(data))
            generic.append(contentsOf: Array(data))
            #expect(fast.bytes == generic.bytes)
        }
    }

    @Test func valuesRoundTrip() async {
        let input = zip(Gen<UInt64>.value(in: 0...UInt64.max), Gen.letterOrNumber.string(of: 0...20),
                        Gen<UInt8>.value(in: 0...255).array(of: 0...30))
        await propertyCheck(count: 1_000, input: input) { number, string, bytes throws in
            var writer = ByteWriter()
            writer.appendVarint(number)
            writer.appendString(string)
            writer.appendLengthPrefixed(bytes)
            var reader = ByteReader(writer.data)
            #expect(try reader.readVarint() == number)
            #expect(try reader.readString() == string)
            #expect(Array(try reader.readLengthPrefixed()) == bytes)
            #expect(reader.isAtEnd)
        }
    }

    @Test func truncatedInputThrowsWithTheOffset() throws {
        var reader = ByteReader(Data([0x05, 0x61, 0x62]))
        #expect(throws: ByteReader.Error.truncated(offset: 1, needed: 5, available: 2)) {
            _ = try reader.readLengthPrefixed()
        }
        var empty = ByteReader(Data())
        #expect(throws: ByteReader.Error.truncated(offset: 0, needed: 1, available: 0)) { _ = try empty.readByte() }
    }

    @Test func overlongVarintIsMalformed() throws {
        var reader = ByteReader(Data(repeating: 0xFF, count: 10) + Data([0x01]))
        #expect(throws: ByteReader.Error.malformedVarint(offset: 0)) { _ = try reader.readVarint() }
        var overflow = ByteReader(Data(repeating: 0xFF, count: 9) + Data([0x02]))
        #expect(throws: ByteReader.Error.malformedVarint(offset: 0)) { _ = try overflow.readVarint() }
        var maximum = ByteReader(Data(repeating: 0xFF, count: 9) + Data([0x01]))
        #expect(try maximum.readVarint() == UInt64.max)
    }

    @Test func invalidUTF8IsReported() {
        var reader = ByteReader(Data([0x02, 0xC3, 0x28]))
        #expect(throws: ByteReader.Error.invalidUTF8(offset: 0)) { _ = try reader.readString() }
    }

    /// Skipping an identifier or a length-prefixed field accepts and refuses what reading
    /// does, with the same error, and ends where reading ends: for every prefix of random
    /// bytes of which some are ASCII, some UTF-8 beyond it and some not UTF-8 at all, in small
    /// inputs (copied into an array) and large ones (read in place).
    @Test func skippingAcceptsExactlyWhatReadingAccepts() async {
        let byte = Gen.oneOf(Gen<UInt8>.value(in: 0x20...0x7E), Gen<UInt8>.value(in: 0x80...0xFF), Gen<UInt8>.value(in: 0...0xFF))
        let input = zip(byte.array(of: 0...24), Gen.int(in: 0...5_000))
        await propertyCheck(count: 500, input: input) { bytes, padding in
            let data = Data(bytes) + Data(repeating: 0x41, count: padding)
            var identifierReader = ByteReader(data), identifierSkipper = ByteReader(data)
            let read = Result { () throws(ByteReader.Error) in try identifierReader.readIdentifier(Value.ID.self) }
            let skipped = Result { () throws(ByteReader.Error) in try identifierSkipper.skipIdentifier() }
            switch (read, skipped) {
            case (.success, .success): #expect(identifierReader.offset == identifierSkipper.offset)
            case (.failure(let readError), .failure(let skipError)): #expect(readError == skipError)
            default: Issue.record("reading gave \(read), skipping \(skipped) for \(bytes)")
            }
            var fieldReader = ByteReader(data), fieldSkipper = ByteReader(data)
            let field = Result { () throws(ByteReader.Error) in try fieldReader.readLengthPrefixed() }
            let fieldSkipped = Result { () throws(ByteReader.Error) in try fieldSkipper.skipLengthPrefixed() }
            switch (field, fieldSkipped) {
            case (.success, .success): #expect(fieldReader.offset == fieldSkipper.offset)
            case (.failure(let readError), .failure(let skipError)): #expect(readError == skipError)
            default: Issue.record("reading gave \(field), skipping \(fieldSkipped) for \(bytes)")
            }
        }
        var invalid = ByteReader(Data([0x02, 0xC3, 0x28]))
        #expect(throws: ByteReader.Error.invalidUTF8(offset: 0)) { try invalid.skipIdentifier() }
    }

    /// A reader of part of another reader's bytes (``ByteReader/reader(of:)``,
    /// ``ByteReader/readLengthPrefixedReader()``) reads what a reader made over a copy of those
    /// bytes reads: the same values, offsets and errors, ASCII or not, from a small input
    /// (held as an array) or a large one (read in place), nested twice. The skips and fixed
    /// reads agree with what they stand for too.
    @Test func aReaderOfPartReadsAsAReaderOfACopy() async throws {
        let byte = Gen.oneOf(Gen<UInt8>.value(in: 0x20...0x7E), Gen<UInt8>.value(in: 0x80...0xFF), Gen<UInt8>.value(in: 0...0xFF))
        let input = zip(byte.array(of: 0...40), Gen.int(in: 0...6_000), Gen.int(in: 0...60), Gen.int(in: 0...60))
        await propertyCheck(count: 500, input: input) { bytes, padding, lower, length in
            let data = Data(repeating: 0x41, count: padding) + Data(bytes)
            let range = min(padding + lower, data.count)..<min(padding + lower + length, data.count)
            guard let part = ByteReader(data).reader(of: range) else {
                Issue.record("\(range) lies within \(data.count) bytes")
                return
            }
            // Each read in turn, from the part and from a copy, until both fail the same way.
            func reads(_ reader: ByteReader) -> [String] {
                var reader = reader
                var outcomes: [String] = []
                for step in 0..<12 {
                    let outcome = Result { () throws(ByteReader.Error) -> String in
                        switch step % 4 {
                        case 0: return "\(try reader.readVarint())"
                        case 1: return try reader.readIdentifier(Value.ID.self).rawValue
                        case 2: return "\(try reader.readUInt64LittleEndian())"
                        default: return "\(Array(try reader.readLengthPrefixed()))"
                        }
                    }
                    outcomes.append("\(outcome) at \(reader.offset)")
                }
                return outcomes
            }
            #expect(reads(part) == reads(ByteReader(Data(data[range]))))
            // A part of a part.
            var outer = part
            let nested = Result { () throws(ByteReader.Error) in try outer.readLengthPrefixedReader() }
            var copy = ByteReader(Data(data[range]))
            let copied = Result { () throws(ByteReader.Error) in try copy.readLengthPrefixed() }
            switch (nested, copied) {
            case (.success(let inner), .success(let bytes)):
                #expect(reads(inner) == reads(ByteReader(bytes)))
                #expect(outer.offset == copy.offset)
            case (.failure(let nestedError), .failure(let copiedError)): #expect(nestedError == copiedError)
            default: Issue.record("a reader of part gave \(nested), reading gave \(copied)")
            }
            // Skipping and reading move alike and fail alike.
            var skipper = ByteReader(data), reader = ByteReader(data)
            let skipped = Result { () throws(ByteReader.Error) in try skipper.skipBytes(length) }
            let read = Result { () throws(ByteReader.Error) in try reader.readBytes(length) }
            switch (skipped, read) {
            case (.success, .success): #expect(skipper.offset == reader.offset)
            case (.failure(let skipError), .failure(let readError)): #expect(skipError == readError)
            default: Issue.record("skipping gave \(skipped), reading \(read)")
            }
        }
        #expect(ByteReader(Data([1, 2, 3])).reader(of: 2..<4) == nil)
        var little = ByteReader(Data([1, 0, 0, 0, 0, 0, 0, 0x80]))
        #expect(try little.readUInt64LittleEndian() == 0x8000_0000_0000_0001)
    }

    @Test func readsFromASliceUseRelativeOffsets() throws {
        let data = Data([9, 9, 0x03, 0x61, 0x62, 0x63])
        var reader = ByteReader(data[2...])
        #expect(try reader.readString() == "abc")
        #expect(reader.offset == 4)
    }

    /// A writer made over a used buffer starts empty and writes into the buffer's storage.
    @Test func aWriterReusesTheBufferItIsGiven() {
        var buffer = [UInt8](repeating: 7, count: 100)
        buffer.reserveCapacity(4_096)
        let storage = buffer.withUnsafeBufferPointer { $0.baseAddress }
        let capacity = buffer.capacity
        var writer = ByteWriter(reusing: consume buffer)
        #expect(writer.bytes.isEmpty)
        writer.appendString("abc")
        #expect(writer.bytes == [3] + Array("abc".utf8))
        let bytes = writer.takeBytes()
        #expect(bytes.capacity == capacity)
        #expect(bytes.withUnsafeBufferPointer { $0.baseAddress } == storage, "the same storage, not a copy")
    }

    /// A varint inserted before what it measures reads as one written first, wherever it goes.
    @Test func insertedVarintsReadAsWrittenOnes() async {
        let input = zip(Gen<UInt64>.value(in: 0...UInt64.max), Gen<UInt8>.value(in: 0...255).array(of: 0...300),
                        Gen<UInt8>.value(in: 0...255).array(of: 0...20))
        await propertyCheck(count: 500, input: input) { number, section, before throws in
            var inserted = ByteWriter()
            inserted.append(contentsOf: before)
            let start = inserted.bytes.count
            inserted.append(contentsOf: section)
            inserted.insertVarint(number, at: start)
            var written = ByteWriter()
            written.append(contentsOf: before)
            written.appendVarint(number)
            written.append(contentsOf: section)
            #expect(inserted.bytes == written.bytes)
            #expect(inserted.bytes.count == before.count + ByteWriter.varintByteCount(number) + section.count)
        }
        // An offset past the end appends, one before the start prepends.
        var writer = ByteWriter()
        writer.append(contentsOf: [9, 9])
        writer.insertVarint(300, at: 10)
        writer.insertVarint(1, at: -4)
        #expect(writer.bytes == [1, 9, 9, 0xAC, 0x02])
    }

    /// A length written in place after what it measures gives the bytes of one written first,
    /// whatever width was set aside for it (too narrow, exact, too wide) and however long
    /// what it measures is (across the one-, two- and three-byte varints).
    @Test func lengthsWrittenInPlaceAreThoseWrittenFirst() async {
        let input = zip(Gen<UInt8>.value(in: 0...255).array(of: 0...20), Gen<Int>.value(in: 0...20_000),
                        Gen<Int>.value(in: -1...11), Gen<UInt8>.value(in: 0...255))
        await propertyCheck(count: 300, input: input) { before, length, width, fill in
            let body = [UInt8](repeating: fill, count: length)
            var inPlace = ByteWriter()
            inPlace.append(contentsOf: before)
            inPlace.appendLengthPrefixed(lengthByteCount: width) { writer in
                // Written in pieces, as an entry's record and changes are.
                writer.append(contentsOf: body.prefix(length / 2))
                writer.append(contentsOf: body.dropFirst(length / 2))
            }
            var first = ByteWriter()
            first.append(contentsOf: before)
            first.appendLengthPrefixed(body)
            #expect(inPlace.bytes == first.bytes)
        }
    }
}
