import Foundation

/// Runs blocking work (waiting for a child process, a sync held by a test, sleeping) on a
/// thread of its own and returns its result: an async test that blocks a cooperative thread
/// instead starves every other test of the suite on a two-core machine (its two pool
/// threads), and their deadlines expire.
public func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result)
    async throws -> Result
{
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do { continuation.resume(returning: try work()) } catch {
                continuation.resume(throwing: error)
            }
        }.start()
    }
}
