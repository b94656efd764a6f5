import ArgumentParser
import Foundation
import Logbook
import LogbookCRDT

/// `logbook append DIR FILE|-`: merges crdt-lite JSON-lines changes as remote changes.
struct AppendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "append",
        abstract: "Merge crdt-lite JSON-lines changes into the Logbook.",
        discussion: """
            Reads one change per line, in crdt-lite's Swift form (camelCase) or Rust form \
            (snake_case), and merges them as remote changes: the CRDT decides what is accepted, \
            and only accepted changes are logged. A malformed line stops the command with its \
            line number; every change before it has been merged and made durable.
            """)

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "A JSON-lines file, or - for standard input.")
    var file: String

    func run() async throws {
        let data: Data
        do {
            data =
                file == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw exitWithError(error)
        }
        let logbook = try openLogbook(target.directory, durability: .buffered)
        var reader = ChangeJSONLinesReader<String, String, Value>(data)
        var chunk: [Change<String, String, Value>] = []
        var read = 0
        var accepted = 0
        var failure: ChangeJSONError?
        do {
            while true {
                let next: Change<String, String, Value>?
                do { next = try reader.next() } catch {
                    failure = error
                    break
                }
                guard let change = next else { break }
                chunk.append(change)
                read += 1
                if chunk.count == 10_000 {
                    accepted += try await logbook.merge(chunk).count
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            accepted += try await logbook.merge(chunk).count
            try logbook.close()
        } catch {
            throw exitWithError(error)
        }
        print("read \(read) changes, accepted \(accepted), rejected \(read - accepted)")
        if let failure {
            var standardError = StandardError()
            print("error: \(file == "-" ? "stdin" : file): \(failure)", to: &standardError)
            throw ExitCode(2)
        }
    }
}
