/// The HTTP headers a Logbook node's log responses carry.
public enum ShippingHeaders {
    /// The sender's node id.
    public static let nodeId = "Logbook-Node-Id"
    /// The sender's durable high watermark: every offset below it is durable there.
    public static let durableOffset = "Logbook-Durable-Offset"
    /// The sender's first offset; pulls from below it need a snapshot.
    public static let startOffset = "Logbook-Start-Offset"
    /// Where the receiver's next pull starts.
    public static let nextOffset = "Logbook-Next-Offset"
    /// How many batches the body holds.
    public static let batchCount = "Logbook-Batch-Count"
    /// The acknowledging node's id, on `POST /ack`.
    public static let peerId = "Logbook-Peer-Id"
    /// On a snapshot page that is not the last: the (percent-encoded) record id to ask
    /// `after` for the next page.
    public static let snapshotAfter = "Logbook-Snapshot-After"
    /// On a `GET /changes?limit=N` page that is not the last: the version to ask `since`
    /// for the next page.
    public static let nextSince = "Logbook-Next-Since"
    /// The epoch of the record just before `Logbook-Next-Offset`: with it, the position the
    /// receiver holds, stated back as `epoch=` on its next `GET /log`.
    public static let epoch = "Logbook-Epoch"
    /// On JSON changes: the form of the body, `rust` (snake_case) or `swift` (camelCase).
    public static let changeFormat = "Logbook-Change-Format"
    /// On `GET /changes`: the sender's clock before the changes were gathered (crdt-lite's
    /// `getClock().currentTime()`; a hub's stream version): once every page is merged, the
    /// `since` to ask next. Changes made meanwhile may come twice, never not at all.
    public static let clock = "Logbook-Clock"
    /// On `GET /changes`: the `since` asked, when it was past the sender's clock. Such a
    /// version names history the sender no longer has (restored from an older copy, or a
    /// tail of unsynced writes lost in a power cut), whose versions its new writes take
    /// again; the answer is then every change, as for `since=0`.
    public static let sinceReset = "Logbook-Since-Reset"
}
