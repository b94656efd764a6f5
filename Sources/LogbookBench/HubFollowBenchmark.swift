import AsyncHTTPClient
import Foundation
import Logbook
import LogbookCRDT
import LogbookHub
import LogbookShipping
import NIOCore

/// The hub serving many nodes at once, in-process on loopback: `followers` simulated nodes
/// long-polling one stream while one node pushes `rate` changes a second (the lag from a
/// push being sent to each follower's answer covering it), and `writers` Logbook nodes
/// writing at once through `HubLink` (how long after the last write every node holds the
/// same state). The hub, the simulated nodes and PostgreSQL share the machine.
struct HubFollowBenchmark {
    let store: HubStore
    let followers: Int
    let writers: Int
    /// Seconds of pushing while followers follow.
    let followSeconds: Int
    let progress: (String) -> Void

    /// Changes pushed per second while followers follow, in pushes every 10 ms.
    static let rate = 10_000
    /// Changes each writing node writes, one every 20 ms.
    static let writesPerNode = 100

    func run() async throws -> [BenchFigure] {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: max(followers, writers * 2) + 8)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let server = try await HubServer(store: store).start()
        var figures: [BenchFigure] = []
        do {
            for streamed in [true, false] {
                progress("hub lag, \(followers) followers, \(streamed ? "streamed" : "long polls")")
                figures.append(try await lag(server, client, streamed: streamed))
            }
            progress("hub convergence, \(writers) writing nodes")
            figures.append(try await convergence(server, client))
        } catch {
            server.stop()
            try? await client.shutdown()
            throw error
        }
        server.stop()
        try await client.shutdown()
        return figures
    }

    private func newStream(_ label: String) async throws -> (url: String, token: String) {
        let name = "bench-\(label)-\(UUID().uuidString.prefix(8))"
        return (name, try await store.createToken(streams: [name], readOnly: false))
    }

    // MARK: Lag

    /// When one follower's answers moved its cursor: the version it had then seen in full.
    typealias Arrival = (version: UInt64, at: ContinuousClock.Instant)

    private func lag(_ server: RunningServer, _ client: HTTPClient, streamed: Bool) async throws
        -> BenchFigure
    {
        let (name, token) = try await newStream("follow")
        let base = server.url() + "/streams/" + name
        let stopped = StopFlag()
        let arrivals = try await withThrowingTaskGroup(of: [Arrival].self) { group in
            for _ in 0..<followers {
                group.addTask {
                    try await Self.follow(
                        base, token: token, client: client, streamed: streamed, until: stopped)
                }
            }
            // Every follower has a poll waiting before the first push.
            try await Task.sleep(for: .milliseconds(1000 + followers))
            let pushed = try await Self.push(
                base, token: token, client: client, seconds: followSeconds)
            let pushesEnded = ContinuousClock.now
            try await Task.sleep(for: .seconds(2))  // the last answers arrive
            stopped.stop()
            var all: [[Arrival]] = []
            for try await followed in group { all.append(followed) }
            return (pushed, all, pushesEnded)
        }
        let (pushed, followed, pushesEnded) = arrivals
        let sent = pushed.sent
        var lags = LatencyRecorder()
        var missed = 0
        for arrivals in followed {
            var next = arrivals.startIndex
            for (version, at) in sent {
                while next < arrivals.endIndex, arrivals[next].version < version { next += 1 }
                guard next < arrivals.endIndex else {
                    missed += 1
                    continue
                }
                lags.record(arrivals[next].at - at)
            }
        }
        let written = sent.count * (Self.rate / 100)
        // The writes keep their pace; the pushes carry what is due. Should pushing still end
        // late, the rate reached is what the lag was measured at.
        let pushing = max(pushesEnded - (sent.first?.at ?? pushesEnded), .milliseconds(10))
        return BenchFigure(
            system: "Hub",
            name:
                "lag, one pusher to \(followers) \(streamed ? "streaming" : "long-polling") nodes at \(Self.rate) changes/s",
            changesPerSecond: Double(written) / pushing.seconds,
            latency: lags.percentiles(),
            note:
                "a change written → a follower's answer covering it, for every 10 ms of writes (\(Self.rate / 100) changes) and every follower; writes paced over \(followSeconds) s, pushed one push at a time with all that was due, done after \(String(format: "%.1f", pushing.seconds)) s (changes/s: the rate reached), \(missed) pairs not covered; followers take whole answers, they do not merge them; of the lag, a change written → the hub's answer to its push (after the commit) took \(pushed.acknowledged.summary) over \(pushed.pushes) pushes"
        )
    }

    /// One simulated node: follows from its cursor until `stopped`, as a node's session
    /// fetches (`HTTPReplicationTransport`, a streamed follow or long polls), noting each
    /// move.
    private static func follow(
        _ base: String, token: String, client: HTTPClient, streamed: Bool,
        until stopped: StopFlag
    ) async throws -> [Arrival] {
        var transport = HTTPReplicationTransport(peer: base, token: token, client: client)
        transport.streamsFollows = streamed
        defer { transport.closeFollowStream() }
        var arrivals: [Arrival] = []
        var offset: UInt64 = 0
        while !stopped.isStopped {
            let answer = try await transport.fetchBatches(
                from: offset, epoch: nil, maxBytes: 4 << 20, wait: .seconds(1))
            guard case .batches(let batches) = answer else {
                throw ReplicationError(message: "follower: \(answer)")
            }
            if !batches.bytes.isEmpty {
                arrivals.append((HubOffsets.since(batches.nextOffset), .now))
                offset = batches.nextOffset
            }
        }
        return arrivals
    }

    /// Writes `rate / 100` changes every 10 ms for `seconds` and pushes them as a node's
    /// push session does: one push at a time, each carrying everything written since the
    /// last (as shipped batches), so a slow commit makes the next push larger, not the
    /// writer slower.
    private static func push(_ base: String, token: String, client: HTTPClient, seconds: Int)
        async throws -> Pushed
    {
        let replica = CRDT<String, String, Value>(nodeId: 1)
        let ticks = (0..<(seconds * 100)).map { tick in
            (0..<(rate / 100)).flatMap { index in
                replica.insertOrUpdate("r\(index)", fields: [("v", .int(Int64(tick)))])
            }
        }
        let tickLength = Duration.milliseconds(10)
        let ticksPerPushMax = HubStore.pushChangesMax / max(1, rate / 100)
        var sent: [Arrival] = []
        var acknowledged = LatencyRecorder()
        var pushes = 0
        let started = ContinuousClock.now
        var next = 0
        while next < ticks.count {
            let elapsed = ContinuousClock.now - started
            let due = min(ticks.count, Int(elapsed / tickLength) + 1, next + ticksPerPushMax)
            guard due > next else {
                try await Task.sleep(until: started + tickLength * next)
                continue
            }
            var writer = ShippedBatchWriter()
            for change in ticks[next..<due].joined() {
                writer.add(change, at: UInt64(writer.changeCount))
            }
            var request = HTTPClientRequest(url: "\(base)/log")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            request.body = .bytes(ByteBuffer(bytes: writer.finish()))
            let response = try await client.execute(request, timeout: .seconds(30))
            let answer = try await response.body.collect(upTo: 1 << 16)
            struct Receipt: Decodable { var hub_version: UInt64 }
            let receipt = try JSONDecoder().decode(
                Receipt.self, from: Data(answer.readableBytesView))
            let answered = ContinuousClock.now
            pushes += 1
            for tick in next..<due {
                sent.append((receipt.hub_version, started + tickLength * tick))
                acknowledged.record(answered - (started + tickLength * tick))
            }
            next = due
        }
        return Pushed(sent: sent, acknowledged: acknowledged, pushes: pushes)
    }

    /// What the pusher of the lag figure did.
    struct Pushed {
        /// For each 10 ms of writes: the version of the push that carried it, and when.
        var sent: [Arrival]
        /// For each 10 ms of writes: from the write to the hub's answer to its push.
        var acknowledged: LatencyRecorder
        var pushes: Int
    }

    // MARK: Convergence

    private func convergence(_ server: RunningServer, _ client: HTTPClient) async throws
        -> BenchFigure
    {
        let (name, token) = try await newStream("converge")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-bench-converge-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let nodes = try (1...writers).map { id in
            try Logbook.open(directory: "\(root)/node\(id)", nodeId: UInt64(id))
        }
        defer { for node in nodes { try? node.close() } }
        let links = try nodes.map { node in
            try HubLink(
                logbook: node, hub: server.url(), stream: name, token: token,
                ledger: PeerLedger(for: node), client: client)
        }
        let tally = LinkTally()
        let syncing = Task {
            await withTaskGroup(of: Void.self) { group in
                for link in links {
                    group.addTask {
                        await link.run(
                            wait: .seconds(5),
                            onPush: {
                                switch $0 {
                                case .failure(let error): tally.note(error)
                                case .success(let report) where report.sent > 0:
                                    tally.notePush(report)
                                case .success: break
                                }
                            },
                            onPull: { if case .failure(let error) = $0 { tally.note(error) } })
                    }
                }
            }
        }
        // Every link stops before the server does, whatever happens: a connection arriving
        // while Hummingbird shuts down traps in NIO (NIOAsyncWriter deinit without finish).
        let outcome: Result<Convergence, any Error>
        do { outcome = .success(try await writeAndConverge(nodes)) } catch {
            outcome = .failure(error)
        }
        syncing.cancel()
        await syncing.value
        let converged = try outcome.get()
        let lastPush = tally.lastPush.map {
            String(format: "%.3f s", ($0 - converged.writesEnded).seconds)
        }
        return BenchFigure(
            system: "Hub", name: "\(writers) nodes writing at once converge",
            changesPerSecond: Double(converged.written) / converged.writing.seconds,
            note:
                "all \(writers) digests equal \(String(format: "%.3f", converged.all.seconds)) s after the last write (the median node's \(String(format: "%.3f", converged.median.seconds)) s; the last push carrying changes ended \(lastPush ?? "-") after it; pushes \(tally.pushSummary)); \(tally.failureSummary); \(Self.writesPerNode) writes per node, one per 20 ms, half to 20 shared records"
        )
    }
    /// What one convergence run measured.
    struct Convergence {
        /// Changes written.
        var written: Int
        /// How long writing took.
        var writing: Duration
        /// When the last write returned.
        var writesEnded: ContinuousClock.Instant
        /// How long after it every node held the merge of every write.
        var all: Duration
        /// How long after it the median node did.
        var median: Duration
    }

    /// Every node writes its share, then every node is watched until it holds the merge.
    private func writeAndConverge(_ nodes: [Logbook]) async throws -> Convergence {
        let started = ContinuousClock.now
        let written = try await withThrowingTaskGroup(of: [Change<String, String, Value>].self) {
            group in
            for node in nodes {
                group.addTask {
                    var mine: [Change<String, String, Value>] = []
                    for index in 0..<Self.writesPerNode {
                        // Half the records are shared by every node: conflicts to resolve.
                        let id =
                            index % 2 == 0 ? "shared-\(index % 40)" : "\(node.nodeId)-\(index)"
                        mine += try await node.insertOrUpdate(
                            id, fields: [("v", .int(Int64(index)))])
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    return mine
                }
            }
            var all: [Change<String, String, Value>] = []
            for try await mine in group { all += mine }
            return all
        }
        let writesEnded = ContinuousClock.now
        let reference = CRDT<String, String, Value>(nodeId: UInt64.max)
        reference.mergeChanges(written)
        let expected = StateDigest(of: reference)
        let deadline = writesEnded + .seconds(120)
        // A node that holds the merge of every write keeps it (nothing is written any
        // more), so each is checked until it first does: walking all 100 states every few
        // milliseconds would take the cores the nodes need to converge.
        var waiting = nodes
        var convergedAfter: [Duration] = []
        while true {
            let before = waiting.count
            waiting.removeAll { $0.stateDigest() == expected }
            convergedAfter += Array(
                repeating: ContinuousClock.now - writesEnded, count: before - waiting.count)
            if waiting.isEmpty { break }
            guard ContinuousClock.now < deadline else {
                throw ReplicationError(
                    message: "\(waiting.count) of \(writers) nodes did not converge in 120 s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let median = convergedAfter.sorted()[convergedAfter.count / 2]
        return Convergence(
            written: written.count, writing: writesEnded - started, writesEnded: writesEnded,
            all: ContinuousClock.now - writesEnded, median: median)
    }
}

/// What the writing nodes' links did, for the figure's note: the pushes that carried
/// changes (summed with `PushReport.add`) and when the last one ended, and the failed pushes
/// and pulls (a failure costs a node its backoff, which the convergence figure includes).
final class LinkTally: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock` (Synchronization's Mutex needs macOS 15).
    private struct State {
        var pushed = PushReport()
        var lastPush: ContinuousClock.Instant?
        var failures = 0
        var firstFailure: String?
    }

    private let lock = NSLock()
    private var state = State()

    func notePush(_ report: PushReport) {
        lock.withLock {
            state.pushed.add(report)
            state.lastPush = .now
        }
    }

    func note(_ error: any Error) {
        lock.withLock {
            state.failures += 1
            if state.firstFailure == nil { state.firstFailure = "\(error)" }
        }
    }

    var lastPush: ContinuousClock.Instant? { lock.withLock { state.lastPush } }

    var pushSummary: String {
        lock.withLock {
            let pushed = state.pushed
            return
                "(pushes: \(pushed.pushes), sent: \(pushed.sent), accepted: \(pushed.accepted), echoes: \(pushed.echoesSkipped))"
        }
    }

    var failureSummary: String {
        lock.withLock {
            state.failures == 0
                ? "no push or pull failed"
                : "\(state.failures) pushes or pulls failed (first: \(state.firstFailure ?? ""))"
        }
    }
}

/// Tells the simulated followers to stop after their current poll.
final class StopFlag: @unchecked Sendable {
    // @unchecked: the flag is guarded by `lock`.
    private let lock = NSLock()
    private var stopped = false
    var isStopped: Bool { lock.withLock { stopped } }
    func stop() { lock.withLock { stopped = true } }
}
