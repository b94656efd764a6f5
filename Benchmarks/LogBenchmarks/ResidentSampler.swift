import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The largest resident size seen, in KiB, read from `/proc/self/statm` every 2 ms on a
/// thread of its own from creation until `stop()`. It reads into a fixed buffer and parses
/// by hand, allocating nothing, so the malloc counts of the section it watches stay the
/// section's own. Where `/proc/self/statm` cannot be opened it reports 0.
final class ResidentSampler: @unchecked Sendable {
    // @unchecked: `peak` and `running` are guarded by `lock`; `finished` is signalled once.
    private let lock = NSLock()
    private var peak = 0
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    init() {
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else {
            finished.signal()
            return
        }
        let pageKiB = max(1, sysconf(Int32(_SC_PAGESIZE)) / 1024)
        Thread.detachNewThread { [self] in
            defer {
                close(descriptor)
                finished.signal()
            }
            var buffer = (0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64, 0 as UInt64)
            while lock.withLock({ running }) {
                let resident = withUnsafeMutableBytes(of: &buffer) {
                    Self.residentPages(descriptor, into: $0)
                }
                lock.withLock { peak = max(peak, resident * pageKiB) }
                usleep(2000)
            }
        }
    }

    /// Stops sampling and returns the peak seen.
    func stop() -> Int {
        lock.withLock { running = false }
        finished.wait()
        return lock.withLock { peak }
    }

    /// The second field of `statm` (resident pages), read into `buffer`; 0 when unreadable.
    private static func residentPages(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer
    )
        -> Int
    {
        let count = pread(descriptor, buffer.baseAddress, buffer.count, 0)
        guard count > 0 else { return 0 }
        var field = 0
        var value = 0
        for index in 0..<count {
            let byte = buffer[index]
            if byte == UInt8(ascii: " ") {
                if field == 1 { return value }
                field += 1
                value = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
        }
        return field == 1 ? value : 0
    }
}
