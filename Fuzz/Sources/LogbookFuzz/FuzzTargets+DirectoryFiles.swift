import Foundation
import Logbook
import LogbookCRDT
import LogbookStorage
import LogbookTesting

/// The small files beside a log, as a hostile or damaged directory holds them: a node's
/// directory (segments, a snapshot, a GC round with fences, a registered peer) is built once
/// on a simulated file system; each input replaces one of its small files. The first byte
/// picks the file (its low bits) and, for the checksummed ones, whether a valid checksum
/// line is appended so the body's parser is reached (its high bit); the rest is the file.
///
/// Properties: opening refuses the directory or opens it to the state the log holds (a
/// small file never changes the records); replication, GC, a write and a close then run
/// without a trap; a push to a hub that takes everything succeeds and ends with its cursor
/// at the durable end, a position the log holds; and what this build opened and wrote it opens again, to the same state.
extension FuzzTarget {
    /// The small files an input may replace.
    static let directoryFileNames = [
        "epochs", "segments.manifest", "logbook.json", "peers.json", "tombstone-gc.json",
    ]
    /// Those written as checksummed lines (`crc32c <hex>` last).
    static let checksummedFileNames: Set<String> = ["epochs", "segments.manifest"]
    /// The directory's path on each run's simulated file system.
    static let directoryPath = "/node"

    static func directoryFiles(_ bytes: UnsafeRawBufferPointer) {
        guard let selector = bytes.first else { return }
        let name = directoryFileNames[Int(selector & 0x7F) % directoryFileNames.count]
        var content = Array(bytes.dropFirst())
        if selector & 0x80 != 0, checksummedFileNames.contains(name) {
            content += Array("crc32c \(String(CRC32C.checksum(content), radix: 16))\n".utf8)
        }
        let base = FuzzDirectory.base
        let fileSystem = SimulatedFileSystem()
        do {
            try fileSystem.createDirectory(directoryPath)
            for (file, bytes) in base.files {
                try fileSystem.replaceFile(
                    directoryPath + "/" + file, with: bytes, durable: false)
            }
            try fileSystem.replaceFile(directoryPath + "/" + name, with: content, durable: false)
        } catch {
            preconditionFailure("the simulated directory could not be written: \(error)")
        }
        let options = FuzzDirectory.options(fileSystem)
        guard let logbook = try? Logbook.open(directory: directoryPath, nodeId: 1, options: options)
        else { return }
        precondition(
            logbook.stateDigest() == base.digest, "\(name) changed the state the log opens to")
        exercise(logbook)
        let digest = logbook.stateDigest()
        try? logbook.close()
        do {
            let again = try Logbook.open(directory: directoryPath, nodeId: 1, options: options)
            precondition(again.stateDigest() == digest, "reopened to another state")
            try? again.close()
        } catch {
            preconditionFailure("a directory this build opened and wrote did not open: \(error)")
        }
    }

    /// What a node does with an open directory: answer a fetch and a state page, run GC
    /// with its peers' ledger, write and sync.
    private static func exercise(_ logbook: Logbook) {
        for offset in [0, logbook.durableOffset / 2, logbook.durableOffset] {
            _ = try? logbook.storedBatches(from: offset, maxBytes: 1 << 16)
        }
        if let peers = try? PeerLedger(for: logbook) {
            let source = ReplicationSource(logbook: logbook, ledger: peers)
            _ = source.statePage(after: nil, changesMax: 64)
            try? source.accept(.init(node: 2, offset: logbook.durableOffset, logEnd: 0))
            var options = TombstoneCollectionOptions()
            options.retentionSeconds = 0
            options.now = FuzzDirectory.now.addingTimeInterval(60)
            // GC restarts every pull whose merges this log lost before it reads the cursors.
            // One refused before it reads any (a ledger that lost its membership) restarts
            // none: the next pull does (`ReplicationSession`).
            let collected = (try? logbook.collectTombstones(peers: peers, options)) != nil
            for peer in peers.all.keys where collected {
                precondition(
                    peers.reasonPullNotHeld(peer, by: logbook) == nil,
                    "GC left a pull cursor whose merges this log does not hold: \(peer)")
            }
        }
        FuzzDirectory.blocking {
            _ = try? await logbook.insertOrUpdate("fuzz/written", fields: [("v", .int(1))])
            _ = try? await logbook.deleteRecord("r/3")
        }
        try? logbook.sync()
        if let peers = try? PeerLedger(for: logbook) { push(logbook, peers) }
    }

