import Logbook

/// `body`'s result if it finishes within `timeout`, else a `ReplicationError` carrying
/// `message`; `body` is cancelled at the bound and waited for (it may own state, such as a
/// stream's reader, that must not outlive the call). AsyncHTTPClient's own timeout ends
/// when an answer begins, so every transfer, and every frame of a streamed follow, is
/// bounded here from start to last byte.
func withinDeadline<Result: Sendable>(
    _ timeout: Duration, else message: @autoclosure () -> String,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let answer = try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }  // the loser: the sleep, or the cut-off body
        return try await group.next() ?? nil
    }
    guard let answer else { throw ReplicationError(message: message()) }
    return answer
}
