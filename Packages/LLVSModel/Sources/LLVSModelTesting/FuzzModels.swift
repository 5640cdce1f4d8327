import Foundation
import LLVSModel

/// The model the model fuzz edits: a property for every strategy, written as a hand-made
/// conformance (so the harness builds without the macros).
public struct FuzzBoard: Mergeable, StorableModel, Equatable, Sendable {
    /// The fuzz's list elements.
    public struct Card: Mergeable, Identifiable, Equatable, Sendable {
        public var id: Int
        public var title: String
        public var points: Int

        public static var mergeSchema: MergeSchema {
            MergeSchema([.automatic("id", \Card.id), .text("title", \Card.title), .counter("points", \Card.points)])
        }
    }

    public static let modelTypeIdentifier = "Board"
    public var name = ""
    public var notes = ""
    public var views = 0
    public var labels: Set<String> = []
    public var cards: [Card] = []
    public var scores: [String: Int] = [:]
    public var high = 0
    public var low = 0
    public var room = MultiValue("r0")
    public var nickname = ""
    public var owner: ModelReference<FuzzPerson>?

    public static var mergeSchema: MergeSchema {
        MergeSchema([
            .automatic("name", \FuzzBoard.name), .text("notes", \FuzzBoard.notes), .counter("views", \FuzzBoard.views),
            .automatic("labels", \FuzzBoard.labels), .list("cards", \FuzzBoard.cards), .dictionary("scores", \FuzzBoard.scores),
            .max("high", \FuzzBoard.high), .min("low", \FuzzBoard.low), .automatic("room", \FuzzBoard.room),
            .custom("nickname", \FuzzBoard.nickname, LongerNickname.self), .automatic("owner", \FuzzBoard.owner),
        ])
    }

    public init() {}
}

/// The fuzz's custom rule: the longer nickname, the newer on a tie.
public enum LongerNickname: PropertyMerger {
    public static func merge(base: String?, newer: String, older: String) -> String {
        older.unicodeScalars.count > newer.unicodeScalars.count ? older : newer
    }
}

/// The model boards refer to; removing one a board newly refers to concurrently keeps it.
public struct FuzzPerson: Mergeable, StorableModel, Equatable, Sendable {
    public static let modelTypeIdentifier = "Person"
    public var name = ""
    public var age = 0

    public static var mergeSchema: MergeSchema {
        MergeSchema([.automatic("name", \FuzzPerson.name), .counter("age", \FuzzPerson.age)])
    }

    public init() {}
}
