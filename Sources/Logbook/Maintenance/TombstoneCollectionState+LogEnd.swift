extension TombstoneCollectionState {
    /// Lowers every offset of this log that the state names past `logEnd` (the log's end as
    /// opening found it) to `logEnd`, and says what it lowered, one line each.
    ///
    /// A GC run of this build syncs the log before it names an offset, so its state never
    /// lies past the log. One that does came from elsewhere: a build before that sync, whose
    /// state outlived a power cut that took the log's tail, or a directory put together from
    /// different copies. Trusted as it stands, such a state misleads:
    /// - a sighting past the end dates records written later at those offsets back to the
    ///   sighting, so their tombstones would be collected before their retention time;
    /// - `collectedBelow` past the end tells peers this node collected tombstones it has not
    ///   yet logged, and a peer's fence would lift too early;
    /// - `historyStart` past the end sends every puller to a snapshot;
    /// - a round's frontier past the end keeps its fence until the log grows past it.
    ///
    /// Lowering each to the end keeps what it claims true: the records below the end existed
    /// at each sighting, and GC collected only records in sealed segments, all below it.
    /// Hub versions (`hubs`) count another stream and are left alone.
    mutating func bound(byLogEnd logEnd: UInt64) -> [String] {
        var lowered: [String] = []
        func bound(_ offset: inout UInt64, _ name: String) {
            guard offset > logEnd else { return }
            lowered.append("\(name) \(offset) lies past the log's end \(logEnd); lowered to it")
            offset = logEnd
        }
        bound(&collectedBelow, "collectedBelow")
        bound(&historyStart, "historyStart")
        for index in sightings.indices {
            bound(&sightings[index].logEnd, "the sighting at \(sightings[index].time) s")
        }
        for index in rounds.indices {
            bound(&rounds[index].collectedBelow, "the fence round at \(rounds[index].time) s")
        }
        return lowered
    }
}
