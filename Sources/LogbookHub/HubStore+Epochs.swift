import Logbook
import PostgresNIO

/// A stream's version and the epochs that hold two of its versions now, read in one
/// statement (migration 8, `HubSchema.streamEpochs`).
struct HubEpochReading: Sendable {
    /// The stream's version.
    var head: UInt64
    /// The first version asked about: the one a node states a position at.
    var stated: UInt64
    /// The epoch holding each version asked about; nil for version 0, a version past
    /// `head`, or one no epoch holds (the stream has not merged since migration 8).
    var epochs: (first: UInt64?, second: UInt64?)

    /// Why the stream no longer holds the first version asked about as a node saw it, in
    /// epoch `epoch`, or nil when it does: the version lies past the stream's, or another
    /// epoch holds it now. A node that stated no epoch, or an epoch no row names, is not
    /// refused (a hub or a node from before epochs).
    func reasonNotHeld(inEpoch epoch: UInt64?) -> String? {
        guard stated > 0 else { return nil }
        if stated > head { return "the stream is at hub version \(head)" }
        guard let epoch, let held = epochs.first, held != epoch else { return nil }
        return "hub version \(stated) belongs to epoch \(held) now, not \(epoch)"
    }
}

extension HubStore {
    /// The stream's version and the epochs holding `first` and `second` now.
    func epochs(of stream: HubStream, at first: UInt64, _ second: UInt64) async throws
        -> HubEpochReading
    {
        let (first, second) = (
            HubColumns.version(min(first, ChangeLimits.versionMax)),
            HubColumns.version(min(second, ChangeLimits.versionMax))
        )
        let rows = try await client.query(
            """
            SELECT hub_version, logbook_epoch_at(stream_id, \(first)),
                logbook_epoch_at(stream_id, \(second))
            FROM logbook_streams WHERE stream_id = \(stream.id)
            """, logger: logger)
        for try await (head, firstEpoch, secondEpoch) in rows.decode(
            (Int64, Int64?, Int64?).self)
        {
            let head = HubColumns.version(stored: head)
            // A version past the stream's is held by no epoch, whatever the rows say.
            func held(_ version: Int64, _ epoch: Int64?) -> UInt64? {
                let version = HubColumns.version(stored: version)
                guard version > 0, version <= head, let epoch, epoch > 0 else { return nil }
                return UInt64(epoch)
            }
            return HubEpochReading(
                head: head, stated: HubColumns.version(stored: first),
                epochs: (held(first, firstEpoch), held(second, secondEpoch)))
        }
        throw HubError.unknownStream(stream.name)
    }
}
