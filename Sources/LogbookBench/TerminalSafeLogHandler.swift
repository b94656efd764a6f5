import Logbook
import Logging

/// A log handler whose messages and metadata strings are made `terminalSafe` before the
/// wrapped handler writes them. Log lines carry text others chose: a peer's error answer,
/// a record id, a request's path, a file name in the directory. A newline in one must not
/// forge a line of its own, nor an escape sequence drive the terminal that tails the log.
package struct TerminalSafeLogHandler<Wrapped: LogHandler>: LogHandler {
    private var wrapped: Wrapped

    package init(_ wrapped: Wrapped) {
        self.wrapped = wrapped
    }

    package var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    package var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    package func log(event: LogEvent) {
        var event = event
        event.message = "\(terminalSafe(event.message.description))"
        event.metadata = event.metadata?.mapValues(Self.safe)
        wrapped.log(event: event)
    }

    private static func safe(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): .string(terminalSafe(text))
        case .stringConvertible(let value): .string(terminalSafe(value.description))
        case .array(let values): .array(values.map(safe))
        case .dictionary(let metadata): .dictionary(metadata.mapValues(safe))
        }
    }
}
