import ArgumentParser
import Logbook
import LogbookBench
import LogbookCRDT

extension ChangeJSONFormat: ExpressibleByArgument {}

/// `logbook export DIR [--since OFFSET | --state] [--format rust|swift]`: the log, or the
/// state, as crdt-lite JSON lines.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print the logged changes, or the current state, as crdt-lite JSON lines.",
        discussion: """
            By default the history in log order (every accepted change, not just the current \
            state), streamed batch by batch. With --state, the state instead: a change per \
            live column and per deleted record, what crdt-lite's getChangesSince(0) returns; \
            merged into an empty replica (`logbook append`) they rebuild this state.
            """)

    @OptionGroup var target: DirectoryArgument
    @Option(help: "Start at this log offset.")
    var since: UInt64 = 0
    @Flag(help: "Print the current state instead of the history.")
    var state = false
    @Option(help: "rust (snake_case, explicit null; the default, as HTTP) or swift (camelCase).")
    var format: ChangeJSONFormat = .standard

    func validate() throws {
        if state && since != 0 {
            throw ValidationError("--since is a log offset; --state has none")
        }
    }

    func run() throws {
        let logbook = try openLogbook(target.directory, durability: .buffered, readOnly: true)
        var output = ChangeJSONLinesOutput(format: format)
        do {
            if state {
                var page: UInt64? = 0
                while let after = page {  // pages bound the memory a large state needs
                    let (changes, next) = logbook.changesPage(since: after, changesMax: 1 << 16)
                    for change in changes { output.write(change, place: "of \(change.recordId)") }
                    page = next
                }
            } else {
                try logbook.forEachChange(since: since) { offset, change in
                    output.write(change, place: "at log offset \(offset)")
                }
            }
            try close(logbook)
        } catch {
            throw exitWithError(error)
        }
        guard output.finish() else { throw ExitCode.failure }
    }
}
