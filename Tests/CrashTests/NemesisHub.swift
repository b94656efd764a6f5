import Foundation
import LogbookTesting

/// The nemesis's hub: one `logbook hub serve` on a PostgreSQL cluster of its own (so that
/// `pg_ctl restart -m immediate` cuts no other test's connections), behind a
/// `LoopbackProxy` the nodes push and pull through, on a fixed port so that a hub killed
/// and started again is found where it was.
final class NemesisHub: @unchecked Sendable {
    // @unchecked: used from one test task at a time.
    let database: PrivateCluster
    let stream: String
    let tokenFile: String
    let scratch: String
    let port: Int
    let proxy: LoopbackProxy
    private let executable: URL
    private var process: Process?

    /// The URL nodes use: through the proxy.
    var url: String { "http://127.0.0.1:\(proxy.port)" }

    init(executable: URL) async throws {
        self.executable = executable
        database = try await PrivateCluster.started()
        (stream, scratch, tokenFile) = try await HubCommandTests.scratchStream(
            url: database.url, label: "nemesis")
        port = LocalPorts.consecutive()
        proxy = try LoopbackProxy(upstreamPort: port)
        try await start()
    }

    /// Starts the hub and waits for `/readyz` (120 s at most).
    func start() async throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "hub", "serve", "--postgres", database.url, "--port", String(port), "--log-level",
            "warning",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline {
            let ready = try? await HubCommandTests.request(
                "http://127.0.0.1:\(port)/readyz", token: nil)
            if ready?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw NemesisCluster.Failure("the hub did not come up on port \(port)")
    }

    var isRunning: Bool { process?.isRunning == true }

    func kill9() async {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        await process.exited()
        self.process = nil
    }

    /// `pg_ctl restart -m immediate`: no checkpoint, recovery from the WAL.
    func restartDatabase() async throws -> Int32 {
        try await onOwnThread { [database] in database.pgCtl(["-m", "immediate", "-w", "restart"]) }
    }

    func tearDown() async {
        await kill9()
        proxy.stop()
        database.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
