import Foundation
import LLVSKeyValue

extension Author {
    /// The README's fixed test authors.
    static let alice = Author(id: UUID(uuidString: "A11CE000-0000-0000-0000-000000000000") ?? UUID(), name: "Alice")
    static let bob = Author(id: UUID(uuidString: "B0B00000-0000-0000-0000-000000000000") ?? UUID(), name: "Bob")
}

/// A fresh directory under the temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("llvs-kv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
