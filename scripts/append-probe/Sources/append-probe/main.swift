import Foundation
import Logbook
import LogbookCRDT
import LogbookWorkloads

// Usage: append-probe [append|state] [CHANGES]
//   append  the standard workload's operations, one `Logbook` call each, `.buffered`, through
//           `Operation.apply(to:)` as `logbook bench log` calls them
//   state   the same calls on a bare `ReplicaState` (no admission, lock, log or async call)
// Environment: LOOPS (default 3) runs per process; SNAPSHOTS_OFF=1 writes no snapshot on
// close (so callgrind counts the loop, not the snapshot); TIMED=1 times every call, as the
// bench once did.
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

func freshLogbook() throws -> Logbook {
    try? FileManager.default.removeItem(atPath: directory)
    var options = LogbookOptions()
    options.durability = .buffered
    options.log.segmentSizeMax = 4 * 1024 * 1024
    if environment["SNAPSHOTS_OFF"] != nil { options.snapshots = .off }
    return try Logbook.open(directory: directory, nodeId: 1, options: options)
}

func stateOnce() throws {
    let state = ReplicaState(nodeId: 1)
    let started = ContinuousClock.now
    var count = 0
    for operation in operations { count += try operation.apply(to: state) }
    report("state", count, started)
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
    default:
        print("usage: append-probe [append|state] [CHANGES]")
        exit(2)
    }
}
try? FileManager.default.removeItem(atPath: directory)
