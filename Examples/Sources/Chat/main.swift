// Chat: one conversation on two devices, a phone and a laptop, each with its own Logbook.
// They edit while apart, sync, and end with the same messages: typed models, a transaction,
// an index query, an observed query, full-text search, and crdt-lite's rules for concurrent
// edits and deletes.
//
//     swift run Chat [directory]      (a fresh temporary directory by default)
import Foundation
import Logbook
import LogbookData
import LogbookViews

// MARK: 1. The models
// Every stored property is a column of the record. Two devices that edit different
// properties of one message both keep their edit when they merge (column-level
// last-writer-wins); a nested value, like the tool calls, is one column.

struct ToolCall: Codable, Equatable, Sendable {
    var name: String
    var arguments: [String: String]
}

struct Conversation: LogbookModel {
    var id: String
    var title: String
    var messageCount: Int
}

struct Message: LogbookModel {
    var id: UUID
    var conversation: String
    var author: String
    var text: String
    var sentAt: Date
    var editedAt: Date?  // nil: no column at all
    var toolCalls: [ToolCall]
}

// MARK: 2. A device: a Logbook and the views it keeps
// Indexes and search are views, kept from each device's own log as changes arrive, and
// checkpointed when it closes so the next launch does not replay for them.

final class Device: Sendable {
    let name: String
    let logbook: Logbook
    /// Messages by conversation, then time: "the newest 50 of this conversation".
    let timeline = ModelIndex(Message.self, on: ["conversation", "sentAt"])
    /// Full text of messages and their tool calls.
    let messageText = ModelSearchIndex(Message.self, on: ["text", "toolCalls"])

    init(_ name: String, node: UInt64, under root: URL) throws {
        self.name = name
        var options = LogbookOptions()
        options.views = [timeline, messageText]
        options.viewCheckpoints = true
        logbook = try Logbook.open(
            directory: root.appendingPathComponent(name).path, nodeId: node, options: options)
    }

    /// Sends a message: the message and the conversation's count, in one transaction (one
    /// batch of the log: a crash keeps both or neither).
    func send(_ text: String, in conversation: String, calls: [ToolCall] = [], at time: Double)
        async throws -> Message
    {
        let message = Message(
            id: UUID(), conversation: conversation, author: name, text: text,
            sentAt: Date(timeIntervalSinceReferenceDate: time), toolCalls: calls)
        try await logbook.transaction { transaction in
            try transaction.save(message)
            try transaction.update(Conversation.self, id: conversation) { $0.messageCount += 1 }
        }
        return message
    }

    func newest(in conversation: String, limit: Int = 50) throws -> [Message] {
        try logbook.query(timeline, .equal(.string(conversation)), order: .descending, limit: limit)
            .models
    }
}

// MARK: 3. Sync
// crdt-lite's recipe: each side sends the changes the other has not seen (those after the
// version it last sent) and merges what it receives. Here the devices talk in one process;
// across a network the same changes travel as crdt-lite JSON (`logbook serve`, a hub).

@MainActor final class Link {
    var sent: [String: UInt64] = [:]

    func sync(_ a: Device, _ b: Device) async throws {
        for (from, to) in [(a, b), (b, a)] {
            let upTo = from.logbook.clock().currentTime()
            let changes = from.logbook.getChangesSince(sent[from.name + to.name] ?? 0)
            let accepted = try await to.logbook.merge(changes)
            sent[from.name + to.name] = upTo
            print("  \(from.name) → \(to.name): \(changes.count) changes, \(accepted.count) new")
        }
    }
}

func check(_ condition: Bool, _ what: String) {
    print(condition ? "  ✓ \(what)" : "  ✗ \(what)")
    if !condition { exit(1) }
}

// MARK: 4. The story

let root =
    CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("logbook-chat-\(UUID())")
let phone = try Device("phone", node: 1, under: root)
let laptop = try Device("laptop", node: 2, under: root)
let link = Link()

