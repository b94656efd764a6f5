import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// The nemesis (issue 60, class 7): three `logbook serve` processes on loopback, each behind a
// fault-injecting proxy its peers pull through, written to by crdt-lite clients whose
// acknowledged changes are recorded, while faults drawn from a seed hit them: `kill -9`
// mid-write, a full disk (a tmpfs of 24 MiB per node, where the test may mount), files
// removed or replaced while a node is down, and connections delayed, cut and replayed.
// After every round: every node heals (`/readyz`), all converge to one digest, every
// acknowledged change is held by every node, and `verify` passes on each stopped
// directory. It runs with LOGBOOK_NEMESIS=1; LOGBOOK_NEMESIS_ROUNDS (default 3) and
// LOGBOOK_NEMESIS_SEED choose the run; docs/TESTING.md has the long tier.
@Suite(.serialized, .enabled(if: NemesisCluster.enabled)) struct NemesisTests {

    typealias PlainChange = Change<String, String, Value>

    @Test func acknowledgedChangesSurviveSeededFaultsOverTheShippedBinaries() async throws {
        guard let executable = LogbookExecutable.built() else { return }
        let environment = ProcessInfo.processInfo.environment
        let rounds = environment["LOGBOOK_NEMESIS_ROUNDS"].flatMap(Int.init) ?? 3
        let seed =
            environment["LOGBOOK_NEMESIS_SEED"].flatMap(UInt64.init) ?? .random(in: 1 ... .max)
        let cluster = try await NemesisCluster(executable: executable, count: 3)
        var run = NemesisRun(seed: seed, cluster: cluster)
        var failed = false
        do {
            if PrivateCluster.enabled { cluster.hub = try await NemesisHub(executable: executable) }
            for node in cluster.nodes { try await cluster.start(node) }
            for round in 1...rounds {
                try await run.round(round, last: round == rounds)
            }
        } catch {
            failed = true
            let tails = cluster.nodes.map { "node \($0.nodeId):\n\(cluster.tail($0))" }
            let report =
                "seed \(seed), round \(run.roundNumber): \(error); serve logs kept in "
                + "\(cluster.base)\n" + tails.joined(separator: "\n")
            Issue.record(Comment(rawValue: report))
        }
        let proxies = cluster.nodes.map(\.proxy) + (cluster.hub.map { [$0.proxy] } ?? [])
        let proxyFaults = proxies.reduce(into: [String: Int]()) { total, proxy in
            for (kind, count) in proxy.injected { total[kind, default: 0] += count }
        }
        print(
            "nemesis: seed \(seed), \(rounds) rounds, faults \(run.faults.sorted { $0.key < $1.key }), "
                + "proxy faults \(proxyFaults.sorted { $0.key < $1.key }), "
                + "\(run.acknowledged.count) changes acknowledged, \(run.refusedBatches) batches refused"
        )
        await cluster.tearDown(keepingLogs: failed)
    }
}

/// One nemesis run: its random source, its clients, what they were told was acknowledged,
/// and the faults injected.
struct NemesisRun {
    typealias PlainChange = Change<String, String, Value>

    var random: SplitMix64
    let cluster: NemesisCluster
    var clients: [CRDT<String, String, Value>]
    var acknowledged: [PlainChange] = []
    var refusedBatches = 0
    /// The round being run: each writes records of its own, since a record a client
    /// deleted takes no more writes from it (crdt-lite's rule).
    var roundNumber = 0
    /// How many changes were acknowledged before this round.
    var acknowledgedBefore = 0
    var faults: [String: Int] = [:]
    /// The records each client padded this round (by client index): it overwrites the
    /// padding once the disk is freed, so the state does not grow by the padding every
    /// round (200 KB values, 1.5 MB a round on each node, filled a 1 GiB disk by round
    /// 650 and made every settle read them all).
    var padded: [Int: Set<String>] = [:]
    static let batchesPerRound = 30
    static let keys = 40

    init(seed: UInt64, cluster: NemesisCluster) {
        random = SplitMix64(seed: seed)
        self.cluster = cluster
        clients = (101...103).map { CRDT(nodeId: NodeId($0)) }
    }

