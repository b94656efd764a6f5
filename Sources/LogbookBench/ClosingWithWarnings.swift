import Logbook

/// Closes a command's Logbook; a snapshot on close that failed is a warning on standard
/// error, not a failure: the command's writes are durable, and the next open replays the
/// log instead.
package func close(_ logbook: Logbook) throws {
    try logbook.close()
    guard let failure = logbook.lastSnapshotFailure else { return }
    var standardError = StandardError()
    print("warning: \(terminalSafe(failure))", to: &standardError)
}
