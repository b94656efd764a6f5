import Logbook
import LogbookStorage

/// Logbook options for tests: the smallest segments the log allows and small batches, so a
/// few hundred changes span many batches and segments (rolls, sealed segments, indexes).
func smallLogOptions(
    _ durability: Durability = .buffered, fileSystem: any FileSystem = PosixFileSystem(),
    batchSizeTarget: Int = 512, views: [any MaterializedView] = []
) -> LogbookOptions {
    var options = LogbookOptions()
    options.durability = durability
    options.fileSystem = fileSystem
    options.views = views
    options.log.segmentSizeMax = 4096
    options.log.batchSizeTarget = batchSizeTarget
    return options
}
