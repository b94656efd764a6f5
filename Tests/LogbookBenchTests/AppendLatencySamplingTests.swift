import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

@testable import LogbookBench

// The one-writer append figures time a sample of their calls: every call makes its write,
// and only every `latencyStride`-th one is timed.
@Suite struct AppendLatencySamplingTests {
    @Test(arguments: [1, 8])
    func everyCallWritesAndOneInTheStrideIsTimed(latencyStride: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let operations = StandardWorkload.operations(records: 50, changes: 400)
        let expected = StandardWorkload.changes(of: operations, nodeId: 1)
        let logbook = try Logbook.open(directory: directory.path, nodeId: 1)
        let outcome = try await LogBenchmark.call(
            operations, logbook, latencyStride: latencyStride)
        #expect(outcome.count == expected.count)
        let reference = ReplicaState(nodeId: 1)
        var changes: [Change<String, String, Value>] = []
        for operation in operations { _ = try operation.apply(to: reference, reusing: &changes) }
        #expect(logbook.getChangesSince(0) == reference.getChangesSince(0))
        let timed = (operations.count + latencyStride - 1) / latencyStride
        #expect(outcome.latency.count == timed)
        try logbook.close()
    }
}
