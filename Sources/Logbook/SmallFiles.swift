import Foundation
import LogbookStorage

/// Whole small files beside the log (node metadata, the GC state): read at once, written
/// through `FileSystem.replaceFile` (temporary file, fsync, rename, directory fsync).
enum SmallFiles {
    /// The bytes of `path` (at most `limit`), or nil when there is no such file.
    static func read(_ path: String, limit: Int64, fileSystem: any FileSystem) throws(LogbookError)
        -> [UInt8]?
    {
        guard fileSystem.exists(path) else { return nil }
        do {
            let file = try fileSystem.open(path, mode: .read)
            let bytes = try file.read(at: 0, count: Int(min(try file.size(), limit)))
            try file.close()
            return bytes
        } catch {
            throw LogbookError(error)
        }
    }

    /// Writes `value` as sorted-key JSON and a newline, durably.
    static func writeJSON<Value: Encodable>(
        _ value: Value, to path: String, fileSystem: any FileSystem
    ) throws(LogbookError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else {
            throw LogbookError(.badMetadata, "cannot encode \(Value.self)", path: path)
        }
        do {
            try fileSystem.replaceFile(
                path, with: [UInt8](data) + [UInt8(ascii: "\n")], durable: true)
        } catch {
            throw LogbookError(error)
        }
    }
}