    mutating func round(_ number: Int, last: Bool) async throws {
        roundNumber = number
        acknowledgedBefore = acknowledged.count
        let nodes = cluster.nodes
        for proxy in nodes.map(\.proxy) + (cluster.hub.map { [$0.proxy] } ?? []) {
            let proxyRandom = LockedRandom(seed: random.next())
            proxy.setFaults { proxyRandom.fault() }
        }
        let hubFault = cluster.hub == nil ? 0 : Int.random(in: 0..<3, using: &random)
        let hubFaultAt = Int.random(in: 3..<18, using: &random)
        let killed =
            Bool.random(using: &random) || number == 1 ? nodes.randomElement(using: &random) : nil
        let killAt = Int.random(in: 2..<12, using: &random)
        let filled =
            cluster.disksCanFill && Bool.random(using: &random)
            ? nodes.filter { $0 !== killed }.randomElement(using: &random) : nil
        let fillAt = Int.random(in: 4..<16, using: &random)
        for batch in 0..<Self.batchesPerRound {
            if let killed, batch == killAt {
                await cluster.kill9(killed)
                faults["kill -9", default: 0] += 1
                try damageFiles(of: killed)
            }
            if let killed, batch == killAt + 8 { try await cluster.start(killed) }
            if let filled, batch == fillAt {
                try fillDisk(of: filled)
                faults["disk full", default: 0] += 1
            }
            if let filled, batch == fillAt + 6 { freeDisk(of: filled) }
            if let hub = cluster.hub {
                try await hubFaults(hub, kind: hubFault, at: hubFaultAt, batch: batch)
            }
            try await writeBatch(to: nodes.filter { $0.process != nil })
            if let filled, (fillAt..<(fillAt + 6)).contains(batch), filled.process != nil {
                // Past the 1 MiB of zeros the log keeps written ahead: a write needs space.
                try await writeBatch(to: [filled], padding: 200 * 1024)
            }
        }
        if let killed, killed.process == nil { try await cluster.start(killed) }
        if let filled { freeDisk(of: filled) }
        try await unpad()
        if let hub = cluster.hub, !hub.isRunning { try await hub.start() }
        for proxy in nodes.map(\.proxy) + (cluster.hub.map { [$0.proxy] } ?? []) {
            proxy.setFaults { .none }
        }
        try await settle(round: number, last: last)
        if last, cluster.hub != nil { try await checkTheHubHoldsTheState() }
        try await stopAndVerify(restart: !last)
        // The faults so far on every round's line: a long run stopped by hand still tells.
        let tally = faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        print(
            "nemesis round \(number): passed, \(acknowledged.count) changes acknowledged so far; "
                + "faults so far: \(tally.joined(separator: ", "))")
    }

    /// Kind 1: the hub is killed at `at` and started six batches later; kind 2: its
    /// database restarts at `at` (immediate: recovery from the WAL); 0: neither.
    private mutating func hubFaults(_ hub: NemesisHub, kind: Int, at: Int, batch: Int)
        async throws
    {
        switch (kind, batch) {
        case (1, at):
            await hub.kill9()
            faults["hub kill -9", default: 0] += 1
        case (1, at + 6):
            try await hub.start()
        case (2, at):
            let restarted = try await hub.restartDatabase()
            guard restarted == 0 else { throw NemesisCluster.Failure("pg_ctl restart failed") }
            faults["PostgreSQL restart -m immediate", default: 0] += 1
        default:
            break
        }
    }

