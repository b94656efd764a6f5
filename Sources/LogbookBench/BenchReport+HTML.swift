import Foundation

/// `logbook bench --html`: a self-contained page, SVG bar charts and the tables of
/// `tables()`, so the page holds every figure the terminal shows.
extension BenchReport {
    /// One HTML page, no scripts: throughput bars per figure and latency bars per append
    /// figure, then every figure as the terminal shows it (all its columns, then
    /// `detailTables`: the latency percentiles, the ratios, the figures against their bounds)
    /// and the notes.
    public func html() -> String {
        let throughput = figures.filter { $0.changesPerSecond > 0 }
        let latency = figures.compactMap { figure in figure.latency.map { (figure.name, $0) } }
        let throughputBars = throughput.map {
            (
                "\($0.system): \($0.name)", $0.changesPerSecond, formatCount($0.changesPerSecond),
                color(for: $0.system)
            )
        }
        let latencyBars = latency.flatMap {
            [
                ("\($0.0) p50", $0.1.p50, String(format: "%.1f", $0.1.p50), "#4a7bd0"),
                ("\($0.0) p99", $0.1.p99, String(format: "%.1f", $0.1.p99), "#2c4f91"),
            ]
        }
        var sections = [
            "<h2>Throughput (changes/s, log scale)</h2>"
                + barChart(throughputBars, logarithmic: true),
            "<h2>Append latency per call (µs, p50 / p99, log scale)</h2>"
                + barChart(latencyBars, logarithmic: true),
            "<h2>Every figure</h2>" + table(Self.figureColumns, figureRows, textColumns: 2),
        ]
        for detail in detailTables {
            let title = detail.title.prefix(1).uppercased() + detail.title.dropFirst()
            sections.append(
                "<h2>\(escape(title))</h2>"
                    + table(detail.columns, detail.rows, textColumns: detail.textColumns))
        }
        let notes = figures.filter { !$0.note.isEmpty }.map {
            "<li><b>\(escape($0.system)) \(escape($0.name))</b>: \(escape($0.note))</li>"
        }
        if !notes.isEmpty { sections.append("<h2>Notes</h2><ul>\(notes.joined())</ul>") }
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>Logbook benchmark</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em;max-width:60em}td,th{padding:2px 8px;text-align:right}
            .t{text-align:left}svg text{font:12px system-ui,sans-serif}</style></head><body>
            <h1>Logbook benchmark</h1><p>\(escape(workload))<br>\(escape(machine))</p>
            \(sections.joined(separator: "\n"))
            </body></html>
            """
    }

    /// An HTML table; every cell escaped, the first `textColumns` columns aligned left
    /// (names) and the rest right (numbers).
    private func table(_ columns: [String], _ rows: [[String]], textColumns: Int = 1) -> String {
        func cells(_ row: [String], tag: String) -> String {
            row.enumerated().map { index, text in
                let align = index < textColumns ? " class=\"t\"" : ""
                return "<\(tag)\(align)>\(escape(text))</\(tag)>"
            }.joined()
        }
        let body = rows.map { "<tr>\(cells($0, tag: "td"))</tr>" }
        return "<table><tr>\(cells(columns, tag: "th"))</tr>\(body.joined())</table>"
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

    /// Text made safe for an element's content or a quoted attribute.
    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

}
