import LogbookCRDT

/// A chat app's history, seeded: `messages` messages over `conversations` conversations,
/// each a record `message/<conversation>/<number>` with its conversation, author, sent time,
/// text (about 490 bytes of words: 100,000 messages hold 49 MB of text) and, for every tenth
/// assistant message, a tool call as a nested `Value`. What the debug-versus-release figures
/// of `logbook bench chat` write and open.
public struct ChatWorkload: Sendable {
    /// How many messages.
    public let messages: Int
    /// Over how many conversations, in turn.
    public let conversations: Int
    /// The seed of the texts.
    public let seed: UInt64

    /// The workload; the same arguments give the same messages.
    public init(messages: Int = 100_000, conversations: Int = 500, seed: UInt64 = 42) {
        self.messages = messages
        self.conversations = max(1, conversations)
        self.seed = seed
    }

    private static let words = [
        "the", "lamp", "kitchen", "schedule", "tomorrow", "meeting", "bridge", "opened",
        "please", "remind", "me", "about", "groceries", "and", "call", "later", "tonight",
        "weather", "looks", "clear", "thanks", "sure", "here", "is", "summary", "of", "notes",
        "draft", "reply", "sounds", "good", "let's", "move", "it", "to", "friday",
    ]

    /// The writes, in batches of `batchSize` (the last one shorter), for `Logbook.write(_:)`.
    public func batches(of batchSize: Int) -> [[LocalWrite]] {
        var random = SeededGenerator(seed: seed)
        var batches: [[LocalWrite]] = []
        var batch: [LocalWrite] = []
        batch.reserveCapacity(batchSize)
        for number in 0..<messages {
            batch.append(message(number, &random))
            if batch.count == max(1, batchSize) {
                batches.append(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }

    private func message(_ number: Int, _ random: inout SeededGenerator) -> LocalWrite {
        let conversation = number % conversations
        let assistant = number % 2 == 1
        var text = ""
        text.reserveCapacity(560)
        while text.utf8.count < 440 + Int(random.next() % 100) {
            text += Self.words[Int(random.next() % UInt64(Self.words.count))] + " "
        }
        var fields: [(String, Value)] = [
            ("conversation", .string("conversation/\(conversation)")),
            ("author", .string(assistant ? "assistant" : "user")),
            ("sentAt", .int(1_700_000_000_000 + Int64(number) * 1_000)),
            ("text", .string(text)),
        ]
        if assistant && number % 20 == 1 {
            fields.append(
                (
                    "toolCalls",
                    .array([
                        .object([
                            "name": "lookup_weather",
                            "arguments": .object(["city": "Seattle", "days": .int(3)]),
                        ])
                    ])
                ))
        }
        return .insertOrUpdate("message/\(conversation)/\(number / conversations)", fields: fields)
    }
}
