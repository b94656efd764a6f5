import Foundation
import Logbook
import LogbookCRDT
import LogbookData
import Testing

// Models in transactions: a body sees its own saves; a message moved to another conversation
// and its rooms' counts change together or not at all; a refusal inside (a deleted model)
// writes nothing of the transaction; concurrent updates of one model's property lose no
// increment, because `update` is a transaction that runs again on conflict.
@Suite struct ModelTransactionTests {
    struct Conversation: LogbookModel, Equatable {
        var id: String
        var messageCount: Int
    }

    @Test func aMoveAndTheCountsCommitTogether() async throws {
        try await withLogbook { logbook, _ in
            var message = Message.sample()
            try await logbook.save([
                Conversation(id: "c1", messageCount: 1), Conversation(id: "c2", messageCount: 0),
            ])
            try await logbook.save(message)
            message.conversation = "c2"
            let changes = try await logbook.transactionWithChanges { transaction in
                try transaction.save(message)
                try transaction.update(Conversation.self, id: "c1") { $0.messageCount -= 1 }
                try transaction.update(Conversation.self, id: "c2") { $0.messageCount += 1 }
                // Its own writes, read back before the commit.
                return try transaction.model(Message.self, id: message.id)?.conversation
            }
            #expect(changes.result == "c2")
            #expect(changes.changes.count == 3, "one column per changed property")
            #expect(try logbook.model(Message.self, id: message.id) == message)
            #expect(try logbook.model(Conversation.self, id: "c1")?.messageCount == 0)
            #expect(try logbook.model(Conversation.self, id: "c2")?.messageCount == 1)
        }
    }

    @Test func aDeletedModelInsideRefusesTheWholeTransaction() async throws {
        try await withLogbook { logbook, _ in
            let gone = Message.sample("gone")
            try await logbook.save(gone)
            try await logbook.delete(Message.self, id: gone.id)
            let clock = logbook.clock()
            do {
                try await logbook.transaction { transaction in
                    try transaction.save(Conversation(id: "c9", messageCount: 1))
                    try transaction.save(gone)
                }
                Issue.record("a deleted model was saved")
            } catch let error as ModelError {
                #expect(error == .deleted(recordId: gone.recordId), "\(error)")
            }
            #expect(try logbook.model(Conversation.self, id: "c9") == nil)
            #expect(logbook.clock() == clock, "nothing was written")
        }
    }

    @Test func concurrentUpdatesOfOneModelLoseNothing() async throws {
        try await withLogbook { logbook, _ in
            try await logbook.save(Conversation(id: "c1", messageCount: 0))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        for _ in 0..<100 {
                            try await logbook.update(Conversation.self, id: "c1") {
                                $0.messageCount += 1
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try logbook.model(Conversation.self, id: "c1")?.messageCount == 200)
        }
    }
}
