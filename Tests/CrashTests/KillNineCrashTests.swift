import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// Real crashes: a child `LogbookCrashWriter` (a test-only executable) appends with group commit from concurrent
// tasks (in the second case while compacting continuously on another thread) and prints a
// line per acknowledged append; the parent SIGKILLs it at a random moment (seeded), reopens
// the log, and checks that every acknowledged write is there (or a later one), that nothing
// phantom appeared, and that the reopened state equals a replay of what the log holds.
// 20 rounds per case by default; LOGBOOK_CRASH_ROUNDS=N for more.
@Suite(.serialized) struct KillNineCrashTests {
    @Test(arguments: [false, true])
    func everyAcknowledgedAppendSurvivesKillNine(whileCompacting: Bool) async throws {
        guard let executable = LogbookExecutable.built(crashWriter: true) else { return }
        let rounds = Int(ProcessInfo.processInfo.environment["LOGBOOK_CRASH_ROUNDS"] ?? "") ?? 20
        var random = SeededGenerator(
            seed: UInt64(ProcessInfo.processInfo.environment["LOGBOOK_CRASH_SEED"] ?? "") ?? 2024)
        let base = FileManager.default.temporaryDirectory
            .appendingPathComponent("logbook-kill9-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: base) }
        var acknowledged: [String: Int64] = [:]
        var roundsWithAcks = 0
        var compactions = 0
        var directory = base
        for round in 0..<rounds {
            // Five kills in a row on one log (so recovery meets a log that was already cut),
            // then a fresh log, so reopening stays cheap.
            if round % 5 == 0 {
                directory = base + "/\(round)"
                acknowledged = [:]
            }
            // Compaction needs sealed segments first, and on a loaded machine (the whole suite
            // runs in parallel) no delay is long enough for one to finish before the kill. So
            // every other round starts its delay only after the writer reports a compaction:
            // those kills land in later compactions, the other rounds' kills anywhere.
            let delay = Double.random(in: whileCompacting ? 0.05...0.8 : 0.02...0.3, using: &random)
            let awaitCompaction = whileCompacting && round % 2 == 1
            // On a thread of its own: waiting for the writer and sleeping must not hold one of
            // the two task-pool threads the rest of the suite runs on.
            let (lines, reason) = try await onOwnThread { [directory] in
                try runAndKill(
                    executable, directory: directory, after: delay, compacting: whileCompacting,
                    startingAt: awaitCompaction ? "\ncompacted " : "ready\n")
            }
            #expect(reason == .uncaughtSignal, "round \(round): the writer was not killed")
            let acks = lines.compactMap(parseAck)
            compactions += lines.filter { $0.hasPrefix("compacted") }.count
            if !acks.isEmpty { roundsWithAcks += 1 }
            for (recordId, step) in acks {
                acknowledged[recordId] = max(acknowledged[recordId] ?? 0, step)
            }

            let logbook = try Logbook.open(directory: directory)
            // Each writer overwrites its records with rising steps: what survives is the last
            // acknowledged step or a later one that reached the disk before the kill.
            for (recordId, step) in acknowledged {
                let survived = logbook.getRecord(recordId)?.field("step")?.intValue ?? -1
                #expect(
                    survived >= step,
                    "round \(round): \(recordId) lost step \(step) (has \(survived))")
            }
            var logged: [Change<String, String, Value>] = []
            try logbook.forEachChange(since: 0) { _, change in logged.append(change) }
            #expect(
                logged.allSatisfy { $0.recordId.hasPrefix("p") && $0.recordId.contains("/w") },
                "phantom change")
            let replayed = CRDT<String, String, Value>(nodeId: 1, changes: logged)
            #expect(logbook.stateDigest() == StateDigest(of: replayed), "round \(round)")
            try logbook.close()
        }
        #expect(roundsWithAcks >= rounds / 2, "the writer must get going before it is killed")
        if whileCompacting { #expect(compactions > 0, "compactions must run between the kills") }
    }

    /// Starts the writer, waits until it has printed `marker` (its `ready` line, so a slow
    /// start on a loaded machine does not eat the delay, or its first compaction), lets it run
    /// for `delay` seconds, SIGKILLs it; returns the lines it printed and how it ended.
    private func runAndKill(
        _ executable: URL, directory: String, after delay: Double, compacting: Bool,
        startingAt marker: String
    ) throws -> ([Substring], Process.TerminationReason) {
        let process = Process()
        process.executableURL = executable
        process.arguments =
            [directory, "--writers", "8"] + (compacting ? ["--compact"] : [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var data = Data()
        let deadline = Date().addingTimeInterval(60)
        let wanted = Data(marker.utf8)
        var searched = 0  // bytes before this cannot start the marker (acks pile up while waiting)
        while data[searched...].range(of: wanted) == nil && Date() < deadline {
            searched = max(0, data.count - wanted.count)
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // the writer exited before it got there
            data.append(chunk)
        }
        Thread.sleep(forTimeInterval: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        data.append(output.fileHandleForReading.readDataToEndOfFile())
        // Only whole lines count: a line cut by the kill was never fully reported.
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        if !text.hasSuffix("\n"), !lines.isEmpty { lines.removeLast() }
        return (lines, process.terminationReason)
    }

    private func parseAck(_ line: Substring) -> (String, Int64)? {
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "ack", let step = Int64(parts[2]) else { return nil }
        return (String(parts[1]), step)
    }
}
