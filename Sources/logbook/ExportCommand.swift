import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookCRDT

extension ChangeJSONFormat: ExpressibleByArgument {}

/// `logbook export DIR [--since OFFSET] [--format swift|rust]`: the log as crdt-lite JSON.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print the logged changes as crdt-lite JSON lines.",
        discussion:
            "History in log order (every accepted change, not just the current state), streamed batch by batch."
    )

    @OptionGroup var target: DirectoryArgument
    @Option(help: "Start at this log offset.")
    var since: UInt64 = 0
    @Option(help: "swift (camelCase, nil omitted) or rust (snake_case, explicit null).")
    var format: ChangeJSONFormat = .swift

    func run() throws {
        let logbook = try openLogbook(target.directory, durability: .buffered, readOnly: true)
        var buffer = Data()
        var unencodable: [(UInt64, ChangeJSONError)] = []
        do {
            try logbook.forEachChange(since: since) { offset, change in
                let line: Data
                do throws(ChangeJSONError) {
                    line = try ChangeJSON.encode(change, format: format)
                } catch {
                    unencodable.append((offset, error))
                    return
                }
                buffer.append(line)
                buffer.append(UInt8(ascii: "\n"))
                if buffer.count >= 1 << 20 {
                    FileHandle.standardOutput.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            FileHandle.standardOutput.write(buffer)
            try logbook.close()
        } catch {
            throw exitWithError(error)
        }
        if !unencodable.isEmpty {
            var standardError = StandardError()
            for (offset, error) in unencodable.prefix(10) {
                print(
                    "error: change at log offset \(offset) has no JSON form: \(error)",
                    to: &standardError)
            }
            print("error: \(unencodable.count) changes were left out", to: &standardError)
            throw ExitCode.failure
        }
    }
}
