import Logbook
import PostgresNIO

/// A stream's version and the epochs that hold two of its versions now, read in one
/// statement (migration 8, `HubSchema.streamEpochs`).
struct HubEpochReading: Sendable, Equatable {
    /// The stream's version.
    var head: UInt64
    /// The epoch holding each version asked about; nil for version 0, a version past
    /// `head`, or one no epoch holds (the stream has not merged since migration 8).
    var epochs: (first: UInt64?, second: UInt64?)

    static func == (left: Self, right: Self) -> Bool {
        left.head == right.head && left.epochs.first == right.epochs.first
            && left.epochs.second == right.epochs.second
    }

    /// Why the stream no longer holds `version` as a node saw it in epoch `stated` (the
    /// first version asked about), or nil when it does: the version lies past the stream's,
    /// or another epoch holds it now. A node that stated no epoch, or an epoch no row
    /// names, is not refused (a hub or a node from before epochs).
    func reasonNotHeld(_ version: UInt64, stated: UInt64?) -> String? {
        guard version > 0 else { return nil }
        if version > head { return "the stream is at hub version \(head)" }
        guard let stated, let held = epochs.first, held != stated else { return nil }
        return "hub version \(version) belongs to epoch \(held) now, not \(stated)"
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
            SELECT s.hub_version,
                (SELECT e.epoch_id FROM logbook_stream_epochs AS e
                 WHERE e.stream_id = s.stream_id AND e.first_version <= \(first)
                 ORDER BY e.first_version DESC LIMIT 1),
                (SELECT e.epoch_id FROM logbook_stream_epochs AS e
                 WHERE e.stream_id = s.stream_id AND e.first_version <= \(second)
                 ORDER BY e.first_version DESC LIMIT 1)
            FROM logbook_streams AS s WHERE s.stream_id = \(stream.id)
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
                head: head, epochs: (held(first, firstEpoch), held(second, secondEpoch)))
        }
        throw HubError.unknownStream(stream.name)
    }
}
