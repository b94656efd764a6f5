import Logbook
import LogbookBench
import Logging
import Synchronization
import Testing

// Log lines carry text others chose (a peer's answer, a record id, a file name): the
// handler the command line installs writes their controls as escapes, in the message and
// in every metadata string, so a newline cannot forge a line of its own.
@Suite struct TerminalSafeLogHandlerTests {
    /// What reached the recording handler.
    final class Events: Sendable { let events = Mutex<[LogEvent]>([]) }

    /// Keeps what reaches it.
    struct RecordingHandler: LogHandler {
        let events: Events
        var metadataProvider: Logger.MetadataProvider?
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { events.events.withLock { $0.append(event) } }
    }

    @Test func messagesAndMetadataReachTheWrappedHandlerEscaped() {
        let box = Events()
        let recording = RecordingHandler(events: box)
        let logger = Logger(label: "test") { _ in TerminalSafeLogHandler(recording) }
        let forged = "busy\n2026-11-29T00:00:00+0000 info converged\u{1B}[2J"
        logger.warning(
            "pull failed: \(forged)",
            metadata: [
                "peer": "x\u{1B}]0;t\u{07}", "list": ["a\nb"], "nested": ["k": "\u{202E}v"],
                "number": .stringConvertible(42),
            ])
        let events = box.events.withLock { $0 }
        #expect(events.count == 1)
        let event = events[0]
        #expect(
            event.message.description
                == #"pull failed: busy\u{A}2026-11-29T00:00:00+0000 info converged\u{1B}[2J"#)
        #expect(event.metadata?["peer"] == .string(#"x\u{1B}]0;t\u{7}"#))
        #expect(event.metadata?["list"] == .array([.string(#"a\u{A}b"#)]))
        #expect(event.metadata?["nested"] == .dictionary(["k": .string(#"\u{202E}v"#)]))
        #expect(event.metadata?["number"] == .string("42"))
    }
}
