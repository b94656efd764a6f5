import ArgumentParser
import Foundation
import Logbook
import LogbookCRDT

/// `logbook-crash-writer read DIR`: opens a Logbook read-only beside a running writer (the
/// `write` subcommand), prints its state, then for each `refresh` line on standard input
/// refreshes and prints it again, until standard input ends.
///
/// A state is printed as `state <nextOffset>`, one `record <id> <step>` line per record,
/// and `end`, written at once, so the test reads whole states off the pipe.
struct BesideWriterReader: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read beside a writer, refreshing on request (for the readers test).")

    @Argument(help: "The Logbook directory a writer is writing.")
    var directory: String

    func run() throws {
        var options = LogbookOptions()
        options.readOnly = true
        let logbook = try Logbook.open(directory: directory, options: options)
        printState(of: logbook)
        while let line = readLine() {
            guard line == "refresh" else { continue }
            try logbook.refresh()
            printState(of: logbook)
        }
        try logbook.close()
    }

    private func printState(of logbook: Logbook) {
        var text = "state \(logbook.nextOffset)\n"
        for (id, record) in logbook.records().sorted(by: { $0.key < $1.key }) {
            guard case .int(let step)? = record.fields["step"] else { continue }
            text += "record \(id) \(step)\n"
        }
        text += "end\n"
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
