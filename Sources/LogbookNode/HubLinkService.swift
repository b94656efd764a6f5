import Foundation
import Logbook
import LogbookShipping
import Logging
import ServiceLifecycle

/// Where a node syncs through a hub: one stream on one hub, with a token that grants it.
public struct HubTarget: Sendable, Equatable {
    /// The hub's base URL, e.g. `http://127.0.0.1:7400`.
    public var url: String
    /// The stream's name.
    public var stream: String
    /// A token the hub gave for the stream (`logbook hub token create`).
    public var token: String

    /// A stream on a hub.
    public init(url: String, stream: String, token: String) {
        self.url = url
        self.stream = stream
        self.token = token
    }
}

/// Pushes to and pulls from one hub stream as a service (`HubLink.run`: the push follows
/// this log's durable end, the pull long-polls the stream, both back off after failures)
/// until graceful shutdown, which cancels both; cursors move only after what they cover is
/// durable on the other side, so stopping anywhere loses nothing.
struct HubLinkService: Service {
    let link: HubLink
    let wait: Duration
    let logger: Logger

    func run() async throws {
        let summary = PullSummary()
        let logger = logger
        await cancelWhenGracefulShutdown { [link, wait] in
            await link.run(
                wait: wait,
                onPush: { outcome in
                    switch outcome {
                    case .success(let report) where report.sent > 0:
                        logger.debug("pushed \(report.sent) changes; cursor \(report.cursor)")
                    case .success: break
                    case .failure(let error): logger.warning("push failed: \(error); retrying")
                    }
                },
                onPull: { outcome in
                    switch outcome {
                    case .success(let report):
                        if let line = summary.add(report) {
                            logger.info(
                                "pulled \(line.received) changes, accepted \(line.accepted); cursor \(line.cursor)"
                            )
                        }
                    case .failure(let error): logger.warning("pull failed: \(error); retrying")
                    }
                })
        }
    }
}