    /// Pushes the log to a hub that takes everything, from whatever cursor, epoch and echo
    /// ranges `peers.json` holds for it.
    private static func push(_ logbook: Logbook, _ peers: PeerLedger) {
        let session = PushSession(logbook: logbook, ledger: peers, transport: FuzzHub())
        // The hub takes everything and the log is sound: a push that fails would fail for
        // good, and this node's changes would never reach the hub.
        let failure = FuzzDirectory.blocking { () async -> String? in
            do {
                _ = try await session.pushAll()
                return nil
            } catch {
                return "\(error)"
            }
        }
        precondition(
            failure == nil, "a push to a hub that takes everything failed: \(failure ?? "")")
        let cursor = peers.pushCursor(for: FuzzHub.name)
        precondition(
            cursor == logbook.durableOffset,
            "the push ended at \(cursor), the durable end is \(logbook.durableOffset)")
        let reason = session.positionNotHeld(cursor)
        precondition(
            reason == nil, "the push ended at a position the log does not hold: \(reason ?? "")")
    }
}

/// A hub that takes every push whole.
private struct FuzzHub: PushTransport {
    static let name = "http://hub/streams/fuzz"
    var peerName: String { Self.name }

    func push(_ batches: [UInt8], changeCount: Int) async throws -> PushReceipt {
        PushReceipt(accepted: changeCount)
    }
}

/// The directory every `directory-files` input starts from.
enum FuzzDirectory {
    /// The wall-clock time its GC ran at.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Its files by name, and the digest of the state it opens to.
    struct Base: Sendable {
        var files: [(String, [UInt8])]
        var digest: StateDigest
    }

    static let base: Base = blocking { await build() }

    /// Small segments and batches, so the log spans several; no group commit to wait for.
    static func options(_ fileSystem: SimulatedFileSystem) -> LogbookOptions {
        var options = LogbookOptions()
        options.durability = .buffered
        options.fileSystem = fileSystem
        options.log.segmentSizeMax = 4096
        options.log.batchSizeTarget = 512
        return options
    }

    /// Node 1 writes 60 records and deletes every fifth, registers node 2 (which has
    /// acknowledged everything), collects the tombstones (fencing them), writes a snapshot
    /// and a tail after it. No hub: a node that pushes to one does not collect by the mesh
    /// rule, so the push side is reached through the `peers-hub-*` seeds.
    private static func build() async -> Base {
        let fileSystem = SimulatedFileSystem()
        let path = FuzzTarget.directoryPath
        do {
            try fileSystem.createDirectory(path)
            let logbook = try Logbook.open(directory: path, nodeId: 1, options: options(fileSystem))
            for index in 0..<60 {
                try await logbook.insertOrUpdate(
                    "r/\(index)",
                    fields: [("name", .string("n\(index)")), ("v", .int(Int64(index)))])
            }
            for index in stride(from: 0, to: 60, by: 5) {
                try await logbook.deleteRecord("r/\(index)")
            }
            try logbook.sync()
            let peers = try PeerLedger(for: logbook)
            try peers.register(2)
            try peers.setCursor(
                10, for: "http://node-2", nodeId: 2, mergedInto: logbook.durablePosition)
            try peers.acknowledge(
                .init(offset: logbook.durableOffset, peerLogEnd: 10, peerCollectedBelow: 0),
                byNode: 2)
            var collection = TombstoneCollectionOptions()
            collection.retentionSeconds = 0
            collection.now = now
            let report = try logbook.collectTombstones(peers: peers, collection)
            precondition(report.collected > 0, "the base directory collected nothing")
            _ = try logbook.writeSnapshot()
            for index in 60..<70 {
                try await logbook.insertOrUpdate("r/\(index)", fields: [("v", .int(Int64(index)))])
            }
            try logbook.sync()
            let digest = logbook.stateDigest()
            try logbook.close()
            let names = try fileSystem.contentsOfDirectory(path).sorted()
            let files = names.compactMap { name in
                fileSystem.contents(of: path + "/" + name).map { (name, $0) }
            }
            return Base(files: files, digest: digest)
        } catch {
            preconditionFailure("the base directory could not be built: \(error)")
        }
    }

    /// Runs `body` to its end from synchronous code (libFuzzer calls targets synchronously).
    static func blocking<Result: Sendable>(_ body: @escaping @Sendable () async -> Result)
        -> Result
    {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<Result>()
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        guard let value = box.value else { preconditionFailure("the task ended without a value") }
        return value
    }

    /// Carries a task's result to the thread waiting for it (the semaphore orders the two).
    private final class ResultBox<Value>: @unchecked Sendable {
        var value: Value?
    }
}
