import Foundation
import Logbook
import LogbookData
import LogbookTesting

// The chat schema the data layer is tried on: a message with every kind of scalar, an
// optional, a nested array of structs, and a UUID id.
struct ToolCall: Codable, Equatable, Sendable {
    var name: String
    var arguments: [String: String]
    var succeeded: Bool?
}

struct Message: LogbookModel, Equatable {
    var id: UUID
    var conversation: String
    var text: String
    var sentAt: Date
    var editedAt: Date?
    var toolCalls: [ToolCall]
    var tokens: Int
    var score: Double
    var attachment: Data?
    var link: URL?
    var price: Decimal?
    var small: Int8
    var large: UInt64
    var flags: [Bool]
}

/// The same record as an older version of the app knows it: no `tokens`, `score`, ...
struct OlderMessage: LogbookModel, Equatable {
    static let recordPrefix = "message/"
    var id: UUID
    var conversation: String
    var text: String
    var editedAt: Date?
}

/// A model whose id is computed from its properties.
struct Room: LogbookModel, Equatable {
    var home: String
    var name: String
    var id: String { "\(home)/\(name)" }
}

extension Message {
    static func sample(_ text: String = "hello") -> Message {
        Message(
            id: UUID(), conversation: "c1", text: text,
            sentAt: Date(timeIntervalSinceReferenceDate: 812_345_678.123_456_7),
            editedAt: nil,
            toolCalls: [
                ToolCall(name: "search", arguments: ["q": "lamps"], succeeded: true),
                ToolCall(name: "lights", arguments: [:], succeeded: nil),
            ],
            tokens: -42, score: 0.1 + 0.2, attachment: Data([0, 1, 254, 255]),
            link: URL(string: "https://example.com/a?b=c"), price: Decimal(string: "19.99"),
            small: -128, large: .max, flags: [true, false])
    }
}

/// Runs `body` on a Logbook in a fresh directory, closed and removed afterwards.
func withLogbook(
    nodeId: UInt64 = 1, _ body: (Logbook, TemporaryDirectory) async throws -> Void
) async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let logbook = try Logbook.open(directory: directory.path, nodeId: nodeId)
    try await body(logbook, directory)
    try logbook.close()
}
