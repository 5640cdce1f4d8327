import Foundation
import LLVSCore
import LLVSModel
import LLVSStore
import LLVSStoreTesting
import Testing

@MergeableModel
struct Appointment: Equatable {
    static let modelTypeIdentifier = "Appointment"
    var title = ""
    var starts = Date(timeIntervalSinceReferenceDate: 0)
    var attendee: ModelReference<Contact>? = nil
    var minutes = 30
    var confirmed = false
    var tags: Set<String> = []
}

@MergeableModel
struct SchemaImpostor: Equatable {
    static let modelTypeIdentifier = "$schema"
    var name = ""
}

/// The model layer records each type's schema in the store (SPEC.md section 17, Recorded
/// schemas): once, rewritten only when it changes, never mistaken for a model.
@Suite struct RecordedSchemaTests {
    @Test func aSchemaDescribesEachPropertysKind() throws {
        let schema = try ModelSchema.of(Appointment.self)
        #expect(schema.typeIdentifier == "Appointment" && schema.modelVersion == 1)
        #expect(schema.properties == [
            .init(name: "title", kind: .text), .init(name: "starts", kind: .date),
            .init(name: "attendee", kind: .reference(targetType: Contact.modelTypeIdentifier)),
            .init(name: "minutes", kind: .integer), .init(name: "confirmed", kind: .boolean), .init(name: "tags", kind: .json),
        ])
        #expect(String(decoding: schema.storedData, as: UTF8.self) == #"{"modelVersion":1,"properties":[{"kind":"text","name":"title"},{"kind":"date","name":"starts"},{"kind":"reference","name":"attendee","target":"Contact"},{"kind":"integer","name":"minutes"},{"kind":"boolean","name":"confirmed"},{"kind":"json","name":"tags"}],"type":"Appointment"}"#)
        #expect(try ModelSchema(recorded: schema.storedData, valueId: schema.valueId) == schema)
        #expect(throws: ModelError.self) { try ModelSchema(recorded: Data(#"{"type":"A"}"#.utf8), valueId: "$schema/A") }
        // A recorded value must describe its own type.
        #expect(ModelSchema(recordedValue: Value(id: "$schema/Appointment", data: schema.storedData)) == schema)
        #expect(ModelSchema(recordedValue: Value(id: "$schema/Other", data: schema.storedData)) == nil)
        #expect(ModelSchema(recordedValue: Value(id: "Appointment/x", data: schema.storedData)) == nil)
    }

    @Test(arguments: StoreReplica.Backend.allCases)
    func savesRecordTheSchemaOnceAndRewriteItOnlyWhenItChanges(_ backend: StoreReplica.Backend) throws {
        let replica = try StoreReplica(backend: backend)
        let store = replica.store
        let first = try store.save(Appointment(title: "a"), instanceIdentifier: "a1", basedOn: nil)
        let schemaId = Value.ID("$schema/Appointment")
        let recorded = try #require(try store.value(id: schemaId, at: first.id))
        #expect(recorded.data == (try ModelSchema.of(Appointment.self)).storedData)
        #expect(try store.recordedModelSchemas(at: first.id) == ["Appointment": try ModelSchema.of(Appointment.self)])

        // Later saves of the type leave it alone: their versions change only the models.
        let second = try store.save(Appointment(title: "b"), instanceIdentifier: "a2", basedOn: first.id)
        #expect(try store.valueChanges(madeBetween: first.id, and: second.id).count == 1)
        // A schema value that differs (another app's) is rewritten by the next save.
        let other = try store.makeVersion(basedOnPredecessor: second.id, storing: [.update(Value(id: schemaId, data: Data("{}".utf8)))])
        let third = try store.save(Appointment(title: "c"), instanceIdentifier: "a3", basedOn: other.id)
        #expect(try store.value(id: schemaId, at: third.id)?.data == recorded.data)
        // The schema is no model of any type, and a removal records nothing.
        #expect(try store.fetchAllModels(Appointment.self, at: third.id).count == 3)
        let removal = try store.removeModel(Appointment.self, instanceIdentifier: "a1", basedOn: third.id)
        #expect(try store.valueChanges(madeBetween: third.id, and: removal.id).count == 1)
    }

    @Test func aTypeCannotBeNamedLikeTheSchemas() throws {
        let replica = try StoreReplica(backend: .memory)
        #expect(throws: ModelError.invalidTypeIdentifier("$schema")) {
            try replica.store.save(SchemaImpostor(), instanceIdentifier: "x", basedOn: nil)
        }
    }
}
