import Foundation
import Logbook
import LogbookTesting
import Testing

// One log, one process: a second open of a directory that is open is refused with the
// holder's pid; closing releases it.
@Suite struct DirectoryLockTests {
    @Test func aSecondOpenIsRefusedUntilTheFirstCloses() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let first = try Logbook.open(directory: directory.path, nodeId: 1)
        let refusal = #expect(throws: LogbookError.self) {
            try Logbook.open(directory: directory.path)
        }
        #expect(refusal?.code == .inUse)
        #expect(
            refusal?.message.contains("pid \(ProcessInfo.processInfo.processIdentifier)") == true)
        try first.close()
        let second = try Logbook.open(directory: directory.path)
        try second.close()
    }
}
