import Benchmark
import LogbookWorkloads

/// The seal of a segment of the default size that a `.buffered` appender filled
/// (`SegmentFillWorkload`), with write-back started every MiB as it filled and with none:
/// the wait of the append that rolls. Filling is setup; the seal alone is measured.
func sealBenchmarks() {
    let workload = SegmentFillWorkload()
    for startingWriteback in [true, false] {
        let name = startingWriteback ? "write-back-every-MiB" : "no-early-write-back"
        Benchmark(
            "seal-64MiB-segment-\(name)",
            configuration: .init(
                metrics: [.wallClock], maxIterations: 10,
                // Disk-bound, and two-moded on this VM (2.8 and 7.4 ms at p90 for the
                // write-back seal in three runs): the threshold is the slower mode.
                thresholds: [.wallClock: .init(relative: [.p90: 100])])
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                let log = try workload.filledLog(
                    in: ScratchDirectory.fresh("seal"), startingWriteback: startingWriteback)
                benchmark.startMeasurement()
                try log.sealActiveSegment()
                benchmark.stopMeasurement()
                try log.close()
            }
        }
    }
}
