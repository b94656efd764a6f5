import Logbook
import ServiceLifecycle

/// Ends the node's service group when its Logbook fails a write, so the node can close the
/// log and open it again (`LogbookNode.Configuration.reopenAfterWriteFailure`): a failed
/// instance refuses every write until then, and its memory may hold changes its log lost.
/// Looks ten times a second (one read under the engine's lock); returns on graceful shutdown.
struct WriteFailureWatch: Service {
    let logbook: Logbook
    let interval: Duration

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if let failure = logbook.writeFailure { throw WriteFailureStop(failure: failure) }
            try? await Task.sleep(for: interval)
        }
    }
}

/// The node's Logbook failed a write: `failure` is why.
struct WriteFailureStop: Error, CustomStringConvertible {
    let failure: LogbookError
    var description: String { "a write failed: \(failure)" }
}
