import Foundation

/// The grants tokens were found to have, held by one hub process so that a follower's
/// frames and polls, each authorized again, cost no database call.
///
/// Two rules keep the database out of a follower's path even when a thousand followers
/// share one token. One lookup at a time per token and stream: requests that come while it
/// runs share its answer. And a grant in use is looked up again in the background
/// `refreshAhead` before it runs out, while requests go on being answered from memory.
/// Without them every follower's grant ran out in the same instant (they were all found
/// together, when the followers connected), and a thousand lookups queued for the pool's
/// connections ahead of the pushes: every 5 s the hub stood still for 300–400 ms.
final class HubGrantCache: @unchecked Sendable {
    // @unchecked: the state is guarded by `lock`.
    typealias Found = (stream: HubStream, grant: HubGrant)

    /// How long a grant found in the database is trusted: a token's streams are fixed at
    /// creation, so this bounds only how late a deleted token stops working.
    let lifetime: Duration
    /// How long before it runs out a grant in use is looked up again.
    let refreshAhead: Duration
    /// Grants held before the cache is emptied and starts again.
    static let capacity = 10_000
    /// Lookups at once of grants not held. Anyone may send a well-formed token the hub has
    /// never issued, and each costs a database query: unbounded, a flood of them took the
    /// pool and PostgreSQL's cores from the pushes. A grant held (a node syncing) is never
    /// refused for it; a new one past the bound is refused with `Busy` and asked again.
    let newLookupsMax: Int

    /// A lookup of a grant not held, refused: `newLookupsMax` were running, or the
    /// allowance of new lookups a second was spent.
    struct Busy: Error, CustomStringConvertible {
        var description: String {
            "too many tokens not seen lately are being checked; try again in a second"
        }
    }

    private struct Key: Hashable {
        var token: String
        var stream: String
    }

    private struct Held {
        var found: Found
        var until: ContinuousClock.Instant
        /// Whether a caller was told to refresh it (and no refresh has failed since).
        var refreshing = false
    }

    private let lock = NSLock()
    private var held: [Key: Held] = [:]
    private var lookUps: [Key: Task<Found?, any Error>] = [:]
    /// Running lookups of grants that were not held when they started.
    private var newLookups = 0
    /// New lookups a second, on average.
    private var allowance: LookupAllowance

    /// A cache trusting what it finds for `lifetime`, refreshing a grant in use
    /// `refreshAhead` before that runs out.
    init(
        lifetime: Duration = .seconds(5), refreshAhead: Duration = .seconds(1),
        newLookupsMax: Int = 8, newLookupsPerSecond: Double = 100
    ) {
        self.lifetime = lifetime
        self.refreshAhead = refreshAhead
        self.newLookupsMax = max(1, newLookupsMax)
        allowance = LookupAllowance(perSecond: newLookupsPerSecond, burst: newLookupsMax)
    }

    /// The grant held for `token` on `stream` while it is fresh at `now`. `refresh` is true
    /// for the one caller that first finds it within `refreshAhead` of running out: that
    /// caller starts `lookUp(token:stream:by:)` without waiting for it.
    func held(token: String, stream: String, at now: ContinuousClock.Instant = .now)
        -> (found: Found, refresh: Bool)?
    {
        let key = Key(token: token, stream: stream)
        return lock.withLock {
            guard var entry = held[key], entry.until > now else { return nil }
            guard !entry.refreshing, entry.until - now <= refreshAhead else {
                return (entry.found, false)
            }
            entry.refreshing = true
            held[key] = entry
            return (entry.found, true)
        }
    }

    /// The grant `token` has on `stream` as `lookUp` finds it, shared with the requests
    /// that ask while it runs. A grant found is held for `lifetime` from the lookup's
    /// start; a refusal is not held (a token created a moment ago works at once) and ends
    /// a held grant at once; a failure leaves a held grant to run out, and the next caller
    /// of `held` refreshes it again. Throws `Busy` for a grant not held when
    /// `newLookupsMax` such lookups are running or their allowance a second is spent.
    func lookUp(
        token: String, stream: String, by lookUp: @escaping @Sendable () async throws -> Found?
    )
        async throws -> Found?
    {
        let key = Key(token: token, stream: stream)
        let task: Task<Found?, any Error>? = lock.withLock {
            if let running = lookUps[key] { return running }
            let isNew = held[key] == nil
            if isNew {
                guard newLookups < newLookupsMax, allowance.take() else { return nil }
                newLookups += 1
            }
            // The task records its outcome under `lock`, so not before this entry is made.
            let task = Task { [self] in
                let until = ContinuousClock.now + lifetime
                do {
                    let found = try await lookUp()
                    finish(key, with: .success(found), until: until, new: isNew)
                    return found
                } catch {
                    finish(key, with: .failure(error), until: until, new: isNew)
                    throw error
                }
            }
            lookUps[key] = task
            return task
        }
        guard let task else { throw Busy() }
        return try await task.value
    }

    /// Ends the lookup for `key`: a grant found is held until `until`, a refusal ends a
    /// held grant, a failure leaves it to run out and lets the next caller refresh it.
    private func finish(
        _ key: Key, with outcome: Result<Found?, any Error>, until: ContinuousClock.Instant,
        new: Bool
    ) {
        lock.withLock {
            lookUps[key] = nil
            if new { newLookups -= 1 }
            switch outcome {
            case .success(let found?):
                if held[key] == nil, held.count >= Self.capacity { held.removeAll() }
                held[key] = Held(found: found, until: until)
            case .success(nil):
                held[key] = nil
            case .failure:
                held[key]?.refreshing = false
            }
        }
    }
}
