import Foundation
import LLVSModel

// The reference LLVS's test models, as its MergeableArbiterTests declare them.

@MergeableModel
struct Contact: ModelValue, Equatable {
    static let modelTypeIdentifier = "Contact"
    var name: String = ""
    var notes: String = ""
    var age: Int = 0
}

@MergeableModel
struct Tag: ModelValue, Equatable {
    static let modelTypeIdentifier = "Tag"
    var label: String = ""
}

@MergeableModel
struct InnerModel: Codable, Equatable {
    var x: Int = 0
    var y: Int = 0
}

@MergeableModel
struct OuterModel: ModelValue, Equatable {
    static let modelTypeIdentifier = "OuterModel"
    var inner: InnerModel = InnerModel()
    var label: String = ""
}

@MergeableModel
struct OuterOptionalModel: ModelValue, Equatable {
    static let modelTypeIdentifier = "OuterOptionalModel"
    var inner: InnerModel? = nil
    var label: String = ""
}

@MergeableModel
public struct PublicModel: Codable, Equatable {
    public var title: String = ""
    public var count: Int = 0
}

@MergeableModel
struct MultipleBindingModel: Codable, Equatable {
    var first = 0, second = 0
}

// A model with a property of every strategy, for the order and backend tests.

@MergeableModel
struct Item: Codable, Equatable, Identifiable, Hashable {
    var id: String
    var title = ""
    var done = false
}

@MergeableModel(version: 2)
struct Board: Equatable {
    var name = ""
    @Merged(using: .text) var notes = ""
    @Merged(using: .counter) var views = 0
    var labels: Set<String> = []
    var items: [Item] = []
    var scores: [String: Int] = [:]
    @Merged(using: .max) var highWater = 0
    @Merged(using: .min) var lowWater = 100
    var room = MultiValue("kitchen")
    @Merged(using: .custom(LongestName.self)) var nickname = ""
    var owner: ModelReference<Person>?
}

enum LongestName: PropertyMerger {
    static func merge(base: String?, newer: String, older: String) -> String {
        older.unicodeScalars.count > newer.unicodeScalars.count ? older : newer
    }
}

@MergeableModel
struct Person: Equatable {
    var name = ""
}

@MergeableModel(removal: .removalWins, insertion: .newerWins)
struct Draft: Equatable {
    var text = ""
    var author: ModelReference<Fragile>?
}

@MergeableModel(removal: .removalWins)
struct Fragile: Equatable {
    var text = ""
}

/// A hand-written conformance in the reference's style: the whole value merged by the type.
struct Tally: Mergeable, StorableModel, Equatable {
    static let modelTypeIdentifier = "Tally"
    var count = 0

    func merged(withSubordinate other: Tally, commonAncestor: Tally) throws -> Tally {
        Tally(count: count + other.count - commonAncestor.count)
    }
}

/// A hand-written conformance listing its properties.
struct Ledger: Mergeable, StorableModel, Equatable {
    static let modelTypeIdentifier = "Ledger"
    var title = ""
    var entries: Set<String> = []
    var total = 0

    static var mergeSchema: MergeSchema {
        MergeSchema([.automatic("title", \Ledger.title), .set("entries", \Ledger.entries), .counter("total", \Ledger.total)])
    }
}
