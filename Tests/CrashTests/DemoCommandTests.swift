import Foundation
import Testing

// The README's first command runs the demo: here the built binary runs it, smaller, and
// every part must end as the demo says it does (replicas converged, the reopened log and
// views equal, the two nodes converged before and after tombstone GC).
@Suite struct DemoCommandTests {
    @Test func theDemoRunsToTheEndAndEveryPartConverges() async throws {
        guard LogbookExecutable.built() != nil else { return }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-demo-\(UUID().uuidString.prefix(8))"
        ).path
        defer {
            for suffix in ["", "-views", "-node1", "-node2"] {
                try? FileManager.default.removeItem(atPath: base + suffix)
            }
        }
        let demo = try await LogbookExecutable.run(
            ["demo", "--directory", base, "--records", "2000", "--changes", "20000"])
        #expect(demo.status == 0, "stderr: \(demo.standardError)")
        let output = demo.standardOutput
        #expect(output.components(separatedBy: "converged: yes").count - 1 == 3, "\(output)")
        #expect(output.contains("digests equal to the incremental views'"))
        #expect(output.contains("fences lifted 20 and 20; tombstones held 0 and 0"))
        #expect(!output.contains("converged: no"))
    }
}
