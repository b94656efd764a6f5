import Hummingbird

/// The rule a node's `GET /changes` and a hub stream's `GET changes` follow for a `since`
/// past the sender's clock (a node's clock, a stream's version).
///
/// Such a version names history the sender no longer has: it was restored from an older
/// copy, or lost a tail of unsynced writes in a power cut, and its new writes take those
/// versions again, so `getChangesSince` would never send them. The answer is every change
/// instead, as for `since=0` (the client re-merges what it has, which changes nothing),
/// and names the `since` asked in `Logbook-Since-Reset`.
package enum SinceReset {
    /// The `since` to answer a request for `asked` from, the sender's clock being `clock`.
    package static func since(answering asked: UInt64, clock: UInt64) -> UInt64 {
        asked > clock ? 0 : asked
    }

    /// Names the reset in `response` when it was answered from `since` instead of `asked`.
    package static func mark(_ response: inout Response, asked: UInt64, answeredFrom since: UInt64)
    {
        if since != asked { response.headers[.logbookSinceReset] = String(asked) }
    }
}
