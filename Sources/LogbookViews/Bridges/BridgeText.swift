import Foundation

/// The drawbridge answers as `logbook bridges` prints them: table rows and the heatmap.
extension BridgeStatsView.Bucket {
    /// The columns of `tableRow`.
    public static let tableHeader = [
        "id", "year", "month", "weekday", "hour", "count", "average", "probability", "confidence",
    ]

    /// One bucket as table cells.
    public var tableRow: [String] {
        [
            "\(key.entityId)", "\(key.year)", "\(key.month)", "\(key.weekday)", "\(key.hour)",
            "\(count)", BridgeStatsView.durationLabel(minutes: averageMinutes),
            String(
                format: "%.2f %@", probability, BridgeStatsView.probabilityLabel(probability)),
            String(format: "%.1f %@", confidence, BridgeStatsView.confidenceLabel(confidence)),
        ]
    }
}

extension BridgeStatsView.BridgeSummary {
    /// The columns of `tableRow`.
    public static let tableHeader = ["id", "bridge", "openings", "average", "longest", "open now"]

    /// One bridge's summary as table cells.
    public var tableRow: [String] {
        [
            "\(entityId)", name, "\(openings)",
            BridgeStatsView.durationLabel(minutes: averageMinutes),
            BridgeStatsView.durationLabel(minutes: Double(longestMinutes)), "\(currentlyOpen)",
        ]
    }
}

extension BridgeStatsView.Prediction {
    /// The columns of `tableRow`.
    public static let tableHeader = [
        "id", "bridge", "openings", "probability", "confidence", "typical",
    ]

    /// One bridge's outlook as table cells.
    public var tableRow: [String] {
        [
            "\(entityId)", name, "\(openings)",
            String(
                format: "%.2f %@", probability, BridgeStatsView.probabilityLabel(probability)),
            BridgeStatsView.confidenceLabel(confidence),
            BridgeStatsView.durationLabel(minutes: averageMinutes),
        ]
    }
}

extension BridgeTallies {
    /// Openings per weekday × hour (`weekdayHourCounts`) as text, each cell shaded against
    /// the busiest one.
    public static func heatmap(_ counts: [[Int]], openings: Int, bridge: Int64?) -> String {
        let busiest = max(1, counts.flatMap { $0 }.max() ?? 1)
        let shades = [" ", "░", "▒", "▓", "█"]
        var lines = [
            "openings by weekday × hour\(bridge.map { " (bridge \($0))" } ?? ""), \(openings) in all; █ = \(busiest)",
            "      " + (0..<24).map { $0 % 3 == 0 ? String(format: "%-3d", $0) : "" }.joined(),
        ]
        for (index, day) in ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].enumerated()
        where index < counts.count {
            let cells = counts[index].map { count in
                count == 0 ? "·" : shades[min(4, 1 + count * 4 / busiest)]
            }
            lines.append("  \(day) " + cells.joined())
        }
        return lines.joined(separator: "\n")
    }
}
