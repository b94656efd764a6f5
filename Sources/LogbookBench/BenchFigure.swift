/// One measured figure of `logbook bench`: medians over runs, plus what was observed.
public struct BenchFigure: Codable, Sendable {
    /// What system produced it: "Logbook", "SQLite", "JSON" or "ceiling".
    public var system: String
    /// What was measured.
    public var name: String
    /// The kind, for ratios: "append", "append, 10k per call", "replay" or nil.
    public var kind: String?
    /// Median changes per second.
    public var changesPerSecond: Double
    /// Median uncompressed (raw record) megabytes per second, where meaningful.
    public var rawMegabytesPerSecond: Double?
    /// Median on-disk megabytes per second, where meaningful.
    public var diskMegabytesPerSecond: Double?
    /// Bytes on disk per change, for figures that write.
    public var bytesPerChange: Double?
    /// Per-call latency percentiles in microseconds, for append figures.
    public var latency: Latency?
    /// fsyncs per second during the figure.
    public var fsyncsPerSecond: Double?
    /// The process's peak resident memory during the figure, in MB.
    public var peakMegabytes: Double?
    /// The most changes per second its settings allow, where that is known: for group
    /// commit with many writers, writers × changes per call × the disk's fdatasyncs per
    /// second (`groupCommitBound`).
    public var boundChangesPerSecond: Double?
    /// Anything else worth saying.
    public var note: String = ""

    /// A figure; only what was measured is given, the rest stays nil.
    public init(
        system: String, name: String, kind: String? = nil, changesPerSecond: Double,
        rawMegabytesPerSecond: Double? = nil, diskMegabytesPerSecond: Double? = nil,
        bytesPerChange: Double? = nil, latency: Latency? = nil, fsyncsPerSecond: Double? = nil,
        peakMegabytes: Double? = nil, boundChangesPerSecond: Double? = nil, note: String = ""
    ) {
        self.system = system
        self.name = name
        self.kind = kind
        self.changesPerSecond = changesPerSecond
        self.rawMegabytesPerSecond = rawMegabytesPerSecond
        self.diskMegabytesPerSecond = diskMegabytesPerSecond
        self.bytesPerChange = bytesPerChange
        self.latency = latency
        self.fsyncsPerSecond = fsyncsPerSecond
        self.peakMegabytes = peakMegabytes
        self.boundChangesPerSecond = boundChangesPerSecond
        self.note = note
    }
}

/// Runs `body` `runs` times; returns the median of the seconds it reports and the peak
/// memory over the runs.
func measure(runs: Int, _ body: () async throws -> Double) async rethrows -> (
    seconds: Double, peak: Double?
) {
    var samples: [Double] = []
    var peak: Double?
    for _ in 0..<runs {
        PeakMemory.reset()
        samples.append(try await body())
        if let megabytes = PeakMemory.megabytes() { peak = max(peak ?? 0, megabytes) }
    }
    return (median(samples), peak)
}

/// The median of a non-empty list (the mean of the middle two for an even count).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
