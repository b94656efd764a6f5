import Foundation
import Logbook
import LogbookCRDT
import LogbookData
import LogbookTesting
import LogbookViews
import Testing

// Full-text search over a model's chosen properties: seeded saves, edits and deletes on two
// replicas that merge each other's changes; the kept index answers every seeded query as
// BM25 computed from all the models does, and so do the index restored from its checkpoint
// and the one rebuilt by replay.
@Suite struct ModelSearchTests {
    struct ToolCall: Codable, Equatable, Sendable {
        var name: String
        var arguments: [String: String]
    }

    struct Message: LogbookModel, Equatable {
        var id: String
        var conversation: String
        var text: String
        var toolCalls: [ToolCall]
        var tokens: Int
    }

    static let words = [
        "lamp", "kitchen", "light", "door", "lock", "garden", "music", "radio", "night",
        "morning", "warm", "cold", "Lamp", "LIGHTS", "été", "nuit", "42", "b2b",
    ]

    static func searchIndex() -> ModelSearchIndex<Message> {
        ModelSearchIndex(Message.self, on: ["text", "toolCalls"])
    }

    static func open(_ path: String, nodeId: UInt64? = nil, _ index: ModelSearchIndex<Message>)
        throws -> Logbook
    {
        var options = LogbookOptions()
        options.durability = .buffered
        options.views = [index]
        options.viewCheckpoints = true
        return try Logbook.open(directory: path, nodeId: nodeId, options: options)
    }

    static func phrase(_ random: inout SeededGenerator, _ count: ClosedRange<Int>) -> String {
        (0..<Int.random(in: count, using: &random)).map { _ in
            words.randomElement(using: &random) ?? ""
        }.joined(separator: Bool.random(using: &random) ? " " : ", ")
    }

