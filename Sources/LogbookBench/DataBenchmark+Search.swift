import Foundation
import Logbook
import LogbookData
import LogbookViews

extension DataBenchmark {
    /// Full-text search of the messages' text through a `ModelSearchIndex`: the first
    /// search after the import (it builds the postings), then a term one message holds and
    /// terms every message holds, each read back as models.
    func search(_ models: [Message]) async throws -> [BenchFigure] {
        progress("data: full-text search of \(models.count) messages")
        let index = ModelSearchIndex(Message.self, on: ["text"])
        let logbook = try await filledLogbook("search", views: [index], holding: models)
        let first = ContinuousClock.now
        let built = try logbook.search(index, "lamp", limit: 20)
        let buildSeconds = (ContinuousClock.now - first).seconds
        var rare = LatencyRecorder()
        var common = LatencyRecorder()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<runs {
            for asked in 0..<queries {
                let number = Int.random(in: 0..<models.count, using: &random)
                let started = ContinuousClock.now
                let hits = try logbook.search(index, String(number), limit: 20)
                rare.record(ContinuousClock.now - started)
                guard hits.map(\.model.id) == [number] else {
                    throw LogbookError(
                        .invalidChange, "a search for \(number) found \(hits.map(\.model.id))")
                }
                // Every message holds these: each such search scores the whole corpus.
                guard asked % 20 == 0 else { continue }
                let before = ContinuousClock.now
                _ = try logbook.search(index, "kitchen lamp", limit: 20)
                common.record(ContinuousClock.now - before)
            }
        }
        try logbook.close()
        guard built.count == min(20, models.count) else {
            throw LogbookError(.invalidChange, "a search for lamp found \(built.count) messages")
        }
        return [
            BenchFigure(
                system: "Logbook", name: "data: first search after the import, postings built",
                kind: "search build", changesPerSecond: Double(models.count) / buildSeconds,
                note: String(
                    format: "messages/s; %.3f s for %d messages", buildSeconds, models.count)),
            BenchFigure(
                system: "Logbook",
                name: "data: search, a term one message of \(models.count) holds",
                kind: "search", changesPerSecond: 1e6 / max(rare.percentiles()?.p50 ?? 1, 0.001),
                latency: rare.percentiles(), note: "searches/s at the median, the hit decoded"),
            BenchFigure(
                system: "Logbook", name: "data: search, terms every message holds, top 20",
                kind: "search", changesPerSecond: 1e6 / max(common.percentiles()?.p50 ?? 1, 0.001),
                latency: common.percentiles(),
                note: "searches/s at the median; scores every message"),
        ]
    }
}