print("The phone starts a conversation and sends three messages.")
try await phone.logbook.save(Conversation(id: "kitchen", title: "Kitchen lights", messageCount: 0))
let ask = try await phone.send("Can you turn on the kitchen lamp?", in: "kitchen", at: 1_000)
let answer = try await phone.send(
    "Done.", in: "kitchen", calls: [ToolCall(name: "lights.on", arguments: ["room": "kitchen"])],
    at: 1_001)
let thanks = try await phone.send("Thanks! Dim it a little?", in: "kitchen", at: 1_002)
try await link.sync(phone, laptop)
check(
    try laptop.newest(in: "kitchen").map(\.text) == [thanks.text, answer.text, ask.text],
    "the laptop shows the three messages, newest first")

print("The laptop watches the conversation (an observed query), as a SwiftUI list would.")
let watched = laptop.logbook.observe(
    laptop.timeline, .equal(.string("kitchen")), order: .descending, limit: 50,
    coalescing: .milliseconds(10))
let watcher = Task {
    var answers = 0
    for await answer in watched {
        answers += 1
        // Done once the phone's correction (sent below) shows at the top.
        if case .success(let messages) = answer, messages.first?.text.hasSuffix("40%.") == true {
            return answers
        }
    }
    return answers
}

print("Apart, each edits the answer: the laptop its text, the phone its tool calls.")
try await laptop.logbook.update(Message.self, id: answer.id) {
    $0.text = "Done: the kitchen lamp is on."
    $0.editedAt = Date(timeIntervalSinceReferenceDate: 1_010)
}
try await phone.logbook.update(Message.self, id: answer.id) {
    $0.toolCalls.append(ToolCall(name: "lights.dim", arguments: ["level": "40"]))
}
print("And the laptop deletes the last message, while the phone edits it.")
try await laptop.logbook.delete(Message.self, id: thanks.id)
try await phone.logbook.update(Message.self, id: thanks.id) { $0.text = "Thanks!" }
try await link.sync(phone, laptop)

let merged = try laptop.logbook.model(Message.self, id: answer.id)
check(merged?.text == "Done: the kitchen lamp is on.", "the laptop's text edit survived")
check(merged?.toolCalls.count == 2, "and so did the phone's tool call")
check(
    try phone.logbook.model(Message.self, id: thanks.id) == nil,
    "the delete won over the edit, on both devices (crdt-lite never revives a record)")
do {
    try await phone.logbook.update(Message.self, id: thanks.id) { $0.text = "again" }
    check(false, "a write to a deleted message is refused")
} catch {
    check(
        "\(error)".contains("never revived"), "a write to it is refused with its reason: \(error)")
}

print("The phone sends a correction as a new message (the pattern for a deleted one).")
_ = try await phone.send("Thanks, and dim it to 40%.", in: "kitchen", at: 1_020)
try await link.sync(phone, laptop)
let answers = await watcher.value
check(answers >= 2, "the laptop's observed query answered \(answers) times, not per change")

print("Search, on either device:")
for query in ["lamp", "dim", "kitchen lights"] {
    let hits = try laptop.logbook.search(laptop.messageText, query, limit: 3)
    print(
        "  \"\(query)\": "
            + hits.map { "\($0.model.text) (\(String(format: "%.2f", $0.score)))" }
            .joined(separator: " | "))
}
check(
    try phone.logbook.search(phone.messageText, "dim").count == 2,
    "\"dim\" finds the tool call and the correction")

let conversation = try phone.logbook.model(Conversation.self, id: "kitchen")
check(conversation?.messageCount == 4, "the conversation counts 4 messages sent")
check(
    phone.logbook.stateDigest() == laptop.logbook.stateDigest(),
    "phone and laptop hold the same state")
try phone.logbook.close()
try laptop.logbook.close()
print("Done; the devices' directories are under \(root.path)")
