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