    /// A node that never wrote syncs from the hub alone and must reach the nodes' state:
    /// the hub holds every acknowledged change too. Run while the nodes serve, since their
    /// pushes to the hub run behind the mesh: it syncs again until it has the nodes' digest
    /// (three minutes at most).
    func checkTheHubHoldsTheState() async throws {
        guard let hub = cluster.hub, let first = cluster.nodes.first else { return }
        let fresh = cluster.base + "/from-hub"
        let initialized = try await LogbookExecutable.run(["init", fresh, "--node", "99"])
        guard initialized.status == 0 else { throw NemesisCluster.Failure("init from-hub") }
        let expected = await cluster.status(first)?["digest"] as? String
        var held: String?
        let deadline = ContinuousClock.now + .seconds(180)
        while held != expected, ContinuousClock.now < deadline {
            let synced = try await LogbookExecutable.run(
                [
                    "sync", fresh, "--hub", "http://127.0.0.1:\(hub.port)", "--stream", hub.stream,
                    "--token-file", hub.tokenFile,
                ], timeout: .seconds(120))
            guard synced.status == 0 else {
                throw NemesisCluster.Failure("sync from the hub: \(synced.standardError)")
            }
            let replayed = try await LogbookExecutable.run(["replay", fresh]).standardOutput
            held = replayed.split(separator: "\n").first { $0.hasPrefix("digest:") }
                .map { $0.dropFirst("digest:".count).trimmingCharacters(in: .whitespaces) }
            if held != expected { try await Task.sleep(for: .milliseconds(500)) }
        }
        guard expected != nil, held == expected else {
            throw NemesisCluster.Failure(
                "the hub's state differs from the nodes': \(held ?? "-") against \(expected ?? "-")"
            )
        }
    }

