import Foundation
import Logbook
import LogbookCRDT
import LogbookHub
import Logging
import NIOCore
import PostgresNIO

/// `logbook bench hub --postgres URL`: the hub's store against a real PostgreSQL. Ingest
/// into one stream by 1, 8 and 64 concurrent pushers (new cells, then the same cells
/// updated), a plain `INSERT` of the same rows without the merge rule as the ceiling, and
/// one reader paging the stream from version 0. Pushes are generated before the clock
/// starts; every figure is a median over `runs`, each into a fresh stream.
struct HubBenchmark {
    let database: HubDatabase
    /// Changes per figure (spread over the pushers).
    let changes: Int
    /// Changes per push.
    let pushChanges: Int
    let runs: Int
    let progress: (String) -> Void

    static let pusherCounts = [1, 8, 64]

    /// Errors only: the figures are the output.
    static let logger = {
        var logger = Logger(label: "logbook.bench.hub")
        logger.logLevel = .error
        return logger
    }()

    func run() async throws -> [BenchFigure] {
        let logger = Self.logger
        _ = try await database.migrate(logger: logger)
        return try await database.withClient(logger: logger) { client in
            try await figures(HubStore(client: client, logger: logger), client)
        }
    }

    private func figures(_ store: HubStore, _ client: PostgresClient) async throws
        -> [BenchFigure]
    {
        var figures: [BenchFigure] = []
        var largest: HubStream?
        for pushers in Self.pusherCounts {
            progress("hub ingest, \(pushers) pusher(s)")
            let (rate, stream) = try await medianOfRuns { try await ingest(store, pushers) }
            largest = stream
            figures.append(
                figure("ingest, new cells, \(pushers) pusher(s)", rate, pushers: pushers))
        }
        progress("hub updates, 8 pushers")
        let (updateRate, _) = try await medianOfRuns {
            try await ingest(store, 8, updateRounds: 1)
        }
        figures.append(
            figure("ingest, updates of held cells, 8 pushers", updateRate, pushers: 8))
        progress("plain INSERT ceiling, 8 pushers")
        let (plainRate, _) = try await medianOfRuns { (try await plainInsert(client, 8), nil) }
        var ceiling = figure(
            "plain INSERT of the same rows, no merge rule, 8 pushers", plainRate, pushers: 8)
        ceiling.system = "ceiling"
        figures.append(ceiling)
        if let largest {
            progress("hub pull")
            let (pullRate, _) = try await medianOfRuns { (try await pull(store, largest), nil) }
            figures.append(
                BenchFigure(
                    system: "Hub", name: "pull by one reader, pages of 10,000", kind: nil,
                    changesPerSecond: pullRate,
                    note: "from version 0 of the 64-pusher stream"))
            let (shippedRate, _) = try await medianOfRuns {
                (try await pullShipped(store, largest), nil)
            }
            figures.append(
                BenchFigure(
                    system: "Hub", name: "pull as shipped batches, answers of 4 MiB", kind: nil,
                    changesPerSecond: shippedRate,
                    note: "what a node's GET log gets (pages framed as LZ4 batches), no HTTP"))
            let (stateRate, _) = try await medianOfRuns {
                (try await readState(store, largest), nil)
            }
            figures.append(
                BenchFigure(
                    system: "Hub", name: "state by one reader, pages of 10,000", kind: nil,
                    changesPerSecond: stateRate,
                    note: "what a resyncing node's GET snapshot reads, in record id order"))
        }
        return figures
    }

    private func figure(_ name: String, _ rate: Double, pushers: Int) -> BenchFigure {
        BenchFigure(
            system: "Hub", name: name, changesPerSecond: rate,
            note: "about \(changes) changes in pushes of \(pushChanges), \(pushers) connection(s)")
    }

    private func medianOfRuns(
        _ body: () async throws -> (rate: Double, stream: HubStream?)
    ) async throws -> (Double, HubStream?) {
        var samples: [Double] = []
        var last: HubStream?
        for _ in 0..<runs {
            let (rate, stream) = try await body()
            samples.append(rate)
            last = stream ?? last
        }
        return (median(samples), last)
    }

    /// Each pusher's pushes: its own records, five columns each, `updateRounds` more
    /// writes of every cell after the first.
    private func pushes(pushers: Int, updateRounds: Int) -> [[[Change<String, String, Value>]]] {
        let perPusher = max(1, changes / pushers / (updateRounds + 1))
        return (0..<pushers).map { pusher in
            let replica = CRDT<String, String, Value>(nodeId: UInt64(pusher + 1))
            var all: [Change<String, String, Value>] = []
            for round in 0...updateRounds {
                for record in 0..<(perPusher / 5) {
                    all += replica.insertOrUpdate(
                        "p\(pusher)-r\(record)",
                        fields: (0..<5).map { ("c\($0)", .int(Int64(round * 1000 + record))) })
                }
            }
            return stride(from: 0, to: all.count, by: pushChanges).map {
                Array(all[$0..<min($0 + pushChanges, all.count)])
            }
        }
    }

