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

    /// The figures as terminal tables: throughput, latency percentiles, ratios, notes.
    public func tables() -> String {
        var text = "\(workload)\n\(machine)\n"
        func number(_ value: Double?, _ format: String) -> String {
            value.map { String(format: format, $0) } ?? "-"
        }
        text += TextTable.render(
            header: [
                "system", "figure", "changes/s", "raw MB/s", "disk MB/s", "B/change", "fsyncs/s",
                "peak MB",
            ],
            rows: figures.map {
                [
                    $0.system, $0.name,
                    $0.changesPerSecond > 0 ? formatCount($0.changesPerSecond) : "-",
                    number($0.rawMegabytesPerSecond, "%.0f"),
                    number($0.diskMegabytesPerSecond, "%.1f"),
                    number($0.bytesPerChange, "%.1f"), number($0.fsyncsPerSecond, "%.0f"),
                    number($0.peakMegabytes, "%.0f"),
                ]
            })
        let timed = figures.filter { $0.latency != nil }
        if !timed.isEmpty {
            text += "\nlatency per call (µs)\n"
            text += TextTable.render(
                header: ["figure", "p50", "p95", "p99", "p99.9"],
                rows: timed.compactMap { figure in
                    figure.latency.map {
                        [
                            figure.name, String(format: "%.1f", $0.p50),
                            String(format: "%.1f", $0.p95), String(format: "%.1f", $0.p99),
                            String(format: "%.1f", $0.p999),
                        ]
                    }
                })
        }
        if !ratios.isEmpty {
            text += "\nLogbook ÷ baseline (changes/s; above 1 means Logbook is faster)\n"
            text += TextTable.render(
                header: ["kind", "baseline", "ratio"],
                rows: ratios.map { [$0.kind, $0.baseline, String(format: "%.2fx", $0.ratio)] })
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

    /// One HTML page, no scripts: throughput bars per figure and latency bars per append figure.
    public func html() -> String {
        let throughput = figures.filter { $0.changesPerSecond > 0 }
        let latency = figures.compactMap { figure in figure.latency.map { (figure.name, $0) } }
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>Logbook benchmark</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em;max-width:60em}td,th{padding:2px 8px;text-align:right}
            td:first-child,th:first-child{text-align:left}svg text{font:12px system-ui,sans-serif}</style></head><body>
            <h1>Logbook benchmark</h1><p>\(escape(workload))<br>\(escape(machine))</p>
            <h2>Throughput (changes/s, log scale)</h2>\(barChart(throughput.map { ("\($0.system): \($0.name)", $0.changesPerSecond, formatCount($0.changesPerSecond), color(for: $0.system)) }, logarithmic: true))
            <h2>Append latency per call (µs, p50 / p99, log scale)</h2>\(barChart(latency.flatMap { [("\($0.0) p50", $0.1.p50, String(format: "%.1f", $0.1.p50), "#4a7bd0"), ("\($0.0) p99", $0.1.p99, String(format: "%.1f", $0.1.p99), "#2c4f91")] }, logarithmic: true))
            <h2>Ratios</h2><table><tr><th>kind</th><th>baseline</th><th>Logbook ÷ baseline</th></tr>
            \(ratios.map { "<tr><td>\($0.kind)</td><td>\($0.baseline)</td><td>\(String(format: "%.2f×", $0.ratio))</td></tr>" }.joined())
            </table></body></html>
            """
    }

    /// Logbook blue, SQLite orange, JSON green, ceilings grey.
    private func color(for system: String) -> String {
        switch system {
        case "Logbook": "#4a7bd0"
        case "SQLite": "#e08a2c"
        case "JSON": "#4f9d5a"
        default: "#9a9a9a"
        }
    }

    private func barChart(
        _ bars: [(label: String, value: Double, text: String, color: String)], logarithmic: Bool
    )
        -> String
    {
        let width = 900.0
        let labelWidth = 420.0
        let rowHeight = 22.0
        let largest = bars.map(\.value).max() ?? 1
        func scale(_ value: Double) -> Double {
            guard value > 0 else { return 0 }
            if logarithmic {
                return max(2, (width - labelWidth - 90) * log10(value + 1) / log10(largest + 1))
            }
            return (width - labelWidth - 90) * value / largest
        }
        let rows = bars.enumerated().map { index, bar in
            let y = Double(index) * rowHeight
            return """
                <text x="0" y="\(y + 15)">\(escape(bar.label))</text>\
                <rect x="\(labelWidth)" y="\(y + 3)" width="\(scale(bar.value))" height="16" fill="\(bar.color)"/>\
                <text x="\(labelWidth + scale(bar.value) + 6)" y="\(y + 15)">\(escape(bar.text))</text>
                """
        }
        return
            "<svg width=\"\(Int(width))\" height=\"\(Int(Double(bars.count) * rowHeight + 4))\" xmlns=\"http://www.w3.org/2000/svg\">\(rows.joined())</svg>"
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(
            of: "<", with: "&lt;"
        )
        .replacingOccurrences(of: ">", with: "&gt;")
    }

    private enum CodingKeys: String, CodingKey { case machine, workload, figures }
}