    /// One client's changes to one serving node: acknowledged (200) or not.
    private mutating func writeBatch(to serving: [NemesisCluster.Node], padding: Int = 0)
        async throws
    {
        guard let node = serving.randomElement(using: &random) else { return }
        let client = Int.random(in: 0..<clients.count, using: &random)
        var changes: [PlainChange] = []
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            let key = "entity/r\(roundNumber)/e\(Int.random(in: 0..<Self.keys, using: &random))"
            if Int.random(in: 0..<10, using: &random) == 0 {
                changes += clients[client].deleteRecord(key).map { [$0] } ?? []
            } else {
                if padding > 0 { padded[client, default: []].insert(key) }
                changes += clients[client].insertOrUpdate(
                    key,
                    fields: [
                        ("v", .int(Int64.random(in: -1000...1000, using: &random))),
                        ("by", .string("client \(client)")),
                        ("pad", .string(incompressible(count: padding))),
                    ])
            }
        }
        guard !changes.isEmpty else { return }
        if await cluster.post(changes, to: node) {
            acknowledged += changes
        } else {
            refusedBatches += 1
        }
    }

    /// Each client that padded records overwrites its padding with nothing, acknowledged
    /// like any write (a later version of the column than its padding, so it wins over
    /// every client's padding of that record it wrote last). Tried on every node in turn
    /// until one takes it: a refused batch is retried, never dropped.
    private mutating func unpad() async throws {
        for (client, keys) in padded.sorted(by: { $0.key < $1.key }) {
            let changes = keys.sorted().flatMap {
                clients[client].insertOrUpdate($0, fields: [("pad", .string(""))])
            }
            guard !changes.isEmpty else { continue }
            var taken = false
            for attempt in 0..<30 where !taken {
                let node = cluster.nodes[attempt % cluster.nodes.count]
                taken = await cluster.post(changes, to: node)
                if !taken { try await Task.sleep(for: .milliseconds(200)) }
            }
            guard taken else { throw NemesisCluster.Failure("no node took the unpadding") }
            acknowledged += changes
        }
        padded = [:]
    }

    /// Random hexadecimal digits: LZ4 cannot shrink them much, so they take disk space.
    private mutating func incompressible(count: Int) -> String {
        var digits = ""
        digits.reserveCapacity(count + 16)
        while digits.utf8.count < count { digits += String(random.next(), radix: 16) }
        return digits
    }

    /// Removes or replaces files of a stopped node: what an operator or a restore does.
    private mutating func damageFiles(of node: NemesisCluster.Node) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: node.directory)
        let snapshots = files.filter { $0.hasSuffix(".replica") }.sorted()
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            for name in files where name.hasSuffix(".idx") {
                try FileManager.default.removeItem(atPath: node.directory + "/" + name)
            }
            faults["indexes removed", default: 0] += 1
        case 1:
            if let newest = snapshots.last {
                try FileManager.default.removeItem(atPath: node.directory + "/" + newest)
            }
            faults["snapshot removed", default: 0] += 1
        case 2:
            // Another node's snapshot under this one's name: another node and log.
            let other = cluster.nodes.first { $0 !== node && $0.process != nil }
            if let other,
                let foreign = try FileManager.default.contentsOfDirectory(
                    atPath: other.directory
                ).filter({ $0.hasSuffix(".replica") }).sorted().last
            {
                try? FileManager.default.removeItem(atPath: node.directory + "/" + foreign)
                try? FileManager.default.copyItem(
                    atPath: other.directory + "/" + foreign, toPath: node.directory + "/" + foreign)
            }
            faults["foreign snapshot", default: 0] += 1
        case 3:
            try? FileManager.default.removeItem(atPath: node.directory + "/lock")
            faults["lock file removed", default: 0] += 1
        default:
            try? FileManager.default.removeItem(atPath: node.directory + "/epochs")
            faults["epochs removed", default: 0] += 1
        }
    }

    private func fillDisk(of node: NemesisCluster.Node) throws {
        let path = node.root + "/filler"
        let descriptor = open(path, O_CREAT | O_WRONLY, 0o600)
        guard descriptor >= 0 else { throw NemesisCluster.Failure("cannot create \(path)") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xA5, count: 1 << 20)
        while chunk.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func freeDisk(of node: NemesisCluster.Node) {
        try? FileManager.default.removeItem(atPath: node.root + "/filler")
    }

    /// Waits for every node to heal and converge, then checks that each holds every
    /// acknowledged change: merging them into what it serves changes nothing.
    private func settle(round: Int, last: Bool) async throws {
        let nodes = cluster.nodes
        let deadline = ContinuousClock.now + .seconds(180)
        var digests: [String?] = []
        while ContinuousClock.now < deadline {
            var ready = true
            for node in nodes where !(await cluster.isReady(node)) { ready = false }
            digests = []
            for node in nodes { digests.append(await cluster.status(node)?["digest"] as? String) }
            if ready && digests.allSatisfy({ $0 != nil }) && Set(digests).count == 1 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        guard digests.allSatisfy({ $0 != nil }), Set(digests).count == 1 else {
            let tails = nodes.map { "node \($0.nodeId):\n\(cluster.tail($0))" }
            throw NemesisCluster.Failure(
                "round \(round): no convergence, digests \(digests)\n"
                    + tails.joined(separator: "\n"))
        }
        // Every tenth round and the last check everything acknowledged since the start; the
        // others what this round acknowledged (so a long run stays linear in its rounds).
        let checked =
            round % 10 == 0 || last ? acknowledged[...] : acknowledged[acknowledgedBefore...]
        for node in nodes {
            let held = CRDT<String, String, Value>(nodeId: 999)
            held.mergeChanges(try await cluster.changes(node))
            let digest = StateDigest(of: held)
            held.mergeChanges(Array(checked))
            guard StateDigest(of: held) == digest else {
                throw NemesisCluster.Failure(
                    "round \(round): node \(node.nodeId) lost acknowledged changes")
            }
        }
    }

    /// SIGTERM every node (each must exit 0), `verify` each directory, start them again.
    private func stopAndVerify(restart: Bool) async throws {
        for node in cluster.nodes {
            let status = await cluster.stop(node)
            guard status == 0 else {
                throw NemesisCluster.Failure(
                    "node \(node.nodeId) exited \(status.map(String.init) ?? "-") on SIGTERM; "
                        + cluster.tail(node))
            }
            let verified = try await LogbookExecutable.run(["verify", node.directory])
            guard verified.status == 0 else {
                throw NemesisCluster.Failure(
                    "verify node \(node.nodeId): \(verified.standardOutput) \(verified.standardError)"
                )
            }
        }
        guard restart else { return }
        for node in cluster.nodes { try await cluster.start(node) }
    }
}

/// A proxy's own random source, shared by its accepting thread.
final class LockedRandom: @unchecked Sendable {
    // @unchecked: `generator` is guarded by `lock`.
    private let lock = NSLock()
    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    /// Mostly no fault; otherwise a delay, a cut or a replayed first chunk.
    func fault() -> LoopbackProxy.Fault {
        lock.withLock {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: .delay(milliseconds: Int.random(in: 5...200, using: &generator))
            case 1: .cut(afterBytes: Int.random(in: 0...4096, using: &generator))
            case 2: .duplicate
            default: .none
            }
        }
    }
}

/// SplitMix64: a small seeded generator, so a run is repeated from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
