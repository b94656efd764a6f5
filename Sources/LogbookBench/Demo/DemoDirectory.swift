import Foundation

/// The demo's directories are replaced on each run, but only when they hold a Logbook: a
/// mistyped `--directory` must never delete somebody's files.
enum DemoDirectory {
    static func replace(_ path: String) throws {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: path) else { return }
        guard fileManager.fileExists(atPath: path + "/logbook.json") else {
            throw DemoError.notALogbook(path: path)
        }
        try fileManager.removeItem(atPath: path)
    }
}
