import Crypto
import Foundation
import LLVS
import LLVSTesting
import Testing

/// `import LLVS` exports what an app uses and no internal helper whose name clashes with
/// another library's: this file imports LLVS and swift-crypto together and names Crypto's
/// `Digest`, which would be ambiguous (and this file would not compile) if LLVS exported
/// its map's `Digest`. `Map`, `Hex`, `Locked` and the binary coders are likewise only in
/// LLVSMap and LLVSSupport, imported by name.
@Suite struct UmbrellaSurfaceTests {
    /// A checksum of a stored value, the way an app would take one.
    static func checksum(of data: Data) -> any Digest {
        SHA256.hash(data: data)
    }

    @Test func anAppImportsLLVSAndCryptoTogether() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(rootDirectoryURL: directory.url, storage: MemoryStorage())
        let version = try store.makeVersion(basedOnPredecessor: nil, inserting: [Value(idString: "a", data: Data("apple".utf8))])
        let data = try #require(try store.value(idString: "a", at: version.id)?.data)
        let digest = Self.checksum(of: data)
        #expect(Array(digest.makeIterator()) == Array(SHA256.hash(data: Data("apple".utf8))))
    }
}
