import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookCRDT
import LogbookStorage
import Logging

/// The directory argument every log command takes.
struct DirectoryArgument: ParsableArguments {
    @Argument(help: "The Logbook directory (created by `logbook init`).")
    var directory: String
}

extension Durability: ExpressibleByArgument {}

/// Reports a failure on standard error and exits non-zero with `logbookExitCode(for:)`.
func exitWithError(_ error: any Error, verbose: Bool = false) -> ExitCode {
    var standardError = StandardError()
    print("error: \(error)", to: &standardError)
    if verbose, let cause = (error as? LogbookError)?.storageError {
        print("  cause: \(cause)", to: &standardError)
    }
    return logbookExitCode(for: error)
}

/// 1 for operating errors, 2 for input the limits refuse, 3 for corruption, 4 for a
/// directory that is not a Logbook (or another node's).
func logbookExitCode(for error: any Error) -> ExitCode {
    switch error {
    case let error as LogbookError:
        if error.code == .corruption || error.storageError?.code == .corruption {
            return ExitCode(3)
        }
        if error.code == .nodeMismatch || error.code == .badMetadata { return ExitCode(4) }
        if error.code == .invalidChange { return ExitCode(2) }
    case let error as StorageError:
        if error.code == .corruption { return ExitCode(3) }
    default:
        break
    }
    return ExitCode.failure
}

/// Opens an existing Logbook for a command, mapping failures to an exit code. Commands that
/// only read pass `readOnly`: they change no byte of the directory (`LogbookOptions`).
func openLogbook(
    _ directory: String, durability: Durability = .groupCommit, progress: Bool = false,
    views: [any MaterializedView] = [], readOnly: Bool = false
) throws -> Logbook {
    var options = LogbookOptions()
    options.durability = durability
    options.views = views
    options.readOnly = readOnly
    // View checkpoints a writer saved let a query replay only the tail; read-only queries
    // load them but save none.
    options.viewCheckpoints = !views.isEmpty
    if progress && ProgressBar.isTerminal {
        let bar = ProgressBar(label: "replay")
        options.replayProgress = { done, total in bar.update(done, of: total) }
    }
    do {
        let logbook = try Logbook.open(directory: directory, options: options)
        if !logbook.recovery.isClean {
            var standardError = StandardError()
            print("recovery: \(logbook.recovery)", to: &standardError)
        }
        return logbook
    } catch {
        throw exitWithError(error)
    }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}

/// A one-line progress bar on standard error, drawn only when it is a terminal and at most
/// ten times a second.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: `lastDraw` is only touched by the single thread doing the long operation.
    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    private let label: String
    private var lastDraw = ContinuousClock.now - .seconds(1)

    init(label: String) { self.label = label }

    func update(_ done: Int64, of total: Int64) {
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(100) || done >= total else { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar =
            String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        var standardError = StandardError()
        print(
            "\r\(label) [\(bar)] \(Int(fraction * 100))% \(formatBytes(done))",
            terminator: done >= total ? "\n" : "", to: &standardError)
    }
}

/// Parses `column=value`: the value is JSON when it parses as JSON (`40`, `true`, `"x"`,
/// `[1,2]`), otherwise the text itself as a string.
func parseAssignment(_ text: String) throws -> (String, Value) {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
        throw ValidationError("expected column=value, got '\(text)'")
    }
    let column = String(text[..<equals])
    let raw = String(text[text.index(after: equals)...])
    do {
        return (column, try JSONDecoder().decode(Value.self, from: Data(raw.utf8)))
    } catch let error as IntegerOutOfRange {
        // JSON, but not a value Logbook keeps exactly: say so rather than store another.
        throw badInput("\(column)=\(raw.prefix(40)): \(error)")
    } catch {
        return (column, .string(raw))
    }
}

/// A change as one readable line.
func describe(_ change: Change<String, String, Value>) -> String {
    let what: String
    switch (change.colName, change.value) {
    case (nil, _): what = "deleted record"
    case (let column?, nil): what = "deleted \(column)"
    case (let column?, let value?): what = "\(column) = \(describe(value))"
    }
    return
        "\(change.recordId)  \(what)  (col v\(change.colVersion == .max ? "max" : String(change.colVersion)), db v\(change.dbVersion), node \(change.nodeId))"
}

/// A value as compact JSON.
func describe(_ value: Value) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "\(value)" }
    return String(decoding: data, as: UTF8.self)
}

/// Prints one JSON document (Foundation objects; keys sorted, indented).
func printJSON(_ value: Any) throws {
    let data = try JSONSerialization.data(
        withJSONObject: value, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

/// Reports unusable input (a file that is not what the command reads) on standard error
/// and returns exit code 2.
func badInput(_ message: String) -> ExitCode {
    var standardError = StandardError()
    print("error: \(message)", to: &standardError)
    return ExitCode(2)
}

/// Sends every log line — ours, Hummingbird's, PostgresNIO's — to standard output in one
/// format, from `level` up. Called once, before anything logs.
func bootstrapLogging(level: Logger.Level) {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardOutput(label: label)
        handler.logLevel = level
        return handler
    }
}
