import Foundation
import Logbook
import LogbookCRDT
import LogbookData
import LogbookTesting
import Testing

// Saving, reading, updating and deleting models: column by column, as crdt-lite merges.
@Suite struct ModelStoreTests {
    @Test func aSavedModelReadsBackEqualWithOneColumnPerStoredProperty() async throws {
        try await withLogbook { logbook, _ in
            let message = Message.sample()
            let changes = try await logbook.save(message)
            #expect(try logbook.model(Message.self, id: message.id) == message)
            let record = try #require(logbook.getRecord("message/\(message.id.uuidString)"))
            // editedAt, nil, has no column; the other 13 properties have one each.
            #expect(changes.count == 13)
            #expect(Set(record.fields.keys).count == 13)
            #expect(record.fields["editedAt"] == nil)
            #expect(record.fields["tokens"] == .int(-42))
            #expect(record.fields["large"] == .unsigned(.max))
            #expect(record.fields["attachment"] == .bytes([0, 1, 254, 255]))
            #expect(record.fields["link"] == .string("https://example.com/a?b=c"))
            guard case .array(let calls) = record.fields["toolCalls"] else {
                Issue.record("toolCalls is \(String(describing: record.fields["toolCalls"]))")
                return
            }
            #expect(calls.count == 2)
        }
    }

    @Test func savingAnUnchangedModelWritesNothingAndAnUpdateWritesOneColumn() async throws {
        try await withLogbook { logbook, _ in
            let message = Message.sample()
            try await logbook.save(message)
            #expect(try await logbook.save(message).isEmpty)
            let changes = try await logbook.update(Message.self, id: message.id) {
                $0.text = "hello, edited"
            }
            #expect(changes.map(\.colName) == ["text"])
            #expect(try logbook.model(Message.self, id: message.id)?.text == "hello, edited")
        }
    }

    @Test func anOptionalSetToNilErasesItsColumn() async throws {
        try await withLogbook { logbook, _ in
            var message = Message.sample()
            message.editedAt = Date(timeIntervalSinceReferenceDate: 1)
            try await logbook.save(message)
            let changes = try await logbook.update(Message.self, id: message.id) {
                $0.editedAt = nil
                $0.link = nil
            }
            #expect(changes.compactMap(\.colName).sorted() == ["editedAt", "link"])
            #expect(changes.allSatisfy { $0.value == nil })
            let read = try #require(try logbook.model(Message.self, id: message.id))
            #expect(read.editedAt == nil && read.link == nil && read.text == message.text)
        }
    }

    @Test func columnsANewerAppWroteAreKeptByAnOlderOne() async throws {
        try await withLogbook { logbook, _ in
            let message = Message.sample()
            try await logbook.save(message)
            let changes = try await logbook.update(OlderMessage.self, id: message.id) {
                $0.text = "edited on the old app"
                $0.editedAt = nil
            }
            #expect(changes.map(\.colName) == ["text"])
            var expected = message
            expected.text = "edited on the old app"
            #expect(try logbook.model(Message.self, id: message.id) == expected)
        }
    }

    @Test func aDeletedModelIsRefusedWithItsReasonNeverRevived() async throws {
        try await withLogbook { logbook, _ in
            let message = Message.sample()
            try await logbook.save(message)
            #expect(try await logbook.delete(Message.self, id: message.id))
            #expect(try await !logbook.delete(Message.self, id: message.id))
            #expect(try logbook.model(Message.self, id: message.id) == nil)
            let recordId = "message/\(message.id.uuidString)"
            await #expect(throws: ModelError.deleted(recordId: recordId)) {
                try await logbook.save(message)
            }
            await #expect(throws: ModelError.deleted(recordId: recordId)) {
                try await logbook.update(Message.self, id: message.id) { $0.text = "x" }
            }
            #expect("\(ModelError.deleted(recordId: recordId))".contains("never revived"))
            #expect(logbook.getRecord(recordId) == nil)
        }
    }

    @Test func aSaveOfSeveralIsWholeOrNothingAndTheLastOfOneIdWins() async throws {
        try await withLogbook { logbook, _ in
            let kept = Message.sample("kept")
            let gone = Message.sample("gone")
            try await logbook.save(gone)
            try await logbook.delete(Message.self, id: gone.id)
            let before = logbook.stateDigest()
            await #expect(throws: ModelError.deleted(recordId: gone.recordId)) {
                try await logbook.save([kept, gone])
            }
            #expect(logbook.stateDigest() == before, "nothing of the call was written")
            var edited = kept
            edited.text = "edited"
            edited.editedAt = Date(timeIntervalSinceReferenceDate: 900_000_000)
            try await logbook.save([kept, edited])
            #expect(try logbook.model(Message.self, id: kept.id) == edited)
            try await logbook.save([edited, kept])
            #expect(try logbook.model(Message.self, id: kept.id) == kept, "editedAt erased again")
        }
    }

    @Test func anUpdateOfNothingOrOfTheIdIsRefused() async throws {
        try await withLogbook { logbook, _ in
            let missing = UUID()
            await #expect(
                throws: ModelError.notFound(recordId: "message/\(missing.uuidString)")
            ) {
                try await logbook.update(Message.self, id: missing) { $0.text = "x" }
            }
            let message = Message.sample()
            try await logbook.save(message)
            await #expect {
                try await logbook.update(Message.self, id: message.id) { $0.id = UUID() }
            } throws: { error in
                guard case ModelError.unencodable(_, "id", _) = error else { return false }
                return true
            }
        }
    }

    @Test func modelsListsOneTypeInRecordIdOrderWithAComputedId() async throws {
        try await withLogbook { logbook, _ in
            let rooms = [
                Room(home: "h2", name: "hall"), Room(home: "h1", name: "kitchen"),
                Room(home: "h1", name: "bath"),
            ]
            try await logbook.save(rooms)
            try await logbook.save(Message.sample())
            #expect(
                logbook.getRecord("room/h1/kitchen")?.fields == ["home": "h1", "name": "kitchen"])
            #expect(
                try logbook.models(Room.self).map(\.id) == ["h1/bath", "h1/kitchen", "h2/hall"])
            #expect(try logbook.models(Message.self).count == 1)
        }
    }

    @Test func twoReplicasEditingDifferentPropertiesBothKeepTheirEdits() async throws {
        try await withLogbook(nodeId: 1) { phone, _ in
            try await withLogbook(nodeId: 2) { laptop, _ in
                let message = Message.sample()
                try await laptop.merge(try await phone.save(message))
                try await phone.update(Message.self, id: message.id) { $0.text = "from phone" }
                try await laptop.update(Message.self, id: message.id) { $0.tokens = 7 }
                try await laptop.merge(phone.getChangesSince(0))
                try await phone.merge(laptop.getChangesSince(0))
                var expected = message
                expected.text = "from phone"
                expected.tokens = 7
                #expect(try phone.model(Message.self, id: message.id) == expected)
                #expect(try laptop.model(Message.self, id: message.id) == expected)
            }
        }
    }

    @Test func aBatchSaveIsDurableAcrossAReopen() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let messages = (0..<2_000).map { Message.sample("message \($0)") }
        do {
            let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
            try await logbook.save(messages)
            try logbook.close()
        }
        let reopened = try Logbook.open(directory: directory.path, nodeId: 1)
        defer { try? reopened.close() }
        let read = try reopened.models(Message.self)
        #expect(read.count == 2_000)
        #expect(Set(read.map(\.id)) == Set(messages.map(\.id)))
        #expect(try reopened.model(Message.self, id: messages[1_234].id) == messages[1_234])
    }
}
