import Foundation
import LogbookCRDT
import LogbookStorage

/// The `logbook.json` file that says which node a log directory belongs to, and which log
/// (`LogIdentity`) the directory's files must belong to.
///
/// Written when the directory is created, atomically (temporary file, fsync, rename,
/// directory fsync), so a log can never be reopened under another node id by mistake; a
/// file written before logs had identities gets the log's at its next writable open. A
/// directory that holds a log but lost this file is refused, never adopted: the node that
/// wrote the log is not known.
struct NodeMetadata: Codable, Equatable {
    static let fileName = "logbook.json"
    static let currentFormatVersion = 1

    var formatVersion: Int
    var nodeId: NodeId
    /// The segment size every open of this directory uses, when `logbook init
    /// --segment-size` (`LogbookOptions.recordsSegmentSize`) recorded one.
    var segmentSizeMax: Int64? = nil
    /// The log's identity, 32 hex digits (nil in a file written before identities).
    var logId: String? = nil
    /// True once a peer ledger (`peers.json`) was written for this directory: tombstone GC
    /// then refuses to run without it (a lost ledger must not make GC standalone).
    var peerLedger: Bool? = nil

    /// What every open of the directory takes from this file: the log's identity and the
    /// recorded segment size; and the engine's epoch marks (`ChangeRecordCodec.epochMarking`).
    func apply(to configuration: inout LogConfiguration) {
        configuration.identity = identity
        configuration.epochMarking = ChangeRecordCodec.epochMarking
        if let segmentSizeMax { configuration.segmentSizeMax = segmentSizeMax }
    }

    /// The identity `logId` names.
    var identity: LogIdentity? { logId.flatMap { LogIdentity(hex: $0) } }

    /// Reads the metadata, or nil when the directory has none.
    static func read(directory: String, fileSystem: any FileSystem) throws(LogbookError)
        -> NodeMetadata?
    {
        let path = directory + "/" + fileName
        guard let bytes = try SmallFiles.read(path, limit: 4096, fileSystem: fileSystem) else {
            return nil
        }
        guard let metadata = try? JSONDecoder().decode(NodeMetadata.self, from: Data(bytes)) else {
            throw LogbookError(
                .badMetadata,
                "not a Logbook metadata file (expected {\"formatVersion\":1,\"nodeId\":N})",
                path: path)
        }
        guard metadata.formatVersion == currentFormatVersion else {
            throw LogbookError(
                .badMetadata, "unsupported metadata format version \(metadata.formatVersion)",
                path: path)
        }
        guard metadata.nodeId != 0 else {
            throw LogbookError(
                .badMetadata, "node 0 is no node (node ids start at 1); the file was edited",
                path: path)
        }
        if let logId = metadata.logId, LogIdentity(hex: logId) == nil {
            throw LogbookError(
                .badMetadata, "logId \(logId.debugDescription) is not 32 hex digits", path: path)
        }
        if let size = metadata.segmentSizeMax, !Limits.segmentSizes.contains(size) {
            throw LogbookError(
                .badMetadata,
                "segmentSizeMax \(size) is outside \(Limits.segmentSizeMin)...\(Limits.segmentSizeMax) bytes",
                path: path)
        }
        return metadata
    }

