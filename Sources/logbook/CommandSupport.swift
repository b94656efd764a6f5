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
    print("error: \(terminalSafe("\(error)"))", to: &standardError)  // names from files, peers
    if verbose, let cause = (error as? LogbookError)?.storageError {
        print("  cause: \(terminalSafe("\(cause)"))", to: &standardError)
    }
    return logbookExitCode(for: error)
}

/// The documented exit status for `error` (`ExitStatus`).
func logbookExitCode(for error: any Error) -> ExitCode { ExitCode(ExitStatus.of(error)) }

/// Opens an existing Logbook for a command, mapping failures to an exit code. Commands that
/// only read pass `readOnly`: they change no byte of the directory (`LogbookOptions`).
func openLogbook(
    _ directory: String, durability: Durability = .groupCommit, progress: Bool = false,
    views: [any MaterializedView] = [], readOnly: Bool = false,
    snapshots: SnapshotPolicy = SnapshotPolicy()
) throws -> Logbook {
    var options = LogbookOptions()
    options.durability = durability
    options.views = views
    options.readOnly = readOnly
    options.snapshots = snapshots
    // View checkpoints a writer saved let a query replay only the tail; read-only queries
    // load them but save none.
    options.viewCheckpoints = !views.isEmpty
    if progress && ProgressBar.isTerminal {
        let bar = ProgressBar(label: "replay")
        options.replayProgress = { done, total in bar.update(done, of: total) }
    }
    do {
        let logbook = try Logbook.open(directory: directory, options: options)
        var notes = logbook.tombstoneGCOffsetsLowered.map { "tombstone GC state: \($0)" }
        notes += logbook.snapshotLoad.setAside.map { "snapshot set aside: \($0)" }
        if !logbook.recovery.isClean { notes.insert("recovery: \(logbook.recovery)", at: 0) }
        var standardError = StandardError()
        for note in notes { print(terminalSafe(note), to: &standardError) }
        return logbook
    } catch {
        throw exitWithError(error)
    }
}

/// Parses `column=value` (`Value.parsing(jsonOrText:)`).
func parseAssignment(_ text: String) throws -> (String, Value) {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
        throw ValidationError("expected column=value, got '\(text)'")
    }
    let (column, raw) = (String(text[..<equals]), String(text[text.index(after: equals)...]))
    do { return (column, try Value.parsing(jsonOrText: raw)) } catch {
        throw badInput("\(column)=\(raw.prefix(40)): \(error)")
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
    print("error: \(terminalSafe(message))", to: &standardError)
    return ExitCode(2)
}

/// Sends every log line — ours, Hummingbird's, PostgresNIO's — to standard output in one
/// format, from `level` up. Called once, before anything logs.
func bootstrapLogging(level: Logger.Level) {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardOutput(label: label)
        handler.logLevel = level
        return TerminalSafeLogHandler(handler)
    }
}