    /// Changes merged per second; with `updateRounds`, only the update rounds are timed.
    private func ingest(_ store: HubStore, _ pushers: Int, updateRounds: Int = 0) async throws
        -> (Double, HubStream?)
    {
        let stream = try await store.stream(
            named: "bench-\(UUID().uuidString.prefix(12).lowercased())", create: true)
        let work = pushes(pushers: pushers, updateRounds: updateRounds)
        let firstTimed =
            updateRounds == 0 ? 0 : work.map { $0.count / (updateRounds + 1) }.max() ?? 0
        if firstTimed > 0 {
            try await concurrently(work.map { Array($0.prefix(firstTimed)) }) {
                _ = try await store.merge($0, into: stream)
            }
        }
        let timed = work.map { Array($0.dropFirst(firstTimed)) }
        let started = ContinuousClock.now
        try await concurrently(timed) { _ = try await store.merge($0, into: stream) }
        let seconds = (ContinuousClock.now - started).seconds
        let timedChanges = timed.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        return (Double(timedChanges) / seconds, stream)
    }

    /// The same rows as the 8-pusher ingest, inserted with no merge rule, no stream lock and
    /// no version: what PostgreSQL takes at most, on the same table shape.
    private func plainInsert(_ client: PostgresClient, _ pushers: Int) async throws -> Double {
        try await client.query(
            """
            CREATE TABLE IF NOT EXISTS logbook_bench_plain
                (LIKE logbook_cells INCLUDING DEFAULTS INCLUDING INDEXES)
            """)
        try await client.query("TRUNCATE logbook_bench_plain")
        let work = pushes(pushers: pushers, updateRounds: 0)
        let started = ContinuousClock.now
        try await concurrently(work) { push in
            let cells = HubCellColumns(push)
            try await client.query(
                """
                INSERT INTO logbook_bench_plain (stream_id, record_id, col_name, value,
                    col_version, db_version, node_id, hub_version)
                SELECT 0, * , 0 FROM unnest(\(cells.recordIds)::bytea[], \(cells.columns)::bytea[],
                    \(cells.values)::bytea[], \(cells.colVersions)::int8[],
                    \(cells.dbVersions)::int8[], \(cells.nodeIds)::int8[])
                """)
        }
        let seconds = (ContinuousClock.now - started).seconds
        try await client.query("DROP TABLE logbook_bench_plain")
        return Double(work.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }) / seconds
    }

    /// Changes read per second, paging the whole stream from version 0.
    private func pull(_ store: HubStore, _ stream: HubStream) async throws -> Double {
        let started = ContinuousClock.now
        var since: UInt64 = 0
        var read = 0
        while true {
            let page = try await store.changes(in: stream, since: since, limit: 10_000)
            read += page.changes.count
            since = page.nextSince
            if page.isComplete { break }
        }
        return Double(read) / (ContinuousClock.now - started).seconds
    }

    /// Changes read per second paging the whole state in id order, as a node that must
    /// resync reads it (`HubStore.statePage`).
    private func readState(_ store: HubStore, _ stream: HubStream) async throws -> Double {
        let started = ContinuousClock.now
        var after: String?
        var read = 0
        repeat {
            let page = try await store.statePage(in: stream, after: after, changesMax: 10_000)
            read += page.changes.count
            after = page.nextAfter
        } while after != nil
        return Double(read) / (ContinuousClock.now - started).seconds
    }

    /// Changes read per second as a node's `GET log` reads them: pages of about 4 MiB of
    /// shipped batches (`HubStore.batches`, the hub's default answer bound), from offset 0.
    private func pullShipped(_ store: HubStore, _ stream: HubStream) async throws -> Double {
        let started = ContinuousClock.now
        var offset: UInt64 = 0
        var read = 0
        while true {
            let fetched = try await store.batches(in: stream, from: offset, maxBytes: 4 << 20)
            guard fetched.batchCount > 0 else { break }
            // The hub frames one record per change; the headers count them.
            read += try ShippedBatchReader.announced(in: fetched.bytes).records
            offset = fetched.nextOffset
        }
        return Double(read) / (ContinuousClock.now - started).seconds
    }

    /// Runs each list of pushes in its own task, the pushes of one list in order.
    private func concurrently(
        _ lists: [[[Change<String, String, Value>]]],
        _ push: @escaping @Sendable ([Change<String, String, Value>]) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for list in lists {
                group.addTask { for changes in list { try await push(changes) } }
            }
            try await group.waitForAll()
        }
    }
}
