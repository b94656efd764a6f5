import Logbook
import LogbookTesting
import Testing

/// Opens a fresh Logbook (node 1, small buffered log), runs `body`, then checks that the
/// reopened log has the same state digest and clock: what a door admitted reads back.
func withReopenCheckedLogbook(_ body: (Logbook) async throws -> Void) async throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let logbook = try Logbook.open(
        directory: directory.path, nodeId: 1, options: smallLogOptions(.buffered))
    try await body(logbook)
    let (digest, clock) = (logbook.stateDigest(), logbook.clock())
    try logbook.close()
    let reopened = try Logbook.open(directory: directory.path, options: smallLogOptions(.buffered))
    #expect(reopened.stateDigest() == digest)
    #expect(reopened.clock() == clock)
    try reopened.close()
}
