import Foundation
import Logbook
import LogbookCRDT
import LogbookWorkloads

// Usage: append-probe [append|state|group] [CHANGES]
//   append  the standard workload's operations, one `Logbook` call each, `.buffered`, through
//           `Operation.apply(to:)` as `logbook bench log` calls them
//   state   the same calls on a bare `ReplicaState` (no admission, lock, log or async call)
//   group   the same calls split over WRITERS tasks (default 64) with `.groupCommit`, as the
//           bench's group-commit figure makes them; prints the syncs made
// Environment: LOOPS (default 3) runs per process; WRITERS (group only, default 64);
// SYNCS_IN_FLIGHT (group only: `LogbookOptions.groupCommitSyncsInFlightMax`);
// SNAPSHOTS_OFF=1 writes no snapshot on close (so callgrind counts the loop, not the
// snapshot); TIMED=1 times every call, as the bench once did; KEEP_LOG=PATH moves the last
// loop's Logbook directory to PATH instead of removing it.
let arguments = CommandLine.arguments
let environment = ProcessInfo.processInfo.environment
let mode = arguments.count > 1 ? arguments[1] : "append"
let changes = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let loops = Int(environment["LOOPS"] ?? "3") ?? 3
let operations = StandardWorkload.operations(records: 100_000, changes: changes)
let directory = NSTemporaryDirectory() + "append-probe-\(getpid())"

func seconds(since started: ContinuousClock.Instant) -> Double {
    let (whole, attoseconds) = (ContinuousClock.now - started).components
    return Double(whole) + Double(attoseconds) / 1e18
}

func report(_ label: String, _ count: Int, _ started: ContinuousClock.Instant) {
    let elapsed = seconds(since: started)
    print(label, count, String(format: "%.3f s  %.0f k/s", elapsed, Double(count) / elapsed / 1000))
}

func freshLogbook(_ durability: Durability = .buffered) throws -> Logbook {
    try? FileManager.default.removeItem(atPath: directory)
    var options = LogbookOptions()
    options.durability = durability
    options.log.segmentSizeMax = 4 * 1024 * 1024
    if environment["SNAPSHOTS_OFF"] != nil { options.snapshots = .off }
    if let syncs = environment["SYNCS_IN_FLIGHT"].flatMap({ Int($0) }) {
        options.groupCommitSyncsInFlightMax = syncs
    }
    return try Logbook.open(directory: directory, nodeId: 1, options: options)
}

func stateOnce() throws {
    let state = ReplicaState(nodeId: 1)
    let started = ContinuousClock.now
    var count = 0
    var changes: [Change<String, String, Value>] = []
    for operation in operations { count += try operation.apply(to: state, reusing: &changes) }
    report("state", count, started)
}

/// The operations split over `writers` tasks, each call waiting for the sync covering it.
func groupOnce(writers: Int) async throws {
    let logbook = try freshLogbook(.groupCommit)
    let started = ContinuousClock.now
    let count = try await StandardWorkload.apply(operations, to: logbook, writers: writers)
    report("group", count, started)
    print("syncs", logbook.groupCommitSyncCount)
    try logbook.close()
}

// The awaits stay at top level: valgrind 3.19 stops with a SIGSEGV on this loop when it is
// moved into an async function (Swift 6.3.1).
for _ in 0..<loops {
    switch mode {
    case "append":
        let logbook = try freshLogbook()
        let started = ContinuousClock.now
        var count = 0
        if environment["TIMED"] != nil {
            var timed = Duration.zero
            for operation in operations {
                let callStarted = ContinuousClock.now
                count += try await operation.apply(to: logbook)
                timed += ContinuousClock.now - callStarted
            }
            if timed == .zero { print("no time measured") }
        } else {
            for operation in operations { count += try await operation.apply(to: logbook) }
        }
        try logbook.sync()
        report("append", count, started)
        try logbook.close()
    case "state": try stateOnce()
    case "group": try await groupOnce(writers: Int(environment["WRITERS"] ?? "64") ?? 64)
    default:
        print("usage: append-probe [append|state|group] [CHANGES]")
        exit(2)
    }
}
if let kept = environment["KEEP_LOG"] {
    // The last loop's Logbook directory, moved where KEEP_LOG says (for `logbook compact`
    // and the like on a log the workload wrote).
    try? FileManager.default.moveItem(atPath: directory, toPath: kept)
} else {
    try? FileManager.default.removeItem(atPath: directory)
}
