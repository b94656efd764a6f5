import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

// An app and its extensions at once, as real processes: a writer (`LogbookCrashWriter
// write --compact`) appends from 4 tasks with group commit and compacts continuously, while
// reader processes (`LogbookCrashWriter read`) open the directory read-only, refresh on
// request and print their state, and `logbook verify` checks it beside the writer
// (and `logbook peers list` reads the ledger there).
//
// Each writer task w overwrites its `keys` records in turn with rising steps, so a prefix of
// the log leaves, for the highest step M a state holds of w, exactly the step
// `M - (M - k) % keys` in record k. Every state a reader prints must be such a prefix (the
// log as it stood at one moment), hold every step acknowledged before the refresh was asked
// for, and hold nothing past what the writer acknowledged by the end but the one append
// each task may have had in flight.
@Suite(.serialized) struct ReadersBesideAWriterProcessTests {
    static let keys = 20

    @Test func readersServeConsistentDurablePrefixesWhileTheWriterAppendsAndCompacts()
        async throws
    {
        guard let writer = LogbookExecutable.built(crashWriter: true),
            let logbook = LogbookExecutable.built()
        else { return }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("logbook-readers-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try await onOwnThread {
            try Self.run(writer: writer, logbook: logbook, directory: directory)
        }
        #expect(run.states.count >= 30, "readers printed \(run.states.count) states")
        #expect(run.compactions > 0, "the writer compacted while the readers read")
        #expect(run.verifyStatus == 0, "logbook verify beside the writer: \(run.verifyOutput)")
        #expect(
            run.peersListStatus == 0, "logbook peers list beside the writer: \(run.peersListOutput)"
        )
        var grew = false
        for (index, state) in run.states.enumerated() {
            let highest = Self.checkPrefix(state.records, state: index)
            for (task, acknowledged) in state.acknowledgedBefore {
                #expect(
                    (highest[task] ?? -1) >= acknowledged,
                    "state \(index): \(task) acknowledged step \(acknowledged) before the refresh; the reader has \(highest[task] ?? -1)"
                )
            }
            for (task, step) in highest {
                #expect(
                    step <= (run.acknowledgedAtEnd[task] ?? -1) + 1,
                    "state \(index): \(task) at step \(step), never acknowledged")
            }
            if index > 0, state.offset > run.states[index - 1].offset { grew = true }
        }
        #expect(grew, "refreshes brought later states")
        // Nothing a reader served was lost: the log reopened after the kill holds it.
        let reopened = try Logbook.open(directory: directory)
        defer { try? reopened.close() }
        let final = Self.checkPrefix(
            reopened.records().compactMapValues { $0.fields["step"]?.intValue }, state: -1)
        for state in run.states {
            for (task, step) in Self.checkPrefix(state.records, state: -1) {
                #expect((final[task] ?? -1) >= step, "\(task) step \(step) served, then lost")
            }
        }
    }

    /// One state a reader printed, with the steps acknowledged before it was asked for.
    struct ReadState {
        var offset: UInt64
        var records: [String: Int64]
        var acknowledgedBefore: [String: Int64]
    }

    struct Run {
        var states: [ReadState] = []
        var compactions = 0
        var acknowledgedAtEnd: [String: Int64] = [:]
        var verifyStatus: Int32 = -1
        var verifyOutput = ""
        var peersListStatus: Int32 = -1
        var peersListOutput = ""
    }

    /// Checks that `records` are what a prefix of each task's appends leaves; returns each
    /// task's highest step.
    static func checkPrefix(_ records: [String: Int64], state: Int) -> [String: Int64] {
        var byTask: [String: [Int: Int64]] = [:]
        for (id, step) in records {
            guard let slash = id.lastIndex(of: "/"), let key = Int(id[id.index(after: slash)...])
            else {
                Issue.record("state \(state): unexpected record \(id)")
                continue
            }
            byTask[String(id[..<slash]), default: [:]][key] = step
        }
        var highest: [String: Int64] = [:]
        for (task, steps) in byTask {
            let top = steps.values.max() ?? -1
            highest[task] = top
            for key in 0..<keys {
                let expected: Int64? = key <= top ? top - (top - Int64(key)) % Int64(keys) : nil
                #expect(
                    steps[key] == expected,
                    "state \(state): \(task)/\(key) holds \(steps[key] ?? -1), a prefix ending at step \(top) leaves \(expected ?? -1)"
                )
            }
        }
        return highest
    }

    /// Starts the writer, runs three readers one after another (ten refreshes each) and one
    /// `logbook verify` and `logbook peers list` beside it, then kills it.
    static func run(writer: URL, logbook: URL, directory: String) throws -> Run {
        let acks = AckCollector()
        let process = Process()
        process.executableURL = writer
        process.arguments = [
            "write", directory, "--writers", "4", "--keys", "\(keys)", "--compact",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let collecting = Thread { acks.collect(from: output.fileHandleForReading) }
        collecting.start()
        #expect(acks.wait(until: { $0.compactions > 0 && $0.total > 200 }, seconds: 60))
        var run = Run()
        for _ in 0..<3 {
            run.states += try readStates(with: writer, directory: directory, acks: acks)
        }
        (run.verifyStatus, run.verifyOutput) = try runToEnd(logbook, ["verify", directory])
        (run.peersListStatus, run.peersListOutput) = try runToEnd(
            logbook, ["peers", directory, "list"])
        run.states += try readStates(with: writer, directory: directory, acks: acks)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        _ = acks.wait(until: { $0.ended }, seconds: 10)
        let ended = acks.current
        run.acknowledgedAtEnd = ended.highest
        run.compactions = ended.compactions
        return run
    }

    /// One reader process: its opening state, then ten refreshes, 20 ms apart.
    static func readStates(with executable: URL, directory: String, acks: AckCollector) throws
        -> [ReadState]
    {
        let reader = Process()
        reader.executableURL = executable
        reader.arguments = ["read", directory]
        let input = Pipe()
        let output = Pipe()
        reader.standardInput = input
        reader.standardOutput = output
        reader.standardError = FileHandle.nullDevice
        var acknowledged = acks.current.highest
        try reader.run()
        var lines = LineReader(output.fileHandleForReading)
        var states: [ReadState] = []
        for refresh in 0...10 {
            if refresh > 0 {
                Thread.sleep(forTimeInterval: 0.02)
                acknowledged = acks.current.highest
                input.fileHandleForWriting.write(Data("refresh\n".utf8))
            }
            guard let state = lines.nextState() else {
                Issue.record("the reader printed no state for refresh \(refresh)")
                break
            }
            states.append(
                ReadState(
                    offset: state.offset, records: state.records,
                    acknowledgedBefore: acknowledged))
        }
        try input.fileHandleForWriting.close()
        reader.waitUntilExit()
        #expect(reader.terminationStatus == 0, "the reader failed")
        return states
    }

    static func runToEnd(_ executable: URL, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(
            decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}

/// The writer's output as it arrives: the highest acknowledged step per task.
final class AckCollector: @unchecked Sendable {
    // @unchecked: `state` is guarded by `condition`.
    struct State {
        var highest: [String: Int64] = [:]
        var total = 0
        var compactions = 0
        var ended = false
    }

    private let condition = NSCondition()
    private var state = State()

    var current: State { condition.withLock { state } }

    func collect(from handle: FileHandle) {
        var lines = LineReader(handle)
        while let line = lines.next() {
            let parts = line.split(separator: " ")
            condition.withLock {
                if parts.count == 3, parts[0] == "ack", let step = Int64(parts[2]),
                    let slash = parts[1].lastIndex(of: "/")
                {
                    let task = String(parts[1][..<slash])
                    state.highest[task] = max(state.highest[task] ?? -1, step)
                    state.total += 1
                } else if parts.first == "compacted" {
                    state.compactions += 1
                }
                condition.broadcast()
            }
        }
        condition.withLock {
            state.ended = true
            condition.broadcast()
        }
    }

    func wait(until done: (State) -> Bool, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !done(state) {
            guard condition.wait(until: deadline) else { return done(state) }
        }
        return true
    }
}

/// Whole lines off a pipe; a line cut short by the end is dropped (it was never reported).
struct LineReader {
    private let handle: FileHandle
    private var buffer = Data()

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// A `state … end` block as `BesideWriterReader` prints it.
    mutating func nextState() -> (offset: UInt64, records: [String: Int64])? {
        guard let header = next(), header.hasPrefix("state "),
            let offset = UInt64(header.dropFirst(6))
        else { return nil }
        var records: [String: Int64] = [:]
        while let line = next(), line != "end" {
            let parts = line.split(separator: " ")
            guard parts.count == 3, let step = Int64(parts[2]) else { return nil }
            records[String(parts[1])] = step
        }
        return (offset, records)
    }
}
