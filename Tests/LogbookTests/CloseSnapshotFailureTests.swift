import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Issue 60, class 4: a snapshot on close that cannot be written does not fail the close.
// The writes were durable; before, `logbook put` exited 1 after its write when only that
// snapshot failed. The failure is said (`lastSnapshotFailure`), and the next open replays.
@Suite struct CloseSnapshotFailureTests {
    @Test func aSnapshotThatCannotBeWrittenOnCloseDoesNotFailTheClose() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var options = LogbookOptions()
        options.snapshots.onCloseAfterBytes = 0
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1, options: options)
        try await logbook.insertOrUpdate("lamp", fields: [("on", true)])
        // The snapshot would be at the offset after its mark: a directory holds that name,
        // so the rename that would install it fails.
        let blocked = directory.appending(
            "snapshot-" + String(format: "%020llu", logbook.nextOffset + 1) + ".replica")
        try FileManager.default.createDirectory(
            atPath: blocked + "/inside", withIntermediateDirectories: true)
        let digest = logbook.stateDigest()
        try logbook.close()
        let failure = try #require(logbook.lastSnapshotFailure)
        #expect(failure.contains("snapshot on close not written"), "\(failure)")

        let reopened = try Logbook.open(directory: directory.path)
        defer { try? reopened.close() }
        #expect(reopened.snapshotLoad.file == nil)
        #expect(reopened.stateDigest() == digest)
    }
}
