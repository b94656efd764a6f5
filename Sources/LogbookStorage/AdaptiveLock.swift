#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A lock for work of microseconds that many threads contend for, such as the engine's
/// state (every append, merge and read; group commit's writers and committer). A plain
/// mutex puts a contender to sleep at once, so each hand-off costs two context switches,
/// longer than the work it guards. On Linux this is glibc's adaptive mutex, which spins a
/// little before it sleeps; elsewhere a plain pthread mutex.
/// docs/decisions/0007-engine-lock.md says why it is written here.
package final class AdaptiveLock: @unchecked Sendable {
    // @unchecked: a pthread mutex, used only through lock and unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }
}
