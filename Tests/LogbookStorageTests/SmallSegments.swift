import LogbookStorage

/// A log configuration for tests: the smallest segments allowed (4 KiB) and small batches,
/// so a few hundred records span many batches and segments.
func smallSegments(batchSizeTarget: Int) -> LogConfiguration {
    var configuration = LogConfiguration()
    configuration.segmentSizeMax = 4096
    configuration.batchSizeTarget = batchSizeTarget
    return configuration
}
