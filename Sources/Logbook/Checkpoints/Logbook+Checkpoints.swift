import LogbookStorage

/// What became of a view's checkpoint when the Logbook opened.
public enum ViewCheckpointStatus: Equatable, Sendable, CustomStringConvertible {
    /// Checkpoints are off, the view cannot checkpoint, or there was none.
    case none
    /// Restored; only changes from this offset on were replayed into the view.
    case restored(offset: UInt64)
    /// Found but not trusted, and why; the view was rebuilt from the whole log.
    case discarded(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .none: "no checkpoint"
        case .restored(let offset): "restored at offset \(offset)"
        case .discarded(let reason): "discarded: \(reason)"
        }
    }
}

extension Logbook {
    /// Saves every `CheckpointableView`'s state with the offset it covers (all changes
    /// logged so far) and its digest. `close()` does this when `viewCheckpoints` is on.
    public func checkpointViews() throws(LogbookError) {
        try locked { () throws(LogbookError) in
            if let failure { throw failure }
            let offset = log.nextOffset
            let anchor: UInt32
            do throws(StorageError) {
                anchor = try Self.anchor(at: offset, log: log)
            } catch {
                throw LogbookError(error)
            }
            for case let view as any CheckpointableView in views {
                let file = ViewCheckpointFile(
                    offset: offset, anchor: anchor, digest: view.digest(),
                    state: view.checkpointState())
                do throws(StorageError) {
                    try file.write(
                        ViewCheckpointFile.path(directory: directory, view: view.name),
                        fileSystem: fileSystem)
                } catch {
                    throw LogbookError(error)
                }
            }
        }
    }

    /// The CRC of the batch holding `offset − 1`: ties a checkpoint to the log it was taken
    /// against (a different or rewritten log has a different batch there).
    static func anchor(at offset: UInt64, log: Log) throws(StorageError) -> UInt32 {
        guard offset > log.startOffset else { return 0 }
        let cursor = try log.makeCursor(from: offset - 1)
        guard try cursor.next(), let header = cursor.header else {
            throw StorageError(
                .invalidArgument, "no batch before offset \(offset)", path: log.directory)
        }
        return header.batchCRC
    }

    /// Resets every view, then restores the checkpoints that prove themselves; returns the
    /// offset each view's replay starts at and what happened to each checkpoint.
    static func restoreViews(
        _ views: [any MaterializedView], enabled: Bool, log: Log, directory: String,
        fileSystem: any FileSystem
    ) -> (starts: [UInt64], status: [String: ViewCheckpointStatus]) {
        var starts: [UInt64] = []
        var status: [String: ViewCheckpointStatus] = [:]
        for view in views {
            view.reset()
            starts.append(0)
            status[view.name] = ViewCheckpointStatus.none
            guard enabled, let view = view as? any CheckpointableView else { continue }
            let path = ViewCheckpointFile.path(directory: directory, view: view.name)
            guard let read = ViewCheckpointFile.read(path, fileSystem: fileSystem) else { continue }
            switch read {
            case .failure(let rejection):
                status[view.name] = .discarded(rejection.reason)
            case .success(let file):
                if let reason = rejection(of: file, for: view, log: log) {
                    view.reset()
                    status[view.name] = .discarded(reason)
                } else {
                    starts[starts.count - 1] = file.offset
                    status[view.name] = .restored(offset: file.offset)
                }
            }
        }
        return (starts, status)
    }

    /// Why `file` cannot be trusted for `view`, or nil when it proves itself (the view is
    /// then holding its state).
    private static func rejection(
        of file: ViewCheckpointFile, for view: any CheckpointableView, log: Log
    ) -> String? {
        guard file.offset <= log.nextOffset else {
            return "covers offset \(file.offset), the log ends at \(log.nextOffset)"
        }
        guard file.offset >= log.startOffset else {
            return "covers offset \(file.offset), the log starts at \(log.startOffset)"
        }
        guard let anchor = try? anchor(at: file.offset, log: log), anchor == file.anchor else {
            return
                "the log's batch before offset \(file.offset) is not the one it was taken against"
        }
        do {
            try view.restoreCheckpoint(file.state)
        } catch {
            return "\(error)"
        }
        guard view.digest() == file.digest else {
            return "the restored state's digest \(view.digest()) is not the recorded \(file.digest)"
        }
        return nil
    }
}
