import Foundation

/// Renders `logbook bench` figures: a terminal table, ratios against the baselines, JSON,
/// and a self-contained HTML page with SVG bar charts.
public struct BenchReport: Codable, Sendable {
    /// Cores, memory and operating system of the machine that measured.
    public var machine: String
    /// What was run, in one line.
    public var workload: String
    /// Every figure, in the order measured.
    public var figures: [BenchFigure]

    /// A report of `figures`, measured on `machine` running `workload`.
    public init(machine: String, workload: String, figures: [BenchFigure]) {
        self.machine = machine
        self.workload = workload
        self.figures = figures
    }

    /// Logbook ÷ baseline for each kind both measured: append (one call per write, and
    /// 10,000 writes a call, each against the baselines' appends, SQLite's 10,000 per
    /// transaction) and replay.
    public var ratios: [(kind: String, baseline: String, ratio: Double)] {
        var result: [(String, String, Double)] = []
        for (kind, baselineKind) in [
            ("append", "append"), ("append, 10k per call", "append"), ("replay", "replay"),
        ] {
            guard let ours = figures.first(where: { $0.system == "Logbook" && $0.kind == kind })
            else { continue }
            for other in figures
            where other.system != "Logbook" && other.kind == baselineKind
                && other.changesPerSecond > 0
            {
                result.append((kind, other.system, ours.changesPerSecond / other.changesPerSecond))
            }
        }
        return result
    }

    /// The columns of the figures table, in the terminal and on the HTML page.
    static let figureColumns = [
        "system", "figure", "changes/s", "raw MB/s", "disk MB/s", "B/change", "fsyncs/s",
        "peak MB",
    ]

    /// One row per figure under `figureColumns`; "-" where nothing was measured.
    var figureRows: [[String]] {
        func number(_ value: Double?, _ format: String) -> String {
            value.map { String(format: format, $0) } ?? "-"
        }
        return figures.map {
            [
                $0.system, $0.name,
                $0.changesPerSecond > 0 ? formatCount($0.changesPerSecond) : "-",
                number($0.rawMegabytesPerSecond, "%.0f"),
                number($0.diskMegabytesPerSecond, "%.1f"),
                number($0.bytesPerChange, "%.1f"), number($0.fsyncsPerSecond, "%.0f"),
                number($0.peakMegabytes, "%.0f"),
            ]
        }
    }

    static let latencyColumns = ["figure", "p50", "p95", "p99", "p99.9"]

    /// Per-call latency percentiles (µs) of the figures that timed each call.
    var latencyRows: [[String]] {
        figures.compactMap { figure in
            figure.latency.map {
                [
                    figure.name, String(format: "%.1f", $0.p50), String(format: "%.1f", $0.p95),
                    String(format: "%.1f", $0.p99), String(format: "%.1f", $0.p999),
                ]
            }
        }
    }

    static let ratioColumns = ["kind", "baseline", "ratio"]

    var ratioRows: [[String]] {
        ratios.map { [$0.kind, $0.baseline, String(format: "%.2f×", $0.ratio)] }
    }

    static let boundColumns = ["figure", "changes/s", "bound", "reached"]

    /// The figures that know the most their settings allow (group commit), against it.
    var boundRows: [[String]] {
        figures.compactMap { figure in
            figure.boundChangesPerSecond.flatMap { bound in
                bound > 0
                    ? [
                        figure.name, formatCount(figure.changesPerSecond), formatCount(bound),
                        String(format: "%.0f%%", 100 * figure.changesPerSecond / bound),
                    ] : nil
            }
        }
    }

    /// The tables after the figures that have rows, as both renderings show them: title,
    /// columns, rows, and how many leading columns hold text.
    var detailTables: [(title: String, columns: [String], rows: [[String]], textColumns: Int)] {
        [
            ("latency per call (µs)", Self.latencyColumns, latencyRows, 1),
            (
                "Logbook ÷ baseline (changes/s; above 1 means Logbook is faster)",
                Self.ratioColumns, ratioRows, 2
            ),
            ("against the bound their settings allow", Self.boundColumns, boundRows, 1),
        ].filter { !$0.rows.isEmpty }
    }

    /// The figures as terminal tables: throughput, latency percentiles, ratios, bounds,
    /// notes.
    public func tables() -> String {
        var text = "\(workload)\n\(machine)\n"
        text += TextTable.render(header: Self.figureColumns, rows: figureRows)
        for detail in detailTables {
            text += "\n\(detail.title)\n"
            text += TextTable.render(header: detail.columns, rows: detail.rows)
        }
        for figure in figures where !figure.note.isEmpty {
            text += "- \(figure.system) \(figure.name): \(figure.note)\n"
        }
        return text
    }

    /// One JSON document: machine, workload and every figure.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey { case machine, workload, figures }
}
