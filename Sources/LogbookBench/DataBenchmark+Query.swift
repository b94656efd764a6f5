import Foundation
import GRDB
import Logbook
import LogbookCRDT
import LogbookData

extension DataBenchmark {
    /// The 50 newest messages of a random conversation, `queries` times: a `ModelIndex` on
    /// (conversation, sentAt) read in descending order and decoded, next to GRDB selecting
    /// the same rows through an index on the same columns and building the same structs.
    func query(_ models: [Message]) async throws -> [BenchFigure] {
        progress("data: 50 newest of a conversation, Logbook index and SQLite index")
        let index = ModelIndex(Message.self, on: ["conversation", "sentAt"])
        let logbook = try await filledLogbook("query", views: [index], holding: models)
        let database = try sqliteMessages(models)
        var random = SystemRandomNumberGenerator()
        let asked = (0..<queries).map { _ in
            "conversation/\(Int.random(in: 0..<Self.conversations, using: &random))"
        }
        var logbookLatency = LatencyRecorder()
        var sqliteLatency = LatencyRecorder()
        var found = (logbook: 0, sqlite: 0)
        for _ in 0..<runs {
            for conversation in asked {
                let started = ContinuousClock.now
                let page = try logbook.query(
                    index, .equal(.string(conversation)), order: .descending, limit: 50)
                logbookLatency.record(ContinuousClock.now - started)
                found.logbook += page.models.count
                let before = ContinuousClock.now
                let rows = try newest(of: conversation, in: database)
                sqliteLatency.record(ContinuousClock.now - before)
                found.sqlite += rows.count
            }
        }
        try logbook.close()
        guard found.logbook == found.sqlite else {
            throw LogbookError(
                .invalidChange, "the index found \(found.logbook) messages, SQLite \(found.sqlite)")
        }
        let (ours, theirs) = (logbookLatency.percentiles(), sqliteLatency.percentiles())
        let ratio = (theirs?.p50 ?? 0) / max(ours?.p50 ?? 1, 0.001)
        return [
            BenchFigure(
                system: "Logbook",
                name: "data: 50 newest of a conversation among \(models.count), ModelIndex",
                kind: "query", changesPerSecond: 1e6 / max(ours?.p50 ?? 1, 0.001), latency: ours,
                note: String(format: "queries/s at the median; %.1fx SQLite's median", ratio)),
            BenchFigure(
                system: "SQLite",
                name: "data: the same query, GRDB, index on (conversation, sentAt)",
                kind: "query", changesPerSecond: 1e6 / max(theirs?.p50 ?? 1, 0.001),
                latency: theirs,
                note: "queries/s at the median; rows decoded into the same structs"),
        ]
    }

    /// GRDB's side of the query, synchronous as an app's read on its own queue is.
    private func newest(of conversation: String, in database: DatabaseQueue) throws -> [Message] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM messages WHERE conversation = ? ORDER BY sentAt DESC LIMIT 50",
                arguments: [conversation]
            ).map { row in
                Message(
                    id: row["id"], conversation: row["conversation"], author: row["author"],
                    sentAt: Date(timeIntervalSinceReferenceDate: row["sentAt"]), text: row["text"],
                    tokens: row["tokens"])
            }
        }
    }

    /// The messages in an SQLite table with an index on (conversation, sentAt).
    private func sqliteMessages(_ models: [Message]) throws -> DatabaseQueue {
        let path = directory + "/messages.sqlite"
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation TEXT NOT NULL,
                      author TEXT NOT NULL, sentAt REAL NOT NULL, text TEXT NOT NULL, tokens INTEGER NOT NULL);
                    CREATE INDEX messages_by_conversation ON messages (conversation, sentAt);
                    """)
            let statement = try db.makeStatement(sql: "INSERT INTO messages VALUES (?,?,?,?,?,?)")
            for model in models {
                try statement.execute(arguments: [
                    model.id, model.conversation, model.author,
                    model.sentAt.timeIntervalSinceReferenceDate,
                    model.text, model.tokens,
                ])
            }
        }
        return queue
    }

    /// A write's call to an observer's receipt of its commit, one write at a time (buffered:
    /// the commit is the write's return, so this is the delivery's own cost).
    func observerDelivery() async throws -> [BenchFigure] {
        progress("data: commit to observer delivery")
        let path = directory + "/observed"
        try? FileManager.default.removeItem(atPath: path)
        let logbook = try Logbook.open(directory: path, nodeId: 1, options: Self.options())
        var latency = LatencyRecorder()
        var stream = logbook.committedChanges().makeAsyncIterator()
        for number in 0..<(2000 * runs) {
            let started = ContinuousClock.now
            try await logbook.insertOrUpdate(
                "observed/\(number % 100)", fields: [("n", .int(Int64(number)))])
            _ = await stream.next()
            latency.record(ContinuousClock.now - started)
        }
        try logbook.close()
        let percentiles = latency.percentiles()
        return [
            BenchFigure(
                system: "Logbook", name: "data: a write to its observer's delivery, buffered",
                kind: "observe",
                changesPerSecond: 1e6 / max(percentiles?.p50 ?? 1, 0.001), latency: percentiles,
                note: "deliveries/s at the median, one write at a time (write included)")
        ]
    }

    /// The messages' log opened with no view and with the conversation index rebuilt by
    /// replay (no checkpoint).
    func indexRebuild(_ models: [Message]) async throws -> [BenchFigure] {
        progress("data: open with and without the index rebuilt")
        let path = directory + "/query"  // written by `query`, 6 changes a message
        let (plain, _) = try await measure(runs: runs) {
            let started = ContinuousClock.now
            let logbook = try Logbook.open(directory: path, options: Self.options())
            let seconds = (ContinuousClock.now - started).seconds
            try logbook.close()
            return seconds
        }
        let (indexed, _) = try await measure(runs: runs) {
            let index = ModelIndex(Message.self, on: ["conversation", "sentAt"])
            let started = ContinuousClock.now
            let logbook = try Logbook.open(directory: path, options: Self.options([index]))
            let seconds = (ContinuousClock.now - started).seconds
            try logbook.close()
            return seconds
        }
        let changes = Double(models.count * 6)
        return [
            BenchFigure(
                system: "Logbook", name: "data: open, no view", kind: "open",
                changesPerSecond: changes / plain,
                note: String(format: "%.3f s for %.0f changes", plain, changes)),
            BenchFigure(
                system: "Logbook", name: "data: open, index rebuilt by replay",
                kind: "open indexed",
                changesPerSecond: changes / indexed,
                note: String(
                    format: "%.3f s: %.3f s beyond the plain open, %.3f s per million changes",
                    indexed,
                    indexed - plain, (indexed - plain) / changes * 1e6)),
        ]
    }
}
