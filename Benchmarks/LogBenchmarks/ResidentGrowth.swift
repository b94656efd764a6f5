import Benchmark
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The resident memory a measured section adds at its peak, in KiB: what the work itself
/// needs, without the workload the process generated before it, a log written as setup, or
/// an earlier iteration's high-water mark (package-benchmark's `peakMemoryResident` counts
/// all of those, and its `peakMemoryResidentDelta` counts setup done inside an iteration).
///
/// On Linux: free memory goes back to the kernel first (`malloc_trim`), the kernel's peak
/// resident size is reset to the current one (`5` into `/proc/self/clear_refs`), and after
/// the section the peak less the resident size at its start is the growth. The peak is the
/// larger of the kernel's (`VmHWM`) and one sampled every 2 ms (`ResidentSampler`): the
/// kernel updates its peak when memory is unmapped, not when a thread's malloc arena gives
/// pages back with `madvise`, so a 20 MB answer built on a worker thread left no trace in
/// `VmHWM` alone. Where none of this is available the metric is not recorded.
enum ResidentGrowth {
    static let metric = BenchmarkMetric.custom(
        "peak resident growth KiB", polarity: .prefersSmaller, useScalingFactor: false)

    /// Runs `body` as the benchmark's measured section and records its resident growth.
    static func measure<Result>(
        _ benchmark: Benchmark, _ body: () throws -> Result
    ) rethrows -> Result {
        let start = resetPeak()
        let sampler = ResidentSampler()
        benchmark.startMeasurement()
        let result = try body()
        benchmark.stopMeasurement()
        record(benchmark, from: start, sampled: sampler.stop())
        return result
    }

    /// `measure` for an asynchronous section.
    static func measure<Result>(
        _ benchmark: Benchmark, _ body: () async throws -> Result
    ) async rethrows -> Result {
        let start = resetPeak()
        let sampler = ResidentSampler()
        benchmark.startMeasurement()
        let result = try await body()
        benchmark.stopMeasurement()
        record(benchmark, from: start, sampled: sampler.stop())
        return result
    }

    private static func record(_ benchmark: Benchmark, from start: Int?, sampled: Int) {
        guard let start, let peak = statusKiB("VmHWM:") else { return }
        benchmark.measurement(metric, max(0, max(peak, sampled) - start))
    }

    /// The resident KiB after returning free memory and resetting the peak to it; nil
    /// where the kernel cannot reset the peak.
    private static func resetPeak() -> Int? {
        #if os(Linux)
            returnFreeMemory()
            guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs"),
                (try? handle.write(contentsOf: Data("5".utf8))) != nil
            else { return nil }
            try? handle.close()
            return statusKiB("VmRSS:")
        #else
            return nil
        #endif
    }

    #if os(Linux)
        /// glibc's `malloc_trim(0)`, found at run time: the Glibc module does not export
        /// `malloc.h`. Without it (another C library) nothing is returned first.
        private static func returnFreeMemory() {
            typealias Trim = @convention(c) (Int) -> Int32
            guard let symbol = dlsym(nil, "malloc_trim") else { return }
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
    #endif

    /// A `kB` field of `/proc/self/status`.
    private static func statusKiB(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) })
        else { return nil }
        return line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            .first.flatMap { Int($0) }
    }
}
