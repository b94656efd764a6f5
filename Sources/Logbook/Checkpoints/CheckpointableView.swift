/// A view that can save its state, so a reopen replays only the log written after it.
///
/// With `LogbookOptions.viewCheckpoints` on, the Logbook writes each such view's state with
/// the log offset it covers and the view's digest when it closes (or on `checkpointViews()`),
/// and on open restores it and applies only the later changes. A checkpoint is trusted only
/// when it proves itself: its checksum holds, its offset is within the log, the log's batch
/// at that offset is the one it was taken against, and the restored state has the recorded
/// digest. Anything else is discarded and the view rebuilt from the whole log.
public protocol CheckpointableView: MaterializedView {
    /// The view's state as bytes the view can read back (see `CheckpointWriter`).
    func checkpointState() -> [UInt8]
    /// Replaces the state with one read from `checkpointState()` bytes; throws when the
    /// bytes are not such a state (the Logbook then rebuilds the view).
    ///
    /// The file's checksum catches damage, not a file written on purpose, so refuse what
    /// `checkpointState()` never writes, not only what does not parse: an id or an order
    /// held twice, for instance (`CheckpointReader.readDistinctString(_:)`). Leave the view
    /// unchanged when refusing.
    func restoreCheckpoint(_ state: [UInt8]) throws(CheckpointReader.Malformed)
}
