import ArgumentParser
import Foundation
import Logbook
import LogbookViews

/// `logbook search DIR QUERY [--types t1,t2] [--limit N] [--bm25] [--json]`.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the entities kept from the entity/ records.",
        discussion: """
            Ranks with The Goodies' rules (name and content substring matches, an exact-name \
            boost and a difflib fuzzy bonus), best first, ties in insertion order; candidates \
            come from n-gram indexes, not a scan. --bm25 ranks by Okapi BM25 over the words of \
            names and content instead. With --json one JSON document: a list of \
            {id, entity_type, name, score, highlights}.
            """)

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "The query text.")
    var query: String
    @Option(help: "Only these entity types, comma-separated (e.g. device,room).")
    var types: String?
    @Option(help: "At most this many results (0 gives none).")
    var limit = 10
    @Flag(help: "Rank by BM25 instead of The Goodies' score.")
    var bm25 = false
    @Flag(help: "Print one JSON document.")
    var json = false

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be ≥ 0") }
    }

    func run() throws {
        let search = SearchIndex()
        let logbook = try openLogbook(
            target.directory, durability: .buffered, views: [search], readOnly: true)
        defer { try? logbook.close() }  // read-only use: nothing pending to lose
        let typeFilter = types.map { Set($0.split(separator: ",").map(String.init)) }
        let results =
            bm25
            ? search.searchBM25(query, types: typeFilter, limit: limit)
            : search.search(query, types: typeFilter, limit: limit)
        if json {
            print(PythonJSON.dumps(.array(results.map(Self.resultJSON))))
            return
        }
        if results.isEmpty {
            print("no entity matches '\(query)'")
            return
        }
        printTable(
            header: ["score", "id", "type", "name", "why"],
            rows: results.map { result in
                [
                    String(format: "%.3f", result.score), result.id, result.entityType ?? "",
                    result.name,
                    result.highlights.sorted { $0.key > $1.key }.flatMap(\.value).joined(
                        separator: "; "),
                ]
            })
    }

    static func resultJSON(_ result: SearchIndex.Result) -> OrderedJSON {
        .object([
            ("id", .string(result.id)),
            ("entity_type", result.entityType.map(OrderedJSON.string) ?? .null),
            ("name", .string(result.name)), ("score", .double(result.score)),
            (
                "highlights",
                .object(
                    result.highlights.sorted { $0.key > $1.key }.map {
                        ($0.key, .array($0.value.map(OrderedJSON.string)))
                    })
            ),
        ])
    }
}
