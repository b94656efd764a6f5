import LogbookCRDT
import LogbookStorage

/// Finds the newest replica snapshot in a directory that proves itself against the log
/// being opened, and loads it; sets aside the ones that do not (never trusted, never
/// deleted: renamed to `<file>.set-aside` by a writable open, left alone by a read-only one).
enum SnapshotLoader {
    static let setAsideSuffix = ".set-aside"

    /// The loaded state (nil when none proved itself) and what happened.
    static func load(
        directory: String, nodeId: NodeId, log: Log, readOnly: Bool, fileSystem: any FileSystem
    ) -> (ReplicaState?, SnapshotLoad) {
        var load = SnapshotLoad()
        let started = ContinuousClock.now
        for file in Logbook.snapshotFiles(directory: directory, fileSystem: fileSystem) {
            let path = directory + "/" + file.name
            switch read(path, nodeId: nodeId, log: log, fileSystem: fileSystem) {
            case .success(let (header, crdt)):
                load.file = file.name
                load.offset = header.offset
                load.entries = header.entryCount
                load.seconds = Double((ContinuousClock.now - started) / .nanoseconds(1)) / 1e9
                return (crdt, load)
            case .failure(let rejection):
                load.setAside.append(file.name + ": " + rejection.reason)
                if !readOnly { try? fileSystem.rename(path, to: path + setAsideSuffix) }
            }
        }
        return (nil, load)
    }

    /// Reads one snapshot; its header is checked against the log before the body is read.
    private static func read(
        _ path: String, nodeId: NodeId, log: Log, fileSystem: any FileSystem
    ) -> Result<(ReplicaSnapshotFile, ReplicaState), CheckpointRejection> {
        do {
            let file = try fileSystem.open(path, mode: .read)
            defer { try? file.close() }
            let size = try file.size()
            guard size >= Int64(ReplicaSnapshotFile.headerSizeBeforeVersion3),
                size <= Int64(Int.max)
            else {
                return .failure(.init("\(size) bytes: shorter than a snapshot header"))
            }
            let headerBytes = try file.read(
                at: 0,
                count: Int(truncatingIfNeeded: min(size, Int64(ReplicaSnapshotFile.headerSize))))
            let header = try headerBytes.withUnsafeBytes {
                try ReplicaSnapshotFile.decodeHeader($0).get()
            }
            if let reason = rejection(of: header, log: log) { return .failure(.init(reason)) }
            // Checked before the body is read: a file longer than its header says (a sparse
            // one of terabytes, say) is refused without being read into memory.
            let bodySize = UInt64(size) - UInt64(header.encodedHeaderSize)
            if let rejection = header.bodyLengthRejection(byteCount: bodySize) {
                return .failure(rejection)
            }
            guard let count = Int(exactly: size) else {
                return .failure(.init("\(size) bytes do not fit this platform's memory"))
            }
            let bytes = try file.read(at: 0, count: count)
            return ReplicaSnapshotCodec.decode(bytes, nodeId: nodeId)
        } catch let rejection as CheckpointRejection {
            return .failure(rejection)
        } catch {
            return .failure(.init("unreadable: \(error)"))
        }
    }

    /// Why a snapshot's header does not fit the log, or nil when it does: the log must
    /// still hold every record from the snapshot's offset on, and the record before that
    /// offset must have been written in the epoch the snapshot names.
    static func rejection(of header: ReplicaSnapshotFile, log: Log) -> String? {
        guard let identity = header.identity else {
            return "snapshot format \(header.version) names no log: it cannot prove it belongs "
                + "to this one (the log is replayed instead, and the next snapshot names it)"
        }
        guard identity == log.identity else {
            return "taken of log \(identity.hex), this is log \(log.identity.hex): copied in "
                + "from another directory"
        }
        guard header.historyId == log.history.id else {
            return "taken in history \(header.historyId), before the tombstone GC that began "
                + "this log's history \(log.history.id) at offset \(log.history.startOffset): "
                + "loaded, it would bring collected records back"
        }
        guard header.offset <= log.nextOffset else {
            return "covers offset \(header.offset), the log ends at \(log.nextOffset)"
        }
        guard header.offset >= log.startOffset else {
            return "covers offset \(header.offset), the log starts at \(log.startOffset)"
        }
        guard
            header.offset == 0
                || log.holds(
                    offset: header.offset - 1, epochId: header.epochId, below: log.nextOffset)
        else {
            return "the log's record before offset \(header.offset) was not written in epoch "
                + "\(header.epochId): this log is not the one the snapshot was taken of"
        }
        return markRejection(of: header, log: log)
    }

    /// Why the record before the snapshot's offset is not the snapshot mark it names, or nil
    /// when it is. A copy of this log that diverged (restored from a backup and written on,
    /// say) shares its identity, history and, with its `epochs` file, its epochs; the mark
    /// was logged in one of the two only. One batch read.
    private static func markRejection(of header: ReplicaSnapshotFile, log: Log) -> String? {
        guard header.offset > 0 else { return nil }
        let target = header.offset - 1
        var found: (time: UInt64, nonce: UInt64)??
        do throws(StorageError) {
            let cursor = try log.makeCursor(from: target)
            if try cursor.next() {
                cursor.forEachRecord { offset, bytes in
                    if offset == target { found = .some(ChangeRecordCodec.snapshotMark(bytes)) }
                }
            }
        } catch {
            return "the log's record before offset \(header.offset) is unreadable: \(error)"
        }
        switch found {
        case .none:
            return "the log holds no record at offset \(target), where the snapshot's mark was"
        case .some(.none):
            return "the log's record at offset \(target) is not a snapshot mark: the snapshot "
                + "was taken of a copy of this log that diverged from it"
        case .some(.some(let mark)) where mark.nonce != header.markNonce:
            return "the snapshot mark at offset \(target) is another snapshot's (nonce "
                + "\(mark.nonce), the snapshot names \(header.markNonce)): the snapshot was "
                + "taken of a copy of this log that diverged from it"
        case .some(.some):
            return nil
        }
    }
}
