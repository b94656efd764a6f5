import Foundation

/// Draws `PeerLagHistory` as an SVG line chart: one line per peer, time across (the window
/// ending at the newest sample), lag in offsets up, with the axis ends labelled and a key.
/// Plain SVG in the page, no script: the page reloads itself to move it on.
enum LagChart {
    static let width = 640.0
    static let height = 220.0
    /// Room for labels left and below; the plot is the rest.
    static let left = 64.0
    static let bottom = 28.0
    static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]

    static func svg(_ samples: [PeerLagHistory.Sample]) -> String {
        let peers = Set(samples.flatMap(\.lags.keys)).sorted()
        guard let first = samples.first, let last = samples.last, !peers.isEmpty else {
            return "<p class=\"no-lag\">No peer has acknowledged anything yet: no lag to draw.</p>"
        }
        let span = max(1, last.time.timeIntervalSince(first.time))
        let highest = max(1, samples.flatMap(\.lags.values).max() ?? 1)
        let plotWidth = width - left - 8
        let plotHeight = height - bottom - 8
        func x(_ time: Date) -> Double {
            left + plotWidth * time.timeIntervalSince(first.time) / span
        }
        func y(_ lag: UInt64) -> Double { 8 + plotHeight * (1 - Double(lag) / Double(highest)) }
        var svg = """
            <svg class="lag-chart" xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" \
            height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" \
            aria-label="each peer's lag in offsets over the last \(Int(span)) seconds">
            <rect x="\(left)" y="8" width="\(plotWidth)" height="\(plotHeight)" fill="#fafafa" stroke="#999"/>
            <text x="\(left - 6)" y="16" text-anchor="end" font-size="11">\(highest)</text>
            <text x="\(left - 6)" y="\(8 + plotHeight)" text-anchor="end" font-size="11">0</text>
            <text x="\(left)" y="\(height - 10)" font-size="11">\(Int(span)) s ago</text>
            <text x="\(width - 8)" y="\(height - 10)" text-anchor="end" font-size="11">now</text>

            """
        for (index, peer) in peers.enumerated() {
            let color = colors[index % colors.count]
            let points = samples.compactMap { sample in
                sample.lags[peer].map { String(format: "%.1f,%.1f", x(sample.time), y($0)) }
            }
            svg += """
                <polyline class="lag" data-peer="\(StatusPageText.escaped(peer))" fill="none" \
                stroke="\(color)" stroke-width="2" points="\(points.joined(separator: " "))"/>
                <text x="\(left + 8)" y="\(24 + 14 * Double(index))" font-size="11" \
                fill="\(color)">\(StatusPageText.escaped(peer))</text>

                """
        }
        return svg + "</svg>"
    }
}
