import Foundation
import Logbook

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
    // @unchecked: its state is only touched by the single thread doing the long operation.
    package static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// What `done` and `total` count: printed as a size, or as a plain count.
    package enum Unit: Sendable {
        case bytes, items
    }

    private let label: String
    private let unit: Unit
    private var lastDraw = ContinuousClock.now - .seconds(1)
    /// A line is drawn and not yet ended.
    private var isOpen = false
    /// The line was ended at 100 %: drawing that again would only repeat it.
    private var isComplete = false

    package init(label: String, unit: Unit = .bytes) {
        self.label = label
        self.unit = unit
    }

    package func update(_ done: Int64, of total: Int64) {
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(100) || done >= total else { return }
        guard !(isComplete && done >= total) else { return }
        lastDraw = now
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar =
            String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let amount = unit == .bytes ? formatBytes(done) : "\(done) of \(total)"
        var standardError = StandardError()
        print(
            "\r\(label) [\(bar)] \(Int(fraction * 100))% \(amount)",
            terminator: done >= total ? "\n" : "", to: &standardError)
        isOpen = done < total
        isComplete = done >= total
    }

    /// Ends the line when the last update left it open (a pass that stopped short).
    package func end() {
        guard isOpen else { return }
        isOpen = false
        var standardError = StandardError()
        print("", to: &standardError)
    }
}

/// One progress bar per phase of a maintenance pass (`MaintenanceProgress`), each line ended
/// when the next phase begins; nil off a terminal.
package final class PhasedProgressBar: @unchecked Sendable {
    // @unchecked: the lock guards the bars; a pass reports from one thread at a time.
    private let label: String
    private let lock = NSLock()
    private var phase: String?
    private var bar: ProgressBar?

    package init?(label: String) {
        guard ProgressBar.isTerminal else { return nil }
        self.label = label
    }

    package func update(
        _ phase: String, _ done: Int64, of total: Int64, unit: ProgressBar.Unit = .bytes
    ) {
        lock.withLock {
            if phase != self.phase {
                bar?.end()
                self.phase = phase
                bar = ProgressBar(label: "\(label): \(phase)", unit: unit)
            }
            bar?.update(done, of: total)
        }
    }

    /// Ends the open line, if any.
    package func end() { lock.withLock { bar?.end() } }
}

extension PhasedProgressBar {
    /// A compaction's or a GC's progress (`MaintenanceProgress`) drawn here: keys read
    /// counted in log offsets, rewriting in bytes.
    package var maintenanceProgress: MaintenanceProgress {
        { [self] phase, done, total in
            update(phase.rawValue, done, of: total, unit: phase == .readingKeys ? .items : .bytes)
        }
    }
}
