import Foundation

/// This process's directory for the suites' files, apart from `BenchmarkWorkload`: a suite
/// that needs only a file (the fdatasync ceilings, the search home, the tied log) does not
/// generate the standard workload's 400,000 operations first.
enum ScratchDirectory {
    static let path: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "logbook-benchmarks-\(ProcessInfo.processInfo.processIdentifier)"
        ).path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // Each benchmark's process writes logs of its own here (the search home's is tens of
        // megabytes): gone when the process ends, or /tmp fills run after run.
        atexit { try? FileManager.default.removeItem(atPath: ScratchDirectory.path) }
        return path
    }()

    /// The path of `name` in the directory, whatever was there removed.
    static func fresh(_ name: String) -> String {
        let file = path + "/" + name
        try? FileManager.default.removeItem(atPath: file)
        return file
    }

    /// A new, empty file open for writing (the fdatasync ceilings).
    static func freshFile(_ name: String) throws -> FileHandle {
        let file = fresh(name)
        guard FileManager.default.createFile(atPath: file, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return try FileHandle(forWritingTo: URL(fileURLWithPath: file))
    }
}