    static func edit(_ logbook: Logbook, steps: Int, random: inout SeededGenerator) async throws {
        for _ in 0..<steps {
            let id = "m\(Int.random(in: 0..<160, using: &random))"
            let text = phrase(&random, 0...8)
            do throws(ModelError) {
                switch Int.random(in: 0..<20, using: &random) {
                case 0..<10:
                    let calls = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                        ToolCall(
                            name: phrase(&random, 1...1), arguments: ["q": phrase(&random, 0...3)])
                    }
                    try await logbook.save(
                        Message(id: id, conversation: "c1", text: text, toolCalls: calls, tokens: 3)
                    )
                case 10..<19:
                    try await logbook.update(Message.self, id: id) { $0.text = text }
                default:
                    try await logbook.delete(Message.self, id: id)
                }
            } catch {
                guard case .deleted = error else {
                    guard case .notFound = error else { throw error }
                    continue
                }
            }
        }
    }

    /// BM25 over every message's text and tool calls, computed from the models.
    static func reference(_ messages: [Message], _ query: String, limit: Int)
        -> [(recordId: String, score: Double)]
    {
        func terms(_ text: String) -> [String] {
            text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
        }
        let documents = messages.map { message in
            terms(message.text)
                + message.toolCalls.flatMap { call in
                    // Object members in key order: "arguments" (its values), then "name".
                    terms(
                        call.arguments.sorted { $0.key < $1.key }.map(\.value).joined(
                            separator: " "))
                        + terms(call.name)
                }
        }
        let count = Double(documents.count)
        let averageLength = max(1, Double(documents.map(\.count).reduce(0, +)) / count)
        let queryTerms = Set(terms(query)).sorted()
        var hits: [(recordId: String, score: Double)] = []
        for (message, document) in zip(messages, documents) {
            var score = 0.0
            var matched = false
            for term in queryTerms {
                let tf = Double(document.filter { $0 == term }.count)
                guard tf > 0 else { continue }
                matched = true
                let n = Double(documents.filter { $0.contains(term) }.count)
                let idf = log((count - n + 0.5) / (n + 0.5) + 1)
                let norm = tf + 1.2 * (1 - 0.75 + 0.75 * Double(document.count) / averageLength)
                score += idf * tf * (1.2 + 1) / norm
            }
            if matched { hits.append((message.recordId, score)) }
        }
        hits.sort { $0.score != $1.score ? $0.score > $1.score : $0.recordId < $1.recordId }
        return Array(hits.prefix(limit))
    }

    static func queries(_ random: inout SeededGenerator) -> [String] {
        (0..<25).map { _ in phrase(&random, 1...3) } + ["", "nothing-like-it", "LAMP lamp"]
    }

    static func expectAnswers(
        _ index: ModelSearchIndex<Message>, _ messages: [Message], _ queries: [String]
    ) {
        for query in queries {
            for limit in [1, 5, 200] {
                let found = index.search(query, limit: limit)
                let expected = reference(messages, query, limit: limit)
                #expect(found.map(\.recordId) == expected.map(\.recordId), "\(query) \(limit)")
                for (hit, want) in zip(found, expected) {
                    #expect(abs(hit.score - want.score) <= 1e-9 * max(1, want.score), "\(query)")
                }
            }
        }
    }

    @Test(arguments: [21, 22, 23] as [UInt64])
    func keptRestoredAndRebuiltSearchesRankAsBM25OverTheModels(seed: UInt64) async throws {
        let (a, b) = (TemporaryDirectory(), TemporaryDirectory())
        defer {
            a.remove()
            b.remove()
        }
        var random = SeededGenerator(seed: seed)
        let kept = Self.searchIndex()
        let replica = try Self.open(a.path, nodeId: 1, kept)
        let peer = try Self.open(b.path, nodeId: 2, Self.searchIndex())
        let queries = Self.queries(&random)
        for _ in 0..<4 {
            try await Self.edit(replica, steps: 120, random: &random)
            try await Self.edit(peer, steps: 120, random: &random)
            try await replica.merge(peer.getChangesSince(0))
            try await peer.merge(replica.getChangesSince(0))
            // A search between rounds, so the postings are kept as changes come, not only
            // built once.
            Self.expectAnswers(kept, try replica.models(Message.self), Array(queries.prefix(3)))
        }
        let messages = try replica.models(Message.self)
        #expect(messages.count > 20 && kept.count == messages.count, "\(messages.count)")
        Self.expectAnswers(kept, messages, queries)
        let digest = kept.digest()
        try replica.close()
        try peer.close()

        let restored = Self.searchIndex()
        let reopened = try Self.open(a.path, restored)
        guard case .restored = reopened.viewCheckpointStatus[restored.name] else {
            Issue.record("\(String(describing: reopened.viewCheckpointStatus[restored.name]))")
            return
        }
        #expect(restored.digest() == digest)
        Self.expectAnswers(restored, messages, queries)
        try reopened.close()

        for name in try FileManager.default.contentsOfDirectory(atPath: a.path)
        where name.contains("checkpoint") {
            try FileManager.default.removeItem(atPath: a.appending(name))
        }
        let rebuilt = Self.searchIndex()
        let replayed = try Self.open(a.path, rebuilt)
        #expect(replayed.viewCheckpointStatus[rebuilt.name] == ViewCheckpointStatus.none)
        #expect(rebuilt.digest() == digest)
        Self.expectAnswers(rebuilt, messages, queries)
        try replayed.close()
    }

    @Test func theLogbookAnswersWithModelsAndRefusesAnIndexItDoesNotKeep() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let index = Self.searchIndex()
        let logbook = try Self.open(directory.path, nodeId: 1, index)
        let call = ToolCall(name: "lights", arguments: ["room": "kitchen"])
        try await logbook.save([
            Message(id: "1", conversation: "c", text: "Turn on the lamp", toolCalls: [], tokens: 1),
            Message(id: "2", conversation: "c", text: "Done.", toolCalls: [call], tokens: 1),
            Message(
                id: "3", conversation: "c", text: "kitchen lamp, kitchen", toolCalls: [], tokens: 1),
        ])
        let found = try logbook.search(index, "kitchen")
        #expect(found.map(\.model.id) == ["3", "2"])
        try await logbook.delete(Message.self, id: "3")
        #expect(try logbook.search(index, "kitchen lamp").map(\.model.id) == ["2", "1"])
        do {
            _ = try logbook.search(Self.searchIndex(), "lamp")
            Issue.record("a search of an index the Logbook does not keep was answered")
        } catch {
            guard case .invalidQuery = error else { throw error }
        }
        try logbook.close()
    }

    @Test func aCheckpointOfOtherColumnsOrOutOfOrderIsRefused() throws {
        let index = Self.searchIndex()
        var writer = CheckpointWriter()
        writer.write(UInt64(1))
        writer.write("text")
        writer.write(UInt64(0))
        #expect(throws: CheckpointReader.Malformed.self) {
            try index.restoreCheckpoint(writer.bytes)
        }
        var unordered = CheckpointWriter()
        unordered.write(UInt64(2))
        unordered.write("text")
        unordered.write("toolCalls")
        unordered.write(UInt64(2))
        for id in ["message/b", "message/a"] {
            unordered.write(id)
            unordered.write(UInt64(0))
            unordered.write(UInt64(0))
        }
        #expect(throws: CheckpointReader.Malformed.self) {
            try index.restoreCheckpoint(unordered.bytes)
        }
    }
}
