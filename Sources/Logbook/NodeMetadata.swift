import Foundation
import LogbookCRDT
import LogbookStorage

/// The `logbook.json` file that says which node a log directory belongs to.
///
/// Written once, atomically (temporary file, fsync, rename, directory fsync), so a log can
/// never be reopened under another node id by mistake.
struct NodeMetadata: Codable, Equatable {
    static let fileName = "logbook.json"
    static let currentFormatVersion = 1

    var formatVersion: Int
    var nodeId: NodeId

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
        return metadata
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

    /// True when `directory` holds a Logbook's metadata file. Reads nothing else.
    public static func isLogbookDirectory(
        _ directory: String, fileSystem: any FileSystem = PosixFileSystem()
    ) -> Bool {
        fileSystem.exists(directory + "/" + NodeMetadata.fileName)
    }
}
