import ArgumentParser
import Foundation
import Logbook
import LogbookBench
import LogbookViews

/// `logbook bridges DIR summary|buckets [--json]`: drawbridge statistics from the log.
struct BridgesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bridges",
        abstract: "Seattle drawbridge statistics from the bridge_event records.",
        discussion: """
            Opens the Logbook with the BridgeStats view (rebuilt by replay) and prints: \
            `summary` — per bridge, openings, average and longest minutes, currently open; \
            `buckets` — per bridge, year, month, weekday (1 = Sunday) and hour, with Bridget's \
            opening probability and confidence; `validate` — Bridget's validation rules over \
            every stored opening, failures counted by the first rule each one breaks; \
            `predict` — for a weekday and hour (--weekday 1 = Sunday … 7, --hour 0–23), each \
            bridge's share of the openings in that slot, with confidence and average minutes; \
            `heatmap` — openings by weekday × hour, darker where a bridge is more likely to be \
            open (--bridge to pick one).
            """)

    enum Query: String, ExpressibleByArgument, CaseIterable {
        /// Per-bridge summary.
        case summary
        /// Per-bucket statistics.
        case buckets
        /// Bridget's validation rules over the stored openings.
        case validate
        /// Openings by weekday × hour, drawn in the terminal.
        case heatmap
        /// Each bridge's outlook for a weekday and hour.
        case predict
    }

    @OptionGroup var target: DirectoryArgument
    @Argument(help: "summary, buckets, validate, predict or heatmap.")
    var query: Query
    @Flag(help: "Print one JSON document.")
    var json = false
    @Option(help: "heatmap: only this bridge id.")
    var bridge: Int64?
    @Option(help: "predict: the weekday, 1 = Sunday … 7 = Saturday.")
    var weekday: Int?
    @Option(help: "predict: the hour, 0–23.")
    var hour: Int?

    func validate() throws {
        guard query == .predict else { return }
        guard let weekday, (1...7).contains(weekday), let hour, (0...23).contains(hour) else {
            throw ValidationError("predict needs --weekday 1...7 (1 = Sunday) and --hour 0...23")
        }
    }

    func run() throws {
        let view = BridgeStatsView()
        let logbook = try openLogbook(
            target.directory, durability: .buffered, views: [view], readOnly: true)
        defer { try? logbook.close() }  // read-only use: nothing pending to lose
        switch query {
        case .summary: try printSummary(view.summaries())
        case .buckets: try printBuckets(view.buckets())
        case .validate: try printValidation(view.openings())
        case .predict: try printPrediction(view.predict(weekday: weekday ?? 1, hour: hour ?? 0))
        case .heatmap:
            try printHeatmap(
                view.openings().values.filter { bridge == nil || $0.entityId == bridge })
        }
    }

    private func printSummary(_ summaries: [BridgeStatsView.BridgeSummary]) throws {
        if json {
            try printJSON(summaries.map(\.jsonObject))
            return
        }
        printTable(
            header: BridgeStatsView.BridgeSummary.tableHeader, rows: summaries.map(\.tableRow))
    }

    private func printPrediction(_ predictions: [BridgeStatsView.Prediction]) throws {
        if json {
            try printJSON(predictions.map(\.jsonObject))
            return
        }
        let days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        print("\(days[(weekday ?? 1) - 1]) \(String(format: "%02d:00", hour ?? 0))")
        printTable(
            header: BridgeStatsView.Prediction.tableHeader, rows: predictions.map(\.tableRow))
    }

    private func printBuckets(_ buckets: [BridgeStatsView.Bucket]) throws {
        if json {
            try printJSON(buckets.map(\.jsonObject))
            return
        }
        printTable(header: BridgeStatsView.Bucket.tableHeader, rows: buckets.map(\.tableRow))
    }

    private func printValidation(_ openings: [String: BridgeOpening]) throws {
        let tally = BridgeTallies.validation(of: openings)
        if json {
            try printJSON(tally.jsonObject)
            return
        }
        print("\(tally.valid) of \(tally.openings) openings pass Bridget's validation")
        for rule in BridgeRules.ValidationFailure.allCases {
            guard let records = tally.failures[rule] else { continue }
            print(
                "  \(records.count) \(rule.rawValue), e.g. \(records.prefix(3).map { terminalSafe($0) }.joined(separator: ", "))"
            )
        }
    }

    /// Share of openings per (weekday, hour), shaded against the busiest cell.
    private func printHeatmap(_ openings: [BridgeOpening]) throws {
        let counts = BridgeTallies.weekdayHourCounts(of: openings)
        if json {
            let total = Double(max(1, openings.count))
            try printJSON(counts.map { $0.map { Double($0) / total } })
            return
        }
        print(BridgeTallies.heatmap(counts, openings: openings.count, bridge: bridge))
    }
}
