import Foundation
import Logbook
import LogbookCRDT
import LogbookData
import LogbookTesting
import Synchronization
import Testing

// A model changes shape between versions of an app: a property renamed, one added, one
// dropped. Records of the old shape still decode; a versioned migration rewrites them once
// per replica, as CRDT writes, and two replicas migrating the same records agree.
@Suite struct SchemaEvolutionTests {
    /// A note as version 1 of the app stores it.
    struct NoteV1: LogbookModel, Equatable {
        static let recordPrefix = "note/"
        var id: String
        var body: String
        var color: String?
    }

    /// Version 2: `body` is now `text`, `pinned` is new, `color` is gone.
    struct Note: LogbookModel, Equatable {
        static let recordPrefix = "note/"
        static let renamedColumns = ["text": ["body"]]
        static let columnDefaults: [String: Value] = ["pinned": .bool(false)]
        static let schemaVersion = 2
        var id: String
        var text: String
        var pinned: Bool
    }

    /// Version 2 without saying what changed.
    struct UnmappedNote: LogbookModel {
        static let recordPrefix = "note/"
        var id: String
        var text: String
        var pinned: Bool
    }

    /// Counts the records a step ran on.
    final class Runs: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Version 2's migration: marks the text (not idempotent, so a record migrated twice
    /// shows it twice).
    static func migrations(_ runs: Runs) -> [ModelMigration<Note>] {
        [
            ModelMigration(version: 2) { (note: inout Note) in
                runs.count.add(1, ordering: .relaxed)
                note.text += " (v2)"
            }
        ]
    }

    static func saveOldNotes(_ logbook: Logbook, _ ids: Range<Int>) async throws {
        try await logbook.save(ids.map { NoteV1(id: "n\($0)", body: "note \($0)", color: "red") })
    }

