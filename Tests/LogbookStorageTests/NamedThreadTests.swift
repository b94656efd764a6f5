import Foundation
import Testing

@testable import LogbookStorage

// The engine's own threads carry names the operating system shows (`top -H`, `ps -L`,
// `perf`): `Thread.name` alone sets none on Linux. Method: read the kernel's name of the
// thread back from /proc.
@Suite struct NamedThreadTests {
    @Test(arguments: [
        ("logbook-lz4", "logbook-lz4"),
        // Linux keeps 15 bytes of a name; a longer one is cut, not refused.
        ("logbook-a-name-too-long", "logbook-a-name-"),
    ])
    func theOperatingSystemShowsTheName(name: String, shown: String) async {
        #if os(Linux)
            let seen = await withCheckedContinuation { continuation in
                Thread.startNamed(name) {
                    continuation.resume(returning: Self.kernelName(at: "/proc/thread-self/comm"))
                }
            }
            #expect(seen == shown)
        #endif
    }

    @Test func theGroupCommittersThreadIsNamed() async throws {
        #if os(Linux)
            let committer = GroupCommitter(
                durableOffset: 0, flushForSync: { .durable(0) }, noteDurable: { _ in })
            defer { committer.stop() }
            // The thread names itself as it starts.
            var names: [String] = []
            for _ in 0..<200 {
                names = Self.threadNames()
                if names.contains("logbook-sync-0") { break }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(names.contains("logbook-sync-0"), "\(names)")
        #endif
    }

    /// The kernel's name of a thread, read from its `comm` file at `path`.
    static func kernelName(at path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    /// The kernel's names of this process's threads.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { kernelName(at: "/proc/self/task/\($0)/comm") }
    }
}
