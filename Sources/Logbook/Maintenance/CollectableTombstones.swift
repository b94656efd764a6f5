/// A hub's list of tombstones its nodes may collect: the records whose deletion the hub holds
/// at versions in `from..<listedBelow`, each with that version. Every registered node of the
/// stream holds these tombstones and has pushed to the hub everything it logged before it
/// held them, and they are older than the hub's retention time (`StreamCollectionRule`).
/// docs/maintenance.md, "GC through a hub", argues why collecting them is safe.
public struct CollectableTombstones: Sendable, Equatable {
    /// One listed tombstone.
    public struct Entry: Sendable, Equatable {
        /// The deleted record.
        public var recordId: String
        /// The hub version of its deletion.
        public var version: UInt64

        /// An entry.
        public init(recordId: String, version: UInt64) {
            self.recordId = recordId
            self.version = version
        }
    }

    /// The listed tombstones, by ascending version.
    public var entries: [Entry]
    /// The list holds every collectable tombstone with a version below this (at least the
    /// version asked from, at most `collectableBelow`); the next page starts here.
    public var listedBelow: UInt64
    /// Tombstones below this hub version are collectable (the hub's GC horizon).
    public var collectableBelow: UInt64
    /// Every registered node has collected every listed tombstone below this hub version:
    /// records collected below it may be written again (their fences lift).
    public var collectedBelow: UInt64

    /// A list.
    public init(
        entries: [Entry], listedBelow: UInt64, collectableBelow: UInt64, collectedBelow: UInt64
    ) {
        self.entries = entries
        self.listedBelow = listedBelow
        self.collectableBelow = collectableBelow
        self.collectedBelow = collectedBelow
    }
}