    @Test func oldRecordsDecodeThroughRenamesAndDefaults() async throws {
        try await withLogbook { logbook, _ in
            try await logbook.save(NoteV1(id: "a", body: "milk", color: "red"))
            #expect(
                try logbook.model(Note.self, id: "a") == Note(id: "a", text: "milk", pinned: false))
            #expect(throws: ModelError.self) { try logbook.model(UnmappedNote.self, id: "a") }
            try await logbook.update(Note.self, id: "a") { $0.pinned = true }
            let fields = logbook.getRecord("note/a")?.fields ?? [:]
            #expect(fields["text"] == .string("milk") && fields["pinned"] == .bool(true))
            // The old column and the dropped property's stay for older versions of the app.
            #expect(fields["body"] == .string("milk") && fields["color"] == .string("red"))
            #expect(try logbook.model(NoteV1.self, id: "a")?.body == "milk")
        }
    }

    struct Counter: LogbookModel, Equatable {
        var id: Int
        var count: Int
    }

    @Test func aRecordWithoutAnIdColumnTakesItsIdFromTheRecordId() async throws {
        try await withLogbook { logbook, _ in
            // As a crdt-lite client or an importer writes records: no `id` column.
            try await logbook.insertOrUpdate("note/plain", fields: [("text", .string("tea"))])
            try await logbook.insertOrUpdate("counter/42", fields: [("count", .int(7))])
            try await logbook.insertOrUpdate("counter/x", fields: [("count", .int(1))])
            #expect(
                try logbook.model(Note.self, id: "plain")
                    == Note(id: "plain", text: "tea", pinned: false))
            #expect(try logbook.model(Counter.self, id: 42) == Counter(id: 42, count: 7))
            // A key the id type cannot spell is still a missing id.
            #expect(throws: ModelError.self) { try logbook.models(Counter.self) }
        }
    }

    @Test func aMigrationRunsOncePerReplicaInSlices() async throws {
        try await withLogbook { logbook, _ in
            try await Self.saveOldNotes(logbook, 0..<600)
            try await logbook.save(Note(id: "new", text: "fresh", pinned: true))
            #expect(
                logbook.getRecord("note/new")?.field(ModelMigration<Note>.versionColumn) == .int(2))
            let runs = Runs()
            let first = try await logbook.migrate(Note.self, Self.migrations(runs))
            #expect(first.fromVersion == 0 && first.toVersion == 2)
            #expect(first.recordsExamined == 601 && first.recordsMigrated == 600)
            #expect(first.transactions == 3)
            let second = try await logbook.migrate(Note.self, Self.migrations(runs))
            #expect(second.fromVersion == 2 && second.transactions == 0)
            #expect(runs.count.load(ordering: .relaxed) == 600)
            let notes = try logbook.models(Note.self)
            #expect(notes.filter { $0.text.hasSuffix("(v2)") }.count == 600)
            #expect(notes.allSatisfy { !$0.text.hasSuffix("(v2) (v2)") })
            #expect(try logbook.model(Note.self, id: "new")?.text == "fresh")
            #expect(logbook.getRecord("note/n7")?.field("$schema") == .int(2))
        }
    }

    @Test func twoReplicasMigratingTheSameRecordsAgree() async throws {
        try await withLogbook(nodeId: 1) { a, _ in
            try await withLogbook(nodeId: 2) { b, _ in
                try await Self.saveOldNotes(a, 0..<40)
                try await b.merge(a.getChangesSince(0))
                // Both migrate before either sees the other's migration.
                async let fromA = a.migrate(Note.self, Self.migrations(Runs()))
                async let fromB = b.migrate(Note.self, Self.migrations(Runs()))
                #expect(try await fromA.recordsMigrated == 40)
                #expect(try await fromB.recordsMigrated == 40)
                try await a.merge(b.getChangesSince(0))
                try await b.merge(a.getChangesSince(0))
                let notes = try a.models(Note.self)
                #expect(notes == (try b.models(Note.self)))
                #expect(notes.count == 40 && notes.allSatisfy { $0.text.hasSuffix(" (v2)") })
                #expect(notes.allSatisfy { !$0.text.hasSuffix("(v2) (v2)") })
            }
        }
    }

    @Test func aReplicaThatMergedMigratedRecordsDoesNotMigrateThemAgain() async throws {
        try await withLogbook(nodeId: 1) { a, _ in
            try await withLogbook(nodeId: 2) { b, _ in
                try await Self.saveOldNotes(a, 0..<30)
                try await Self.saveOldNotes(b, 30..<35)  // only b has these yet
                try await a.migrate(Note.self, Self.migrations(Runs()))
                try await b.merge(a.getChangesSince(0))
                let runs = Runs()
                let report = try await b.migrate(Note.self, Self.migrations(runs))
                #expect(report.recordsExamined == 35 && report.recordsMigrated == 5)
                #expect(runs.count.load(ordering: .relaxed) == 5)
                try await a.merge(b.getChangesSince(0))
                let notes = try a.models(Note.self)
                #expect(notes.count == 35 && notes.allSatisfy { $0.text.hasSuffix(" (v2)") })
                #expect(notes.allSatisfy { !$0.text.hasSuffix("(v2) (v2)") })
            }
        }
    }

    @Test func aFailingStepWritesNothingOfItsSliceAndRunsAgainNextTime() async throws {
        try await withLogbook { logbook, _ in
            try await Self.saveOldNotes(logbook, 0..<10)
            struct Refused: Error {}
            let failing = ModelMigration<Note>(
                version: 1,
                columns: { columns in
                    if columns["body"] == .string("note 7") { throw Refused() }
                    columns["text"] = columns["body"]
                    columns["body"] = nil
                })
            let before = logbook.stateDigest()
            await #expect(throws: ModelError.self) {
                try await logbook.migrate(Note.self, [failing])
            }
            #expect(logbook.stateDigest() == before)
            let moving = ModelMigration<Note>(
                version: 1,
                columns: { columns in
                    columns["text"] = columns["body"]
                    columns["body"] = nil
                })
            let report = try await logbook.migrate(Note.self, [moving])
            #expect(report.recordsMigrated == 10 && report.toVersion == 1)
            let fields = logbook.getRecord("note/n7")?.fields ?? [:]
            #expect(fields["text"] == .string("note 7") && fields["body"] == nil)
        }
    }

    @Test func migrationsOutsideTheSchemaVersionAreRefused() async throws {
        try await withLogbook { logbook, _ in
            let beyond = ModelMigration<Note>(version: 3, columns: { _ in })
            let twice =
                [ModelMigration<Note>(version: 1, columns: { _ in })]
                + [ModelMigration<Note>(version: 1, columns: { _ in })]
            for migrations in [[beyond], twice] {
                do {
                    try await logbook.migrate(Note.self, migrations)
                    Issue.record("accepted \(migrations.map(\.version))")
                } catch let error as ModelError {
                    guard case .invalidMigration = error else {
                        Issue.record("\(error)")
                        continue
                    }
                }
            }
        }
    }
}
