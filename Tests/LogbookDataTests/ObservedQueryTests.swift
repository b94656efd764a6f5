import Foundation
import Logbook
import LogbookCRDT
import LogbookData
import LogbookTesting
import Observation
import Testing

// An observed query yields the answer, then again only for commits that touch it: a message of
// another conversation, or one older than a full page's last, yields nothing (the next answer
// received is the one after the next touching write); a burst of touching writes is coalesced;
// LiveQuery keeps `models` current on the main actor and tells Observation when it changes.
@Suite(.timeLimit(.minutes(1))) struct ObservedQueryTests {
    struct Note: LogbookModel, Equatable {
        var id: Int
        var conversation: String
        var sentAt: Double
        var text: String
    }

    static func withNotes(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Logbook, ModelIndex<Note>) async throws -> Void
    ) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let index = ModelIndex(Note.self, on: ["conversation", "sentAt"])
        var options = LogbookOptions()
        options.views = [index]
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
        for number in 0..<5 {
            try await logbook.save(
                Note(
                    id: number, conversation: "c1", sentAt: Double(10 + number), text: "n\(number)")
            )
        }
        try await body(logbook, index)
        try logbook.close()
    }

    @Test func itYieldsAgainOnlyForCommitsThatTouchTheAnswer() async throws {
        try await Self.withNotes { logbook, index in
            var answers = logbook.observe(
                index, .equal("c1"), order: .descending, limit: 3, coalescing: .milliseconds(5)
            ).makeAsyncIterator()
            func next() async throws -> [Int] { try await answers.next()?.get().map(\.id) ?? [] }
            #expect(try await next() == [4, 3, 2])
            try await logbook.save(Note(id: 100, conversation: "c2", sentAt: 99, text: "elsewhere"))
            try await logbook.save(
                Note(id: 101, conversation: "c1", sentAt: 1, text: "older than the page"))
            try await logbook.save(Note(id: 102, conversation: "c1", sentAt: 50, text: "newest"))
            #expect(
                try await next() == [102, 4, 3], "nothing was yielded for the two writes before")
            try await logbook.update(Note.self, id: 3) { $0.text = "edited" }
            #expect(try await next() == [102, 4, 3])
            try await logbook.delete(Note.self, id: 4)
            #expect(try await next() == [102, 3, 2])
        }
    }

    @Test func aBurstOfTouchingCommitsIsCoalesced() async throws {
        try await Self.withNotes { logbook, index in
            var answers = logbook.observe(
                index, .equal("c1"), order: .descending, limit: 1, coalescing: .milliseconds(200)
            ).makeAsyncIterator()
            _ = await answers.next()
            let started = ContinuousClock.now
            for number in 0..<300 {
                try await logbook.save(
                    Note(
                        id: 1000 + number, conversation: "c1", sentAt: Double(100 + number),
                        text: ""))
            }
            let elapsed = ContinuousClock.now - started
            var yields = 0
            var last: [Int] = []
            while last != [1299] {
                guard let answer = await answers.next() else { break }
                last = try answer.get().map(\.id)
                yields += 1
            }
            #expect(last == [1299])
            // At most one answer per 200 ms of writing, plus the one after the last write.
            let bound = Int(elapsed / .milliseconds(200)) + 2
            #expect(yields <= bound, "\(yields) answers for 300 commits over \(elapsed)")
        }
    }

    @MainActor @Test func liveQueryFollowsTheLogbookOnTheMainActor() async throws {
        try await Self.withNotes { logbook, index in
            let live = LiveQuery(
                logbook, index, .equal("c1"), order: .descending, limit: 2,
                coalescing: .milliseconds(5))
            try await Self.waitUntil { live.models.map(\.id) == [4, 3] }
            let changed = ChangeFlag()
            withObservationTracking {
                _ = live.models
            } onChange: {
                changed.set()
            }
            try await logbook.save(Note(id: 7, conversation: "c1", sentAt: 70, text: "new"))
            try await Self.waitUntil { live.models.map(\.id) == [7, 4] }
            #expect(changed.isSet, "Observation was told")
            #expect(live.error == nil)
        }
    }

    /// Waits up to ten seconds for `condition`.
    @MainActor static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met in 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    final class ChangeFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }
}
