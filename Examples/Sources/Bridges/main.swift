// Bridges: a drawbridge tracker's importer. Seattle publishes its drawbridge openings as
// SODA rows; the app fetches them page by page, imports each page as one batch, fetches
// again later (rows overlap, an opening still open has closed since), and shows Bridget's
// statistics: per bridge, by weekday and hour, and a prediction for a given time.
//
//     swift run Bridges [directory]      (a fresh temporary directory by default)
import Foundation
import Logbook
import LogbookData
import LogbookTesting  // the seeded feed that stands in for the city's API
import LogbookViews

// MARK: 1. The feed
// A SODA page is an array of rows whose every value is a string. Here a seeded generator
// gives two years of realistic rows (Fremont the busiest, few openings in rush hours, some
// openings reported as several rows, a few with no close yet), as the API would page them.

var feed = DrawbridgeFeedGenerator(seed: 2025)
let allRows = feed.rows(years: 2, firstYear: 2024)
func page(_ number: Int, size: Int = 1_000) -> [[String: String]] {
    Array(allRows.dropFirst(number * size).prefix(size))
}

// MARK: 2. Openings as typed records
// The importer writes each opening as `bridge_event/<entityid>-<opendatetime>`: the same
// opening fetched twice is one record, and its later row (a close that arrived, minutes
// corrected) overwrites the columns it changes — Bridget's merge. A typed model reads them.

struct BridgeEvent: LogbookModel {
    static let recordPrefix = BridgeStatsView.recordPrefix
    var id: String
    var bridge: Int64
    var name: String
    var opened: String
    var closed: String?
    var minutes: Int64

    enum CodingKeys: String, CodingKey {
        case id, name = "entityname", bridge = "entityid", opened = "opendatetime"
        case closed = "closedatetime", minutes = "minutesopen"
    }
}

let root =
    CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("logbook-bridges-\(UUID())")
let statistics = BridgeStatsView()
let byBridge = ModelIndex(BridgeEvent.self, on: ["entityid", "opendatetime"])
var options = LogbookOptions()
options.views = [statistics, byBridge]
options.durability = .buffered  // an importer: flushed at every batch, synced at close
let logbook = try Logbook.open(directory: root.path, nodeId: 1, options: options)

func check(_ condition: Bool, _ what: String) {
    print(condition ? "  ✓ \(what)" : "  ✗ \(what)")
    if !condition { exit(1) }
}

// MARK: 3. Import page by page
// Each call writes its page in batches of 1,000 records of the log: one append and one
// durability wait per batch. Rows that do not parse are counted by reason, never guessed at.

print("Importing \(allRows.count) rows, a page of 1,000 at a time:")
var imported = 0
var pages = 0
while case let rows = page(pages), !rows.isEmpty {
    let result = try await logbook.importBridgeRows(rows)
    imported += result.imported
    pages += 1
}
let malformed: [[String: String]] = [
    ["entitytype": "Bridge", "entityname": "Ballard", "entityid": "two", "opendatetime": "?"]
]
let refused = try await logbook.importBridgeRows(malformed)
print("  \(pages) pages, \(imported) rows imported")
print(
    "  and a malformed row: "
        + refused.skipped.map { "\($0.value) skipped, \($0.key.rawValue)" }
        .joined(separator: "; "))
let openings = statistics.openings().count
check(openings <= imported, "\(openings) openings: rows of one (bridge, open time) are one record")

// MARK: 4. Fetch again
// Later the app asks for the openings that were still open (SODA's
// `$where=closedatetime IS NULL`); they have closed since. Importing those rows again
// completes the same records; nothing is doubled.

let stillOpen = try logbook.models(BridgeEvent.self).filter { $0.closed == nil }
let refetched = allRows.filter { $0["closedatetime"] == nil }.map { row -> [String: String] in
    var row = row
    row["closedatetime"] = row["opendatetime"].map { String($0.prefix(14)) + "59:00.000" }
    row["minutesopen"] = nil  // the importer computes it from the times
    return row
}
_ = try await logbook.importBridgeRows(refetched)
let stillOpenAfter = try logbook.models(BridgeEvent.self).filter { $0.closed == nil }
print(
    "  refetched \(refetched.count) rows: \(stillOpen.count) openings open before, \(stillOpenAfter.count) after"
)
check(
    stillOpenAfter.isEmpty && statistics.openings().count == openings,
    "the refetch completed the open openings and added none")

// MARK: 5. Bridget's statistics

print("Per bridge:")
for summary in statistics.summaries() {
    let average = BridgeStatsView.durationLabel(minutes: summary.averageMinutes)
    print("  \(summary.name): \(summary.openings) openings, \(average) on average")
}
let busiest = statistics.summaries().max { $0.openings < $1.openings }
check(busiest?.name.contains("Fremont") == true, "Fremont is the busiest")

for (weekday, hour, when) in [(2, 8, "Monday 8:00"), (7, 14, "Saturday 14:00")] {
    let likely = statistics.predict(weekday: weekday, hour: hour).prefix(2)
    let text = likely.map {
        "\($0.name) \(BridgeStatsView.probabilityLabel($0.probability)) "
            + "(\(BridgeStatsView.confidenceLabel($0.confidence)))"
    }
    print("  \(when): " + text.joined(separator: ", "))
}

// Typed and indexed: the five latest openings of the Fremont bridge (entity 3).
let fremont = try logbook.query(byBridge, .equal(.int(3)), order: .descending, limit: 5).models
print(
    "Fremont's latest openings: "
        + fremont.map { "\($0.opened) (\($0.minutes) min)" }
        .joined(separator: ", "))
check(
    fremont.count == 5 && fremont.map(\.opened) == fremont.map(\.opened).sorted(by: >),
    "newest first, from the index")

// Every stored opening against Bridget's validation rules, the first failure counted.
var failures: [String: Int] = [:]
for opening in statistics.openings().values {
    if let failure = BridgeRules.validate(opening.sodaRow) {
        failures[failure.rawValue, default: 0] += 1
    }
}
print("Validation: " + (failures.isEmpty ? "every opening passes" : "\(failures)"))
try logbook.close()
print("Done; the store is \(root.path)")
