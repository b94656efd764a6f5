import Foundation

/// Standard error as a `TextOutputStream`.
package struct StandardError: TextOutputStream {
    package init() {}

    package mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}

/// A one-line progress bar on standard error, drawn only when it is a terminal and at most
/// ten times a second.
package final class ProgressBar: @unchecked Sendable {
    // @unchecked: `lastDraw` is only touched by the single thread doing the long operation.
    package static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
    private let label: String
    private var lastDraw = ContinuousClock.now - .seconds(1)

    package init(label: String) { self.label = label }

    package func update(_ done: Int64, of total: Int64) {
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(100) || done >= total else { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar =
            String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        var standardError = StandardError()
        print(
            "\r\(label) [\(bar)] \(Int(fraction * 100))% \(formatBytes(done))",
            terminator: done >= total ? "\n" : "", to: &standardError)
    }
}