    /// The metadata of the Logbook `options` open in `directory`: read (and checked
    /// against `nodeId` and the options), or written when a writer with a node id creates
    /// the directory. Throws `.nodeMismatch` for another node's or a missing Logbook
    /// (a read-only open creates nothing), `.badMetadata` for a segment size asked to be
    /// recorded in a directory that exists.
    static func resolve(directory: String, nodeId: NodeId?, options: LogbookOptions)
        throws(LogbookError) -> NodeMetadata
    {
        let fileSystem = options.fileSystem
        if nodeId == 0 {
            throw LogbookError(
                .badMetadata, "node 0 is no node (node ids start at 1)", path: directory)
        }
        let existing =
            fileSystem.exists(directory)
            ? try read(directory: directory, fileSystem: fileSystem) : nil
        switch (existing, nodeId) {
        case (let metadata?, let requested?) where metadata.nodeId != requested:
            throw LogbookError(
                .nodeMismatch, "directory belongs to node \(metadata.nodeId), not \(requested)",
                path: directory)
        case (let metadata?, _):
            if options.recordsSegmentSize, metadata.segmentSizeMax != options.log.segmentSizeMax {
                throw LogbookError(
                    .badMetadata,
                    "a segment size is recorded when a directory is created; this one exists",
                    path: directory)
            }
            return metadata
        case (nil, _?) where options.readOnly:
            throw LogbookError(
                .nodeMismatch,
                "not a Logbook directory (no \(fileName)); a read-only open creates nothing",
                path: directory)
        case (nil, let requested?):
            do { try options.log.validate() } catch { throw LogbookError(error) }
            try refuseAdoption(directory: directory, fileSystem: fileSystem)
            do { try fileSystem.createDirectory(directory) } catch { throw LogbookError(error) }
            let created = NodeMetadata(
                formatVersion: currentFormatVersion, nodeId: requested,
                segmentSizeMax: options.recordsSegmentSize ? options.log.segmentSizeMax : nil,
                logId: (options.log.identity ?? .random()).hex)
            try created.write(directory: directory, fileSystem: fileSystem)
            return created
        case (nil, nil):
            throw LogbookError(
                .nodeMismatch,
                "not a Logbook directory (no \(fileName)); create it with `logbook init \(directory) --node N` (or open it with a node id)",
                path: directory)
        }
    }

    /// Refuses to create metadata in a directory that already holds a log: its
    /// `logbook.json` was lost, and the node that wrote the log is not known (a new node id
    /// would make this node write as another, or adopt another node's records as its own).
    private static func refuseAdoption(directory: String, fileSystem: any FileSystem)
        throws(LogbookError)
    {
        guard fileSystem.exists(directory) else { return }
        let names: [String]
        do { names = try fileSystem.contentsOfDirectory(directory) } catch {
            throw LogbookError(error)
        }
        guard let found = names.sorted().first(where: SegmentFileName.isLogFile) else { return }
        throw LogbookError(
            .badMetadata,
            "the directory holds a log (\(found)) but no \(fileName): the file that names its "
                + "node was removed or lost. Restore \(fileName) from a copy of this directory; "
                + "a log is never adopted by a new node id",
            path: directory)
    }

    /// Writes the metadata durably.
    func write(directory: String, fileSystem: any FileSystem) throws(LogbookError) {
        try SmallFiles.writeJSON(
            self, to: directory + "/" + Self.fileName, fileSystem: fileSystem)
    }
}

extension Logbook {
    /// The file whose presence makes a directory a Logbook (it names the node).
    public static let metadataFileName = NodeMetadata.fileName

    /// Opens the log of the Logbook in `directory` alone, read-only, as `verify` and
    /// `inspect` do: with the log identity and segment size its `logbook.json` records, so
    /// that it refuses what `open` refuses (a node 0, a manifest of another log). Throws
    /// `.nodeMismatch` for a directory without the file, `.badMetadata` for a damaged one,
    /// and what `Log.openReadOnly` throws, wrapped.
    public static func openLogReadOnly(
        directory: String, fileSystem: any FileSystem = PosixFileSystem()
    ) throws(LogbookError) -> Log {
        guard let metadata = try NodeMetadata.read(directory: directory, fileSystem: fileSystem)
        else {
            throw LogbookError(
                .nodeMismatch, "not a Logbook directory (no \(NodeMetadata.fileName))",
                path: directory)
        }
        var configuration = LogConfiguration()
        metadata.apply(to: &configuration)
        do {
            return try Log.openReadOnly(
                directory: directory, fileSystem: fileSystem, configuration: configuration)
        } catch {
            throw LogbookError(error)
        }
    }

    /// True when `directory` holds a Logbook's metadata file. Reads nothing else.
    public static func isLogbookDirectory(
        _ directory: String, fileSystem: any FileSystem = PosixFileSystem()
    ) -> Bool {
        fileSystem.exists(directory + "/" + NodeMetadata.fileName)
    }
}
