import Foundation

/// A fresh directory under the system's temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory; `label` (the calling function by default) goes in its name.
    public init(_ label: String = #function) {
        let name = "logbook-test-\(label.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
        path = FileManager.default.temporaryDirectory.appendingPathComponent(name).path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func appending(_ component: String) -> String { path + "/" + component }

    /// Removes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Deterministic record contents: offset-dependent so misplaced data is caught.
public func recordBytes(_ number: Int, size: Int) -> [UInt8] {
    (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number &* 7) }
}
