import Foundation
import LogbookStorage

/// What a node remembers about its peers, durably (`peers.json` beside the log): for each
/// peer it pulls from, the offset its next pull starts at; for each peer that pulls from it,
/// what that peer last acknowledged; and which peers are registered, the membership that
/// gates tombstone GC (docs/maintenance.md). Every change is written through a temporary
/// file, synced and renamed, the directory synced after — except progress (`Persistence`).
///
/// Entries are named by the peer's URL (pull cursors) or `node-ID` (acknowledgements and
/// registration); both carry the node id once it is known, which is how GC joins them.
public final class PeerLedger: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`.
    /// One peer's entry.
    public struct Entry: Codable, Equatable, Sendable {
        /// Pull: the offset in the peer's log the next pull starts at.
        public var cursor: UInt64?
        /// The epoch of the last record pulled (the peer's `Logbook-Epoch`): with `cursor`,
        /// the position stated on the next pull.
        public var epoch: UInt64?
        /// Pull: this log's durable end once everything below `cursor` was merged and
        /// synced here (nil when set by an older build). The cursor is true only while this
        /// log holds that position (`PeerLedger+PullPositions`).
        public var mergedInto: UInt64?
        /// Pull: the epoch of this log's record before `mergedInto` (0 when it is 0).
        public var mergedEpoch: UInt64?
        /// Ack: the offset of our log the peer has merged everything below.
        public var acknowledged: UInt64?
        /// Ack: the peer's own durable log end when it sent that acknowledgement. Everything
        /// the peer had logged by then lies below it.
        public var peerLogEnd: UInt64?
        /// Ack: the peer's GC frontier: it has collected every tombstone its log held below
        /// this offset (of its own log).
        public var peerCollectedBelow: UInt64?
        /// The newest acknowledgement whose `peerLogEnd` this node has pulled past: GC may
        /// rely on it (everything the peer had logged when it sent it is merged here).
        public var settledAcknowledged: UInt64?
        /// The `peerLogEnd` of the settled acknowledgement.
        public var settledPeerLogEnd: UInt64?
        /// Acknowledgements not settled yet, as [offset, peerLogEnd] pairs, oldest first (at
        /// most `pendingMax`; the newest replaces the last when full).
        public var pending: [[UInt64]]?
        /// The peer's node id, once known.
        public var nodeId: UInt64?
        /// True for a peer registered with `register` (it gates tombstone GC).
        public var registered: Bool?
        /// True for a peer removed with `unregister`: it no longer gates GC, and its
        /// entries are not "unknown peers" either.
        public var removed: Bool?
        /// Push (to a hub): the offset of our log below which the peer has acknowledged
        /// everything we pushed, or had it from us.
        public var pushed: UInt64?
        /// Push: the epoch of our log's record before `pushed` when it was set (nil when
        /// unknown: set by an older build, or `pushed` is 0). With `pushed`, the position
        /// a push checks its log still holds (`PushSession`).
        public var pushedEpoch: UInt64?
        /// Push: where the peer merged our last acknowledged push, as its receipt said (a
        /// hub's stream version and epoch); stated with the next push, which the peer
        /// refuses once it no longer holds it (`PeerLostPushes`).
        public var pushMergedAt: PeerPosition?
        /// Push: why the next push must push our whole state (a pull found that the peer no
        /// longer holds what it had, so it may have lost our pushes too), until one has.
        public var pushRestart: String?
        /// Push: ranges `[start, end)` of our log holding changes pulled from this peer, not
        /// yet passed by `pushed`: a push skips them (never an echo of what the peer sent).
        public var echoes: [[UInt64]]?
        /// Push peer (a hub): pulls not yet settled, as [cursor, our durable log end after
        /// merging them] pairs, oldest first (`PeerLedger+PushSettling`).
        public var pullsPending: [[UInt64]]?
        /// Push peer: the newest pull cursor with everything this node had logged by then
        /// pushed back to the peer. The hub's tombstone GC waits for it.
        public var pullSettled: UInt64?
        /// When the entry last changed (seconds since 1970).
        public var updated: Double
    }

    /// One acknowledgement, as a peer sends it.
    public struct Acknowledgement: Sendable, Equatable {
        /// The peer has merged our log below this offset.
        public var offset: UInt64
        /// The peer's durable log end when it sent this.
        public var peerLogEnd: UInt64?
        /// The peer's GC frontier in its own log.
        public var peerCollectedBelow: UInt64?

        /// An acknowledgement of `offset`.
        public init(offset: UInt64, peerLogEnd: UInt64? = nil, peerCollectedBelow: UInt64? = nil) {
            self.offset = offset
            self.peerLogEnd = peerLogEnd
            self.peerCollectedBelow = peerCollectedBelow
        }
    }

    /// How a change to the ledger must survive a power cut.
    enum Persistence {
        /// A promise or a fact others act on (registration, removal, an acknowledgement
        /// received): the rename is synced before the call returns.
        case durable
        /// Progress that stays true when older — pull and push cursors, echo ranges, settled
        /// pulls: a cursor that lags only costs work again. The file is synced, so a power
        /// cut leaves this write or an earlier one, whole; the rename is synced by the next
        /// durable write or by `makeDurable`, which runs before anything outside this
        /// ledger relies on it (an acknowledgement sent, a GC decision). Saves one sync of
        /// the two per pulled batch and per push.
        case progress
    }

    let directory: String
    private let path: String
    let fileSystem: any FileSystem
    private let clock: any WallClock
    private let lock = NSLock()
    private var entries: [String: Entry]
    /// The log this directory holds (`logbook.json`'s `logId`), which writes name.
    private let logId: String?
    /// Why the file found was not read, while it is not moved aside yet (`ignoredFile`).
    private var ignoredReason: String?
    /// A progress write was renamed and its directory not synced since.
    private var renameUnsynced = false
    /// Pulled merges whose echoes are not recorded yet (`PeerLedger+Push`).
    let pushHolds = PushHolds()

    /// The largest ledger file read: far above any real one (a few hundred bytes per peer).
    static let fileSizeMax: Int64 = 64 << 20

    /// Opens the ledger in a Logbook directory (an absent file is an empty ledger; a damaged
    /// one is refused with its path), reading and writing through `fileSystem` and stamping
    /// entries with `clock`.
    public init(
        directory: String, fileSystem: any FileSystem = PosixFileSystem(),
        clock: any WallClock = SystemWallClock()
    ) throws(LogbookError) {
        self.directory = directory
        path = directory + "/peers.json"
        self.fileSystem = fileSystem
        self.clock = clock
        logId = try NodeMetadata.read(directory: directory, fileSystem: fileSystem)?.logId
        guard
            let bytes = try SmallFiles.read(path, limit: Self.fileSizeMax, fileSystem: fileSystem)
        else {
            entries = [:]
            return
        }
        let file: PeerLedgerFile
        do { file = try PeerLedgerFile.decode(bytes) } catch {
            throw LogbookError(.badMetadata, "peer ledger unreadable: \(error)", path: path)
        }
        if let logId, let named = file.log, named != logId {
            entries = [:]
            ignoredReason =
                "peers.json belongs to log \(named), not to this directory's log \(logId) "
                + "(copied from elsewhere?): ignored, and moved to peers.json"
                + "\(PeerLedgerFile.setAsideSuffix) at the first write"
        } else {
            entries = file.peers
        }
    }

    /// The ledger of `logbook`'s directory, through its file system and wall clock.
    public convenience init(for logbook: Logbook) throws(LogbookError) {
        try self.init(
            directory: logbook.directory, fileSystem: logbook.fileSystem, clock: logbook.wallClock)
    }

    /// The entry name for a node's acknowledgements and registration.
    public static func nodeEntryName(_ nodeId: UInt64) -> String { "node-\(nodeId)" }

    /// Why the `peers.json` found was not read: it names another log (`PeerLedgerFile`). It
    /// is moved aside at the first write; until then this ledger starts empty. Nil once
    /// moved, and for a file of this log.
    public var ignoredFile: String? { lock.withLock { ignoredReason } }

    /// Every peer's entry, by peer name (its URL for pulls, `node-ID` for acks).
    public var all: [String: Entry] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    /// The pull cursor for `peer` (0 when never pulled).
    public func cursor(for peer: String) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return entries[peer]?.cursor ?? 0
    }

    /// Unsettled acknowledgements kept per peer.
    static let pendingMax = 16

    /// The epoch of the last record pulled from `peer`, if the peer reported one.
    public func epoch(for peer: String) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return entries[peer]?.epoch
    }

    /// Records a pull cursor as progress (written, synced and renamed before returning; the
    /// rename synced by `makeDurable`), with the epoch of the record before it when the peer
    /// reported one, and with `mergedInto` (this log's durable end once what the cursor
    /// passed is merged and synced, and the epoch of the record before it) when given.
    ///
    /// With `echoes`, also remembers those offsets of our own log as holding what came from
    /// `peer` (see `Entry.echoes`), in the same write; with `logEnd` (this log's durable end
    /// after merging what the cursor passed), notes the pull for settling
    /// (`PeerLedger+PushSettling`). `echoesEpoch`: the epoch of our log that wrote the
    /// last of `echoes`, kept with the push cursor when it passes them.
    public func setCursor(
        _ cursor: UInt64, epoch: UInt64? = nil, for peer: String, nodeId: UInt64?,
        echoes: Range<UInt64>? = nil, echoesEpoch: UInt64? = nil, logEnd: UInt64? = nil,
        mergedInto: LogPosition? = nil
    ) throws {
        try update(peer, persistence: .progress) {
            $0.cursor = cursor
            $0.epoch = epoch
            $0.mergedInto = mergedInto?.offset
            $0.mergedEpoch = mergedInto?.epochId
            if let nodeId { $0.nodeId = nodeId }
            if let echoes {
                // Pulled changes that follow everything already pushed need no push: the
                // push cursor passes them in this same write (one durable write per pulled
                // batch instead of two).
                if $0.pushed ?? 0 == echoes.lowerBound, $0.pushed != nil, !echoes.isEmpty {
                    $0.pushed = echoes.upperBound
                    $0.pushedEpoch = echoesEpoch
                } else {
                    $0.addEcho(echoes)
                }
            }
            if let logEnd { $0.notePull(through: cursor, logEnd: logEnd) }
        }
        // Only a node with acknowledgements waiting to settle needs its entry written again.
        if let nodeId, acknowledgement(of: nodeId)?.pending?.isEmpty == false {
            try update(Self.nodeEntryName(nodeId), settling: nodeId, persistence: .progress) { _ in
            }
        }
    }

    /// Records an acknowledgement from node `nodeId` durably; an older offset never lowers a
    /// newer one, and the peer's log end and GC frontier only rise.
    ///
    /// With `logEnd` (this log's durable end), acknowledged offsets stored past it are
    /// dropped first: they came from a longer copy of this log (the directory was restored
    /// from an older one, or `peers.json` copied from elsewhere), and kept they would let
    /// tombstone GC count records written since as received by the peer.
    public func acknowledge(
        _ ack: Acknowledgement, byNode nodeId: UInt64, logEnd: UInt64? = nil
    ) throws {
        try update(Self.nodeEntryName(nodeId), settling: nodeId) {
            if let logEnd { $0.forgetAcknowledgements(past: logEnd) }
            $0.acknowledged = max($0.acknowledged ?? 0, ack.offset)
            if let end = ack.peerLogEnd {
                $0.peerLogEnd = max($0.peerLogEnd ?? 0, end)
                let pair = [ack.offset, end]
                var pending = $0.pending ?? []
                let settled = [$0.settledAcknowledged, $0.settledPeerLogEnd].compactMap { $0 }
                if pending.last != pair && settled != pair {
                    if pending.count >= Self.pendingMax { pending.removeLast() }
                    pending.append(pair)
                    $0.pending = pending
                }
            }
            if let below = ack.peerCollectedBelow {
                $0.peerCollectedBelow = max($0.peerCollectedBelow ?? 0, below)
            }
            $0.nodeId = nodeId
        }
    }

    /// Registers node `nodeId` as a peer: from now on tombstone GC waits for it.
    public func register(_ nodeId: UInt64) throws {
        try update(Self.nodeEntryName(nodeId)) {
            $0.nodeId = nodeId
            $0.registered = true
            $0.removed = nil
        }
        try recordMembership()
    }

    /// Removes node `nodeId` from the peers: GC no longer waits for it. A removed node must
    /// not sync with this one again with its old state (docs/maintenance.md).
    public func unregister(_ nodeId: UInt64) throws {
        try update(Self.nodeEntryName(nodeId)) {
            $0.nodeId = nodeId
            $0.registered = nil
            $0.removed = true
        }
    }

    /// True when the ledger names a membership: a peer registered or removed.
    public var hasMembership: Bool {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.contains { $0.registered == true || $0.removed == true }
    }

    /// The registered peers' node ids, ascending.
    public var registeredPeers: [UInt64] {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.filter { $0.registered == true }.compactMap(\.nodeId).sorted()
    }

    /// Nodes this one has pulled from or been acknowledged by that are neither registered
    /// nor removed, ascending: their state is not accounted for, so they block GC.
    public func unknownPeers(excluding ownNode: UInt64) -> [UInt64] {
        lock.lock()
        defer { lock.unlock() }
        let known = Set(
            entries.values.filter { $0.registered == true || $0.removed == true }.compactMap(
                \.nodeId))
        let seen = Set(entries.values.compactMap(\.nodeId))
        return seen.subtracting(known).subtracting([ownNode]).sorted()
    }

    /// Node `nodeId`'s acknowledgement entry, if any.
    public func acknowledgement(of nodeId: UInt64) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        return entries[Self.nodeEntryName(nodeId)]
    }

    /// The furthest this node has pulled node `nodeId`'s log (over every URL it was pulled
    /// at), nil when never.
    public func pullCursor(ofNode nodeId: UInt64) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.filter { $0.nodeId == nodeId }.compactMap(\.cursor).max()
    }

    /// Changes one entry and writes the ledger; with `settling`, first moves that node's
    /// pending acknowledgements this node has pulled past into the settled one.
    func update(
        _ peer: String, settling nodeId: UInt64? = nil, persistence: Persistence = .durable,
        _ change: (inout Entry) -> Void
    ) throws {
        lock.lock()
        defer { lock.unlock() }
        var entry = entries[peer] ?? Entry(updated: 0)
        change(&entry)
        if let nodeId {
            let pulled = entries.values.filter { $0.nodeId == nodeId }.compactMap(\.cursor).max()
            var unsettled: [[UInt64]] = []
            for pair in entry.pending ?? [] where pair.count == 2 {
                if let pulled, pair[1] <= pulled {
                    if pair[0] >= entry.settledAcknowledged ?? 0 {
                        entry.settledAcknowledged = pair[0]
                        entry.settledPeerLogEnd = pair[1]
                    }
                } else {
                    unsettled.append(pair)
                }
            }
            entry.pending = unsettled.isEmpty ? nil : unsettled
        }
        // A repeated acknowledgement (a peer acknowledges every poll) changes nothing: no
        // write, no fsync.
        if var unchanged = entries[peer] {
            unchanged.updated = entry.updated
            if unchanged == entry { return }
        }
        entry.updated = clock.secondsSince1970()
        var updated = entries
        updated[peer] = entry
        let data = try PeerLedgerFile(log: logId, peers: updated).encoded()
        do {
            if ignoredReason != nil {
                try fileSystem.rename(path, to: path + PeerLedgerFile.setAsideSuffix)
                ignoredReason = nil
            }
            try fileSystem.replaceFile(
                path, with: [UInt8](data), durable: true,
                syncsDirectory: persistence == .durable)
        } catch {
            throw LogbookError(error)
        }
        // Only what is written is held: after a failed write the ledger still says what the
        // file says, and a retry writes the change again.
        entries = updated
        renameUnsynced = persistence == .progress
    }

    /// Makes every write so far survive a power cut (syncs the directory when a progress
    /// write left its rename unsynced). Run before anything outside the ledger relies on
    /// what it says: a cursor may then lag after a crash only behind what nobody saw.
    public func makeDurable() throws(LogbookError) {
        lock.lock()
        defer { lock.unlock() }
        guard renameUnsynced else { return }
        do {
            try fileSystem.syncDirectory(directory)
        } catch {
            throw LogbookError(error)
        }
        renameUnsynced = false
    }
}
