import Foundation
import Logbook
import LogbookCRDT
import LogbookData

/// `logbook bench data`: the data layer beside what it replaces, in one run. Typed puts and
/// gets of a six-property message model next to the same columns written and read untyped;
/// "the 50 newest messages of one conversation" through a `ModelIndex` next to GRDB running
/// the same query over the same rows with an index; full-text search of the messages; a
/// commit's delivery to an observer; and an open that rebuilds the index next to one
/// without it.
struct DataBenchmark {
    var directory: String
    var messages: Int
    var queries: Int
    var runs: Int
    var progress: (String) -> Void

    /// The model measured: six properties, a short text.
    struct Message: LogbookModel, Equatable {
        var id: Int
        var conversation: String
        var author: String
        var sentAt: Date
        var text: String
        var tokens: Int
    }

    static let conversations = 500

    func message(_ number: Int) -> Message {
        Message(
            id: number, conversation: "conversation/\(number % Self.conversations)",
            author: number % 2 == 0 ? "user" : "assistant",
            sentAt: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(number)),
            text: "message \(number) about the kitchen lamp", tokens: number % 97)
    }

    func run() async throws -> [BenchFigure] {
        let models = (0..<messages).map(message)
        var figures = try await putsAndGets(models)
        figures += try await query(models)
        figures += try await search(models)
        figures += try await observerDelivery()
        figures += try await indexRebuild(models)
        return figures
    }

    static func options(_ views: [any MaterializedView] = []) -> LogbookOptions {
        var options = LogbookOptions()
        options.durability = .buffered  // the code's cost, not the disk's syncs
        options.views = views
        return options
    }

    /// One call a record: `save(model)` against `write([insertOrUpdate])` of its columns;
    /// then every record read back, typed and untyped.
    private func putsAndGets(_ models: [Message]) async throws -> [BenchFigure] {
        let puts = min(models.count, 20_000)
        progress("data: \(puts) typed and untyped puts, one a call")
        // The columns as an app writing records by hand would build them.
        let untypedWrites: [LocalWrite] = models.prefix(puts).map { model in
            .insertOrUpdate(
                model.recordId,
                fields: [
                    ("author", .string(model.author)),
                    ("conversation", .string(model.conversation)),
                    ("id", .int(Int64(model.id))),
                    ("sentAt", .double(model.sentAt.timeIntervalSinceReferenceDate)),
                    ("text", .string(model.text)), ("tokens", .int(Int64(model.tokens))),
                ])
        }
        let (untypedSeconds, _) = try await measure(runs: runs) {
            try await timed(fresh: "untyped") { logbook in
                for write in untypedWrites { try await logbook.write([write]) }
            }
        }
        let (typedSeconds, _) = try await measure(runs: runs) {
            try await timed(fresh: "typed") { logbook in
                for model in models.prefix(puts) { try await logbook.save(model) }
            }
        }
        progress("data: \(models.count) typed and untyped gets")
        let logbook = try await filledLogbook("gets", holding: models)
        let ids = models.map(\.id)
        let (typedGetSeconds, _) = try await measure(runs: runs) {
            let started = ContinuousClock.now
            for id in ids { _ = try logbook.model(Message.self, id: id) }
            return (ContinuousClock.now - started).seconds
        }
        let recordIds = models.map(\.recordId)
        let (untypedGetSeconds, _) = await measure(runs: runs) {
            let started = ContinuousClock.now
            for recordId in recordIds { _ = logbook.getRecord(recordId)?.fields }
            return (ContinuousClock.now - started).seconds
        }
        try logbook.close()
        let typedPuts = Double(puts) / typedSeconds
        let untypedPuts = Double(puts) / untypedSeconds
        return [
            BenchFigure(
                system: "Logbook", name: "data: typed put, save(model), one a call",
                kind: "typed put",
                changesPerSecond: typedPuts,
                note: String(
                    format: "records/s; %.0f%% of the untyped rate", 100 * typedPuts / untypedPuts)),
            BenchFigure(
                system: "Logbook", name: "data: untyped put, write([insertOrUpdate]), one a call",
                kind: "untyped put", changesPerSecond: untypedPuts,
                note: "records/s, the same six columns"),
            BenchFigure(
                system: "Logbook", name: "data: typed get, model(_:id:)", kind: "typed get",
                changesPerSecond: Double(models.count) / typedGetSeconds, note: "records/s, decoded"
            ),
            BenchFigure(
                system: "Logbook", name: "data: untyped get, getRecord(_:).fields",
                kind: "untyped get",
                changesPerSecond: Double(models.count) / untypedGetSeconds, note: "records/s"),
        ]
    }

    /// A fresh Logbook under `name` keeping `views`, holding `models` saved 1,000 a call.
    func filledLogbook(
        _ name: String, views: [any MaterializedView] = [], holding models: [Message]
    ) async throws -> Logbook {
        let path = directory + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        let logbook = try Logbook.open(directory: path, nodeId: 1, options: Self.options(views))
        for start in stride(from: 0, to: models.count, by: 1000) {
            try await logbook.save(Array(models[start..<min(start + 1000, models.count)]))
        }
        return logbook
    }

    /// Opens a fresh Logbook under `name`, runs `body` on it, syncs; returns its seconds.
    private func timed(fresh name: String, _ body: (Logbook) async throws -> Void) async throws
        -> Double
    {
        let path = directory + "/" + name
        try? FileManager.default.removeItem(atPath: path)
        let logbook = try Logbook.open(directory: path, nodeId: 1, options: Self.options())
        let started = ContinuousClock.now
        try await body(logbook)
        try logbook.sync()
        let seconds = (ContinuousClock.now - started).seconds
        try logbook.close()
        return seconds
    }
}
