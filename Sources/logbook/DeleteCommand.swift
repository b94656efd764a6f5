import ArgumentParser
import Logbook
import LogbookBench

/// `logbook delete DIR RECORD [COLUMN]`: deletes a record or one of its columns.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a record, or one column of it.",
        discussion: "A deleted record stays deleted (a tombstone) until tombstone GC removes it.")

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "The record id.")
    var record: String
    @Argument(help: "The column to delete; omit to delete the whole record.")
    var column: String?

    func run() async throws {
        let logbook = try openLogbook(target.directory, durability: .fsyncEachAppend)
        do {
            let change =
                if let column {
                    try await logbook.deleteField(record, fieldName: column)
                } else {
                    try await logbook.deleteRecord(record)
                }
            if let change { print(describe(change)) } else { print("nothing to delete") }
            try close(logbook)
        } catch {
            throw exitWithError(error)
        }
    }
}
