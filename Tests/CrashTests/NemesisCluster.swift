import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `logbook serve` processes on loopback, a full mesh of peers, each node behind a
/// `LoopbackProxy` its peers pull through, and, where the test runs as root, each node's
/// directory on a tmpfs of its own (so its disk can be filled). What the nemesis drives.
final class NemesisCluster: @unchecked Sendable {
    // @unchecked: used from one test task at a time.
    typealias PlainChange = Change<String, String, Value>

    final class Node: @unchecked Sendable {
        let nodeId: NodeId
        /// The mount point (or plain directory) holding the node's files.
        let root: String
        var directory: String { root + "/node" }
        var tokenFile: String { root + "-token" }
        var outputFile: String { root + "-serve.log" }
        let port: Int
        let proxy: LoopbackProxy
        var process: Process?
        var mounted = false

        init(nodeId: NodeId, root: String, port: Int, proxy: LoopbackProxy) {
            self.nodeId = nodeId
            self.root = root
            self.port = port
            self.proxy = proxy
        }
    }

    /// Whether the nemesis runs: alone, as `make test`'s second step runs it
    /// (`LOGBOOK_NEMESIS=1 … --filter NemesisTests`). Beside the rest of the suite on two
    /// cores its processes starved other tests' requests past their deadlines.
    static let enabled = ProcessInfo.processInfo.environment["LOGBOOK_NEMESIS"] == "1"

    /// Each node's tmpfs: 24 MiB, or LOGBOOK_NEMESIS_DISK (a `mount -o size=` value).
    static let diskSize = ProcessInfo.processInfo.environment["LOGBOOK_NEMESIS_DISK"] ?? "24m"

    let token = "nemesis-token"
    let executable: URL
    private(set) var nodes: [Node] = []
    let base: String
    /// Set when PostgreSQL's programs are at hand: every node also syncs through it.
    var hub: NemesisHub?

    /// Makes `count` initialized nodes, each registering the others as peers; none serving.
    init(executable: URL, count: Int) async throws {
        self.executable = executable
        base =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "logbook-nemesis-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let firstPort = LocalPorts.consecutive(count)
        for index in 0..<count {
            let root = base + "/n\(index + 1)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let node = Node(
                nodeId: NodeId(index + 1), root: root, port: firstPort + index,
                proxy: try LoopbackProxy(upstreamPort: firstPort + index))
            // A small disk of its own, where mounting is allowed (root): the full-disk fault.
            // Each fault leaves up to a MiB of accepted values behind (the zeros the log
            // keeps written ahead take them before writes fail), so a long run needs more
            // (LOGBOOK_NEMESIS_DISK=1g: tmpfs takes memory only for what is written).
            node.mounted =
                (try? await Self.run(
                    "/bin/mount", ["-t", "tmpfs", "-o", "size=\(Self.diskSize)", "tmpfs", root]))
                == 0
            try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: node.tokenFile))
            nodes.append(node)
        }
        for node in nodes {
            let initialized = try await LogbookExecutable.run(
                ["init", node.directory, "--node", "\(node.nodeId)"])
            guard initialized.status == 0 else {
                throw Failure("init: \(initialized.standardError)")
            }
            for peer in nodes where peer !== node {
                let added = try await LogbookExecutable.run(
                    ["peers", node.directory, "add", "\(peer.nodeId)"])
                guard added.status == 0 else { throw Failure("peers add: \(added.standardError)") }
            }
        }
    }

    /// Whether every node's disk can be filled.
    var disksCanFill: Bool { nodes.allSatisfy(\.mounted) }

    /// Kills whatever runs, unmounts and removes everything; with `keepingLogs`, leaves
    /// the serve logs (beside the mounts) for a failure to be read.
    func tearDown(keepingLogs: Bool = false) async {
        for node in nodes {
            if let process = node.process, process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                await process.exited()
            }
            node.proxy.stop()
            if node.mounted { _ = try? await Self.run("/bin/umount", ["-l", node.root]) }
        }
        await hub?.tearDown()
        if !keepingLogs { try? FileManager.default.removeItem(atPath: base) }
    }

    // MARK: Processes

    /// Starts `node`'s `serve` and waits until it answers (120 s at most: the whole suite on
    /// two cores delays a start by many seconds).
    func start(_ node: Node) async throws {
        let process = Process()
        process.executableURL = executable
        process.arguments =
            [
                "serve", node.directory, "--port", "\(node.port)", "--token-file", node.tokenFile,
                "--interval", "100", "--compact-every", "2",
            ]
            + nodes.filter { $0 !== node }.flatMap {
                ["--peer", "http://127.0.0.1:\($0.proxy.port)"]
            }
            + (hub.map {
                ["--hub", $0.url, "--stream", $0.stream, "--hub-token-file", $0.tokenFile]
            } ?? [])
        if !FileManager.default.fileExists(atPath: node.outputFile) {
            _ = FileManager.default.createFile(atPath: node.outputFile, contents: nil)
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: node.outputFile))
        output.seekToEndOfFile()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        node.process = process
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning && ContinuousClock.now < deadline {
            if await status(node) != nil { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure("node \(node.nodeId) did not come up; \(tail(node))")
    }

    /// SIGKILL, and waits for the process to be gone.
    func kill9(_ node: Node) async {
        guard let process = node.process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        await process.exited()
        node.process = nil
    }

    /// SIGTERM, and waits; returns the exit status.
    func stop(_ node: Node) async -> Int32? {
        guard let process = node.process else { return nil }
        process.terminate()
        await process.exited()
        node.process = nil
        return process.terminationStatus
    }

    /// The last lines `serve` printed, for failure messages.
    func tail(_ node: Node, lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: node.outputFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    // MARK: HTTP

    func request(
        _ node: Node, _ path: String, method: String = "GET", body: Data? = nil,
        timeout: TimeInterval = 10
    ) async throws -> (status: Int, body: Data) {
        guard let url = URL(string: "http://127.0.0.1:\(node.port)\(path)") else {
            throw URLError(.badURL)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = timeout
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// `GET /status` as JSON, or nil while the node does not answer 200.
    func status(_ node: Node) async -> [String: Any]? {
        guard let answer = try? await request(node, "/status"), answer.status == 200 else {
            return nil
        }
        return try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
    }

    /// Whether `/readyz` answers 200 (the node can write).
    func isReady(_ node: Node) async -> Bool {
        (try? await request(node, "/readyz"))?.status == 200
    }

    /// Posts `changes`; true when the node acknowledged them (200).
    func post(_ changes: [PlainChange], to node: Node) async -> Bool {
        guard let body = try? ChangeJSON.encodeArray(changes) else { return false }
        return (try? await request(node, "/changes", method: "POST", body: body))?.status == 200
    }

    /// Every change the node holds, as `GET /changes?since=0` serves them.
    func changes(_ node: Node) async throws -> [PlainChange] {
        // The whole state, read by a debug build on a machine the rest of the suite shares.
        let answer = try await request(node, "/changes?since=0", timeout: 300)
        guard answer.status == 200 else { throw Failure("GET /changes: \(answer.status)") }
        return try ChangeJSON.decodeArray(answer.body, as: PlainChange.self)
    }

    // MARK: Support

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func run(_ path: String, _ arguments: [String]) async throws -> Int32 {
        try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }
}
