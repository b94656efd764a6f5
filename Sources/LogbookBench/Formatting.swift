import Foundation

/// `1.5 MB`, `320 KB`, `12 B`: sizes as the reports and the command line print them.
package func formatBytes(_ bytes: Int64) -> String {
    let value = Double(bytes)
    if value >= 1e9 { return String(format: "%.2f GB", value / 1e9) }
    if value >= 1e6 { return String(format: "%.1f MB", value / 1e6) }
    if value >= 1e3 { return String(format: "%.1f KB", value / 1e3) }
    return "\(bytes) B"
}

/// `3.2 M`, `120 k`, `12`.
package func formatCount(_ count: Double) -> String {
    if count >= 1e6 { return String(format: "%.2f M", count / 1e6) }
    if count >= 1e3 { return String(format: "%.1f k", count / 1e3) }
    return String(format: "%.0f", count)
}
