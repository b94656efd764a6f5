/// When to ask for a file's written bytes to start going to the device
/// (`LogConfiguration.writebackAfterBytes`): once that many were written since the last sync
/// or write-back. Kept beside each file a log writes front to back: the active segment and
/// a rewrite's output.
struct WritebackSchedule {
    /// Where the bytes start that no sync or write-back covered yet.
    private var start: Int64

    /// A schedule for a file whose bytes before `start` need none.
    init(start: Int64 = 0) {
        self.start = start
    }

    /// Notes that `file` holds written bytes up to `end`; once `every` bytes (0: never)
    /// wait since the last sync or write-back, starts theirs.
    mutating func noteWritten(upTo end: Int64, in file: any StorageFile, every: Int) {
        let pending = end - start
        guard every > 0, pending >= Int64(every) else { return }
        file.startWriteback(at: start, count: pending)
        start = end
    }

    /// Notes that a sync made the file's bytes before `end` durable.
    mutating func noteSynced(upTo end: Int64) {
        start = max(start, end)
    }
}
