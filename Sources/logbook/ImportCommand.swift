import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookCRDT
import LogbookViews

/// `logbook import KIND DIR FILE`: drawbridge openings (SODA rows) or a Goodies home graph.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a dataset into a Logbook.",
        discussion: """
            Kinds: `bridges` — a JSON array of Seattle SODA drawbridge rows (every value a \
            string). Each row becomes the record bridge_event/<entityid>-<opendatetime>, so \
            importing the same file twice updates the same records instead of adding more. Rows \
            that break Bridget's parsing rules are skipped and counted by reason. `goodies` — a \
            home graph in The Goodies' JSON (`entities` and `relationships`, as `logbook \
            generate home` writes), as entity/ and relationship/ records.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        /// Seattle SODA drawbridge rows.
        case bridges
        /// A Goodies home graph.
        case goodies
    }

    @Argument(help: "What the file holds: bridges or goodies.")
    var kind: Kind
    @OptionGroup var target: DirectoryArgument
    @Argument(help: "The JSON file.")
    var file: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        var report = ImportReport(directory: target.directory, kind: kind.rawValue, file: file)
        do {
            switch kind {
            case .bridges:
                let rows = try SODARows.parse(try readInput())
                let (imported, skipped) = try await importing {
                    try await $0.importBridgeRows(rows, progress: $1)
                }
                report.bridges(rows: rows.count, imported: imported, skipped: skipped)
            case .goodies:
                let document = try GoodiesDocument(parsing: try readInput())
                let made = try await importing {
                    try await $0.importGoodies(document, progress: $1)
                }
                report.goodies(document, deleted: made.deleted.count)
            }
        } catch let error as GoodiesDocument.FormatError {
            throw badInput("\(file): \(error)")
        }
        try output.print(report)
    }

    /// Opens the directory, runs `body` with a progress bar's update, and closes it; the
    /// engine's errors exit with their code.
    @discardableResult
    private func importing<Result>(
        _ body: (Logbook, @escaping (Int, Int) -> Void) async throws -> Result
    ) async throws -> Result {
        let logbook = try openLogbook(target.directory, durability: .buffered, progress: true)
        let bar = ProgressBar.isTerminal ? ProgressBar(label: "import", unit: .items) : nil
        do {
            let result = try await body(logbook) { bar?.update(Int64($0), of: Int64($1)) }
            try close(logbook)
            return result
        } catch {
            throw exitWithError(error)
        }
    }

    /// The file's bytes; an unreadable file is bad input (exit 2) with the reason in words.
    private func readInput() throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: file) else {
            let reason =
                FileManager.default.fileExists(atPath: file)
                ? "cannot be read (a directory, or no permission)" : "does not exist"
            throw badInput("\(file) \(reason)")
        }
        return Array(data)
    }
}
