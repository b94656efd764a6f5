import Foundation
import Testing

@testable import LogbookStorage

// The adaptive lock excludes: threads that add to one plain counter under it lose no add.
@Suite struct AdaptiveLockTests {
    final class Counter: @unchecked Sendable {
        // @unchecked: `value` is guarded by `lock` (the lock under test).
        let lock = AdaptiveLock()
        var value = 0
    }

    @Test func threadsAddingUnderTheLockLoseNoAdd() async {
        let counter = Counter()
        let (threads, adds) = (4, 200_000)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask {
                    // A thread of its own each, so the adds really run at once.
                    await withCheckedContinuation { continuation in
                        Thread {
                            for _ in 0..<adds {
                                counter.lock.lock()
                                counter.value += 1
                                counter.lock.unlock()
                            }
                            continuation.resume()
                        }.start()
                    }
                }
            }
        }
        #expect(counter.value == threads * adds)
    }
}
