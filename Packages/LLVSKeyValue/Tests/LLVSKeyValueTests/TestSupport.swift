import Foundation
import LLVSKeyValue
import LLVSTesting

extension Author {
    /// The README's fixed test authors.
    static let alice = Author(id: UUID(uuidString: "A11CE000-0000-0000-0000-000000000000") ?? UUID(), name: "Alice")
    static let bob = Author(id: UUID(uuidString: "B0B00000-0000-0000-0000-000000000000") ?? UUID(), name: "Bob")
}

extension TemporaryDirectory {
    /// A path inside the directory (nothing is created there).
    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}
