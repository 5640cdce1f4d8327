import Foundation
import LLVSCore

/// What the sync algorithm keeps in ``Exchange/restorationState`` (JSON, SPEC.md
/// "Exchange restoration state"): where it stopped reading the other side's list, and the
/// versions known to be there.
struct ExchangeState: Codable, Equatable {
    /// The format of this state; another value is ignored (a full listing follows).
    var format = 1
    /// Where the next retrieve continues reading the other side's list.
    var cursor: ExchangeCursor?
    /// Heads of versions known to be on the other side (each with all its ancestors, since
    /// versions are always sent after their predecessors).
    var remoteHeads: [Version.ID] = []

    /// Decodes a state; a missing, foreign or unreadable one gives a fresh state.
    init(restorationState data: Data?) {
        guard let data, let decoded = try? JSONDecoder().decode(ExchangeState.self, from: data), decoded.format == 1 else {
            self.init()
            return
        }
        self = decoded
    }

    init() {}

    /// The encoded state.
    var encoded: Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try? encoder.encode(self)
    }
}
