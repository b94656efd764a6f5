import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookCRDT

/// `logbook append DIR FILE|-`: merges crdt-lite JSON-lines changes as remote changes.
struct AppendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Merge crdt-lite JSON-lines changes into the Logbook.",
        discussion: """
            Reads one change per line, in crdt-lite's Swift form (camelCase) or Rust form \
            (snake_case), and merges them as remote changes: the CRDT decides what is accepted, \
            and only accepted changes are logged. A malformed line, or a change over one of \
            the limits (docs/storage.md#limits), stops the command with its line number \
            and exit code 2, as does a line over 64 MiB; every 10,000 changes are made \
            durable, and the error says through which line the file was merged.
            """)

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "A JSON-lines file, or - for standard input.")
    var file: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let input: FileHandle
        do {
            input =
                file == "-"
                ? FileHandle.standardInput
                : try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        } catch {
            throw exitWithError(error)
        }
        let logbook = try openLogbook(target.directory, durability: .buffered, progress: true)
        // A block of lines at a time: memory holds a block and a line, not the input.
        var reader = ChangeJSONLinesStream(input)
        var chunk = Chunk()
        var read = 0
        var accepted = 0
        var durableThroughLine = 0
        var failure: ChangeJSONError?
        do {
            while true {
                let next: Change<String, String, Value>?
                do { next = try reader.next() } catch let error as ChangeJSONError {
                    failure = error
                    break
                }
                guard let change = next else { break }
                chunk.append(change, line: reader.lineNumber)
                read += 1
                if chunk.changes.count == 10_000 {
                    accepted += try await merge(&chunk, into: logbook)
                    durableThroughLine = reader.lineNumber
                }
            }
            accepted += try await merge(&chunk, into: logbook)
            try close(logbook)
        } catch let error as LogbookError {
            throw report(error, chunk: chunk, durableThroughLine: durableThroughLine, logbook)
        } catch {
            throw exitWithError(error)
        }
        let failed = failure.map { "\(file == "-" ? "stdin" : file): \($0)" }
        try output.print(
            AppendReport(
                directory: target.directory, file: file, read: read, accepted: accepted,
                error: failed))
        if let failed {
            var standardError = StandardError()
            print("error: \(terminalSafe(failed))", to: &standardError)
            throw ExitCode(2)
        }
    }

    /// The changes read but not yet merged, with the line each came from.
    struct Chunk {
        var changes: [Change<String, String, Value>] = []
        var lines: [Int] = []

        mutating func append(_ change: Change<String, String, Value>, line: Int) {
            changes.append(change)
            lines.append(line)
        }
    }

    /// Merges a chunk and makes it durable, so a failure later can say what got through.
    private func merge(_ chunk: inout Chunk, into logbook: Logbook) async throws -> Int {
        let accepted = try await logbook.mergeLocated(chunk.changes).acceptedCount
        try logbook.sync()
        chunk = Chunk()
        return accepted
    }

    /// Says which line failed and what is durable, closes what can be closed, and picks the
    /// exit code: 2 for a change the limits refuse, else the error's own.
    private func report(
        _ error: LogbookError, chunk: Chunk, durableThroughLine: Int, _ logbook: Logbook
    ) -> ExitCode {
        var standardError = StandardError()
        let source = file == "-" ? "stdin" : file
        let line = error.changeIndex.flatMap {
            chunk.lines.indices.contains($0) ? chunk.lines[$0] : nil
        }
        let through =
            durableThroughLine == 0
            ? "nothing from \(source) was merged"
            : "lines 1–\(durableThroughLine) of \(source) are merged and durable"
        print(
            "error: \(source)\(line.map { ":\($0)" } ?? ""): \(terminalSafe("\(error)"))",
            to: &standardError)
        print(
            "  \(through); nothing after line \(durableThroughLine) was merged", to: &standardError)
        // After a refused change this keeps the earlier lines; a failed log refuses to close
        // cleanly, and what it synced is durable either way.
        try? logbook.close()
        return logbookExitCode(for: error)
    }
}
