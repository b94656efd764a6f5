import Logbook
import Observation
import Synchronization

/// An observed query for SwiftUI (or any code using the Observation module): `models` is
/// the query's answer, kept current on the main actor, so a view that reads it redraws when
/// a commit changes what it shows.
///
/// ```swift
/// @State var newest = LiveQuery(
///     logbook, byConversation, .equal("c1"), order: .descending, limit: 50)
/// var body: some View { List(newest.models) { MessageRow(message: $0) } }
/// ```
///
/// It follows the Logbook until it is released or the Logbook closes.
@MainActor @Observable
public final class LiveQuery<Model: LogbookModel> {
    /// The answer, as of the last commit that touched it (empty until the first answer).
    public private(set) var models: [Model] = []
    /// Why the last answer failed, if it did; nil once one succeeds.
    public private(set) var error: ModelError?

    /// The task that follows the answers; a `let` of a Sendable box, so the deinit (which
    /// runs off the main actor) may cancel it.
    @ObservationIgnored private let follower = Mutex<Task<Void, Never>?>(nil)

    /// Observes `query` on `index` as `Logbook.observe(_:_:order:limit:coalescing:)` does.
    public init(
        _ logbook: Logbook, _ index: ModelIndex<Model>, _ query: IndexQuery = .all,
        order: IndexOrder = .ascending, limit: Int = .max,
        coalescing interval: Duration = .milliseconds(50)
    ) {
        let answers = logbook.observe(
            index, query, order: order, limit: limit, coalescing: interval)
        let task = Task { [weak self] in
            for await answer in answers {
                guard let self else { return }
                switch answer {
                case .success(let models):
                    self.models = models
                    self.error = nil
                case .failure(let error):
                    self.error = error
                }
            }
        }
        follower.withLock { $0 = task }
    }

    deinit { follower.withLock { $0?.cancel() } }
}
