import Foundation
import Logbook
import LogbookCRDT

/// Changes written to standard output as crdt-lite JSON lines, a MiB at a time. A change
/// with no JSON form (a value JSON cannot carry) is left out and remembered with where it
/// was, so the command can name it and fail once the rest is written.
package struct ChangeJSONLinesOutput {
    package let format: ChangeJSONFormat
    private var buffer = Data()
    /// The first few changes left out: where each was (a log offset, a record) and why.
    package private(set) var leftOut: [(place: String, error: ChangeJSONError)] = []
    package private(set) var leftOutCount = 0

    package init(format: ChangeJSONFormat) {
        self.format = format
    }

    /// Buffers the change's line; `place` names it if it has no JSON form.
    package mutating func write(
        _ change: Change<String, String, Value>, place: @autoclosure () -> String
    ) {
        do throws(ChangeJSONError) {
            buffer.append(try ChangeJSON.encode(change, format: format))
        } catch {
            leftOutCount += 1
            if leftOut.count < 10 { leftOut.append((place(), error)) }
            return
        }
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 20 { flush() }
    }

    /// Writes what is buffered.
    package mutating func flush() {
        FileHandle.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, then names on standard error the changes left out; false when there were any.
    package mutating func finish() -> Bool {
        flush()
        guard leftOutCount > 0 else { return true }
        var standardError = StandardError()
        for (place, error) in leftOut {
            print(
                "error: change \(terminalSafe(place)) has no JSON form: \(error)",
                to: &standardError)
        }
        print("error: \(leftOutCount) changes were left out", to: &standardError)
        return false
    }
}
