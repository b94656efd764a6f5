import Foundation
import Testing

// The project's bans, checked over every source file: each names what to use instead.
// Reads the tree next to this file; a violation reports file and line.
@Suite struct TidyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Ban {
        var pattern: String
        var directories: [String]
        var instead: String
        /// File names allowed to use it (the one place it belongs).
        var except: [String] = []
    }

    static let bans: [Ban] = [
        Ban(
            pattern: "fatalError(", directories: ["Sources"],
            instead: "a typed error, or precondition with the values"),
        Ban(pattern: "try!", directories: ["Sources"], instead: "try with a typed error"),
        Ban(
            pattern: "FIXME", directories: ["Sources", "Tests"], instead: "TODO(#issue), or fix it"),
        Ban(
            pattern: "print(",
            directories: [
                "Sources/LogbookCRDT", "Sources/LogbookStorage", "Sources/Logbook",
                "Sources/LogbookTesting", "Sources/LogbookViews", "Sources/LogbookData",
                "Sources/LogbookShipping",
                "Sources/LogbookNode",
            ],
            instead: "return the information, or a swift-log Logger; only the logbook CLI prints"),
        Ban(
            pattern: "Date()",
            directories: ["Sources/LogbookCRDT", "Sources/LogbookStorage", "Sources/Logbook"],
            instead: "a LogClock or WallClock parameter", except: ["WallClock.swift"]),
        Ban(
            pattern: "FileManager",
            directories: ["Sources/LogbookCRDT", "Sources/LogbookStorage", "Sources/Logbook"],
            instead: "the FileSystem protocol, so simulations reach it"),
        // Calls whose name or meaning differs between Linux and Darwin.
        Ban(
            pattern: "Glibc.", directories: ["Sources"], instead: "Platform (LogbookStorage)",
            except: ["Platform.swift"]),
        Ban(
            pattern: "Darwin.", directories: ["Sources"], instead: "Platform (LogbookStorage)",
            except: ["Platform.swift"]),
        Ban(
            pattern: "fdatasync(", directories: ["Sources"],
            instead: "Platform.syncData (F_FULLFSYNC on Darwin)", except: ["Platform.swift"]),
        Ban(
            pattern: "DispatchQueue",
            directories: ["Sources/LogbookCRDT", "Sources/LogbookStorage"],
            instead: "the caller's concurrency"),
        // A debug build runs it element by element through unspecialized generics: 4 MiB of
        // zeros took 0.8 s (an LZ4 decode's output), against 0.7 ms for Array(repeating:).
        Ban(
            pattern: "repeatElement(", directories: ["Sources"],
            instead: "Array(repeating:count:), which a debug build fills at memset speed"),
    ]

    /// The Swift files under `directory` (relative to the root), or the file it names.
    static func swiftFiles(under directory: String) -> [URL] {
        let base = root.appendingPathComponent(directory)
        if directory.hasSuffix(".swift") { return [base] }
        guard
            let enumerator = FileManager.default.enumerator(
                at: base, includingPropertiesForKeys: nil)
        else { return [] }
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    @Test(arguments: bans.indices)
    func bannedConstructIsAbsent(_ index: Int) throws {
        let ban = Self.bans[index]
        let files = ban.directories.flatMap(Self.swiftFiles(under:))
        #expect(!files.isEmpty, "no sources found under \(ban.directories)")
        for file in files
        where file.lastPathComponent != "TidyTests.swift"
            && !ban.except.contains(file.lastPathComponent)
        {
            let lines = try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where line.contains(ban.pattern) {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") || code.hasPrefix("#if") || code.hasPrefix("#elseif") {
                    continue
                }
                Issue.record(
                    "\(file.lastPathComponent):\(number + 1) uses \(ban.pattern); use \(ban.instead)"
                )
            }
        }
    }
}
