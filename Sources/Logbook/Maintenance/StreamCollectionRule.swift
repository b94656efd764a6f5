/// The hub's tombstone GC rule for one stream, in hub versions (the PostgreSQL hub and the
/// simulated hub of `HubGCSimulationTests` both apply it). Its horizons only rise:
///
/// - *collectable below* G: a tombstone with a version below G may be collected by the
///   nodes. G waits for every registered node's settled pull cursor (the node holds the
///   tombstone and has pushed all it logged before) and for the retention time.
/// - *collected below* F: every registered node has collected every listed tombstone below
///   F, and has done so at least `graceSeconds` ago. The hub then deletes its tombstone rows
///   below F, and the records may be written again (nodes lift their fences). A reader that
///   has not seen every version below F needs the stream's state.
///
/// The grace covers pushes still on their way: a node may have sent a push holding an old
/// change of a record before it collected that record, and the hub may commit it later
/// (after the node's timeout). Until F passes a tombstone the hub keeps its row and drops
/// such a change; the grace must exceed the longest a push takes from being sent to being
/// committed. docs/maintenance.md, "GC through a hub", has the argument.
public struct StreamCollectionRule: Sendable, Equatable {
    /// What the hub knows of one registered node.
    public struct Node: Sendable, Equatable {
        /// The highest hub version the node has seen in full in a settled pull (0: none).
        public var settledVersion: UInt64
        /// The node collected every listed tombstone below this hub version.
        public var collectedBelow: UInt64

        /// A node's standing.
        public init(settledVersion: UInt64, collectedBelow: UInt64) {
            self.settledVersion = settledVersion
            self.collectedBelow = collectedBelow
        }
    }

    /// Tombstones below this hub version are collectable.
    public var collectableBelow: UInt64 = 0
    /// The hub has deleted (or may delete) its tombstones below this hub version.
    public var collectedBelow: UInt64 = 0
    /// Every node had collected below this at `pendingSince`; it becomes `collectedBelow`
    /// once the grace has passed.
    public var pendingCollectedBelow: UInt64 = 0
    /// Seconds since 1970.
    public var pendingSince: Double = 0

    /// The horizons as stored.
    public init(
        collectableBelow: UInt64 = 0, collectedBelow: UInt64 = 0,
        pendingCollectedBelow: UInt64 = 0, pendingSince: Double = 0
    ) {
        self.collectableBelow = collectableBelow
        self.collectedBelow = collectedBelow
        self.pendingCollectedBelow = pendingCollectedBelow
        self.pendingSince = pendingSince
    }

    /// One GC pass at `now`. `retainedBelow`: every version below it existed at least the
    /// retention time ago. With no registered node nothing moves: nobody has acknowledged
    /// anything a tombstone could be collected on.
    public mutating func advance(
        nodes: [Node], retainedBelow: UInt64, now: Double, graceSeconds: Double
    ) {
        if pendingCollectedBelow > collectedBelow, now - pendingSince >= graceSeconds {
            collectedBelow = pendingCollectedBelow
        }
        guard let settled = nodes.lazy.map(\.settledVersion).min(),
            let collected = nodes.lazy.map(\.collectedBelow).min()
        else { return }
        let settledBelow = settled == UInt64.max ? settled : settled + 1
        collectableBelow = max(collectableBelow, min(retainedBelow, settledBelow))
        // A new candidate waits only once the last one took effect, so a stream whose nodes
        // keep collecting still sees its horizon move every grace period.
        let candidate = min(collectableBelow, collected)
        if pendingCollectedBelow <= collectedBelow, candidate > collectedBelow {
            pendingCollectedBelow = candidate
            pendingSince = now
        }
    }
}
