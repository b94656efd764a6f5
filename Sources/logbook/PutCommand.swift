import ArgumentParser
import Logbook
import LogbookBench

/// `logbook put DIR RECORD col=value...`: sets columns of a record.
struct PutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Set columns of a record.",
        discussion: """
            Each assignment is column=value. A value that parses as JSON is stored as that JSON \
            value (40, true, null, "text", [1,2], {"a":1}); anything else is stored as text.

            Example: logbook put data entity/lamp name=Lamp content.brightness=40
            """)

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "The record id, e.g. entity/lamp.")
    var record: String
    @Argument(help: "One or more column=value assignments.")
    var assignments: [String]

    func validate() throws {
        guard !assignments.isEmpty else { throw ValidationError("give at least one column=value") }
    }

    func run() async throws {
        let fields = try assignments.map(parseAssignment)
        let logbook = try openLogbook(target.directory, durability: .fsyncEachAppend)
        do {
            let changes = try await logbook.write([.insertOrUpdate(record, fields: fields)])
            for change in changes { print(describe(change)) }
            try close(logbook)
        } catch {
            throw exitWithError(error)
        }
    }
}
