import ArgumentParser
import LogbookShipping

/// `--connections-max` and `--idle-timeout` for the commands that listen (`ConnectionLimits`).
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: "Connections open at once, at most half the open-file limit (default 512; hub 4096).")
    var connectionsMax: Int?
    @Option(help: "Close a connection with no request in progress after this many seconds.")
    var idleTimeout = 75.0
    @Option(help: "Large answers (whole GET changes, big pages, snapshots) built at once.")
    var largeAnswersMax = 4

    func validate() throws {
        guard (connectionsMax ?? 1) >= 1, largeAnswersMax >= 1, idleTimeout > 0,
            idleTimeout <= 86_400
        else {
            throw ValidationError(
                "--connections-max and --large-answers-max must be ≥ 1, --idle-timeout in (0, 86400]"
            )
        }
    }

    /// `limits` with what was given.
    func applied(to limits: ConnectionLimits) -> ConnectionLimits {
        var limits = limits
        limits.connectionsMax = connectionsMax ?? limits.connectionsMax
        limits.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        limits.largeAnswersMax = largeAnswersMax
        return limits
    }
}
