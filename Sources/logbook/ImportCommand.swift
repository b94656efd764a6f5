import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookCRDT
import LogbookViews

/// `logbook import bridges DIR FILE`: Seattle drawbridge openings from a SODA JSON array.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a dataset into a Logbook.",
        discussion: """
            Kinds: `bridges` — a JSON array of Seattle SODA drawbridge rows (every value a \
            string). Each row becomes the record bridge_event/<entityid>-<opendatetime>, so \
            importing the same file twice updates the same records instead of adding more. Rows \
            that break Bridget's parsing rules are skipped and counted by reason.
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
        if kind == .goodies {
            try await importGoodies()
            return
        }
        let rows: [[String: String]]
        do {
            rows = try SODARows.parse(try readInput())
        } catch let error as GoodiesDocument.FormatError {
            throw badInput("\(file): \(error)")
        }
        let logbook = try openLogbook(target.directory, durability: .buffered, progress: true)
        let imported: Int
        let skipped: [BridgeOpening.SkipReason: Int]
        let bar = ProgressBar.isTerminal ? ProgressBar(label: "import", unit: .items) : nil
        do {
            (imported, skipped) = try await logbook.importBridgeRows(rows) { done, total in
                bar?.update(Int64(done), of: Int64(total))
            }
            try logbook.close()
        } catch {
            throw exitWithError(error)
        }
        var report = ImportReport(directory: target.directory, kind: kind.rawValue, file: file)
        report.rows = rows.count
        report.imported = imported
        report.skipped = Dictionary(
            uniqueKeysWithValues: skipped.map { ($0.key.rawValue, $0.value) })
        try output.print(report)
    }

    private func importGoodies() async throws {
        let document: GoodiesDocument
        do {
            document = try GoodiesDocument(parsing: try readInput())
        } catch let error as GoodiesDocument.FormatError {
            throw badInput("\(file): \(error)")
        }
        let logbook = try openLogbook(target.directory, durability: .buffered, progress: true)
        let bar = ProgressBar.isTerminal ? ProgressBar(label: "import", unit: .items) : nil
        do {
            try await logbook.importGoodies(document) { done, total in
                bar?.update(Int64(done), of: Int64(total))
            }
            try logbook.close()
        } catch {
            throw exitWithError(error)
        }
        var report = ImportReport(directory: target.directory, kind: kind.rawValue, file: file)
        report.entities = document.entities.count
        report.relationships = document.relationships.count
        try output.print(report)
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
