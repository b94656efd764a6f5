import Foundation
import Testing

// The layering, held by tests: each target imports only what its row allows (Kafka's
// import-control, by hand), and no file or function grows past a size a reader can hold.
// The exception lists only shrink: split the file or function instead of adding to them.
@Suite struct LayeringTests {
    static let sources = TidyTests.root.appendingPathComponent("Sources")

    /// What each target may import. Platform modules (Glibc, Darwin) are allowed where a
    /// target talks to the operating system; see docs/ARCHITECTURE.md.
    static let allowedImports: [String: Set<String>] = [
        "LogbookCRDT": ["Foundation", "CMemoryHints"],
        // CoreMetrics is swift-metrics' API alone: figures go nowhere until a program
        // bootstraps a backend.
        "LogbookStorage": [
            "Foundation", "CLZ4", "CLZ4Codec", "CCRC32C", "CMemoryHints", "CThreadNames",
            "CWriteback", "Glibc",
            "Darwin",
            "CoreMetrics",
        ],
        "Logbook": [
            "Foundation", "LogbookCRDT", "LogbookStorage", "CMemoryHints", "CoreMetrics",
            "Synchronization",
        ],
        "LogbookViews": ["Foundation", "Logbook", "LogbookCRDT", "LogbookData", "CMemoryHints"],
        "LogbookData": ["Foundation", "Logbook", "LogbookCRDT", "Synchronization", "Observation"],
        "LogbookWorkloads": [
            "Foundation", "Logbook", "LogbookCRDT", "LogbookStorage", "LogbookViews",
        ],
        "LogbookTesting": [
            "Foundation", "Logbook", "LogbookCRDT", "LogbookStorage", "LogbookViews",
            "LogbookWorkloads",
        ],
        "LogbookShipping": [
            "Foundation", "Logbook", "LogbookCRDT", "LogbookStorage", "AsyncHTTPClient",
            "HTTPTypes", "Hummingbird", "HummingbirdCore", "HummingbirdTLS", "NIOCore",
            "NIOHTTP1", "NIOHTTPTypes", "NIOPosix", "NIOSSL", "ServiceLifecycle", "Prometheus",
            "Logging",
        ],
        "LogbookNode": [
            "Foundation", "Logbook", "LogbookShipping", "AsyncHTTPClient", "Logging",
            "ServiceLifecycle", "Metrics", "Prometheus",
        ],
        "LogbookCrashWriter": ["Foundation", "ArgumentParser", "Logbook", "LogbookCRDT"],
        "LogbookHub": [
            "Foundation", "Logbook", "LogbookCRDT", "LogbookShipping", "Logging", "NIOCore",
            "NIOSSL", "PostgresNIO", "Hummingbird", "HTTPTypes", "ServiceLifecycle",
            "LogbookStorage", "CoreMetrics", "Prometheus",
        ],
        "LogbookBench": [
            "Foundation", "Logbook", "LogbookCRDT", "LogbookStorage", "LogbookWorkloads",
            "LogbookViews", "LogbookData", "LogbookShipping", "GRDB", "LogbookHub", "PostgresNIO",
            "Logging",
            "NIOCore", "AsyncHTTPClient",
        ],
        // Parsing and printing: the work itself is in the libraries above.
        "logbook": [
            "Foundation", "ArgumentParser", "Logging", "Logbook", "LogbookCRDT", "LogbookStorage",
            "LogbookViews", "LogbookShipping", "LogbookNode", "LogbookBench", "LogbookWorkloads",
            "LogbookHub", "AsyncHTTPClient",
        ],
    ]

    /// Files over `fileLinesMax` lines today.
    static let longFiles: Set<String> = []
    /// Functions over `functionLinesMax` lines today, as "file:name".
    static let longFunctions: Set<String> = [
        "LogbookWorkloads/HomeGraphGenerator.swift:addHome",
        "Logbook/Maintenance/TombstoneCollector.swift:collect",
        "LogbookBench/ViewsBenchmark.swift:run",
        "LogbookStorage/Segment/SegmentRecovery.swift:recover",
    ]
    static let fileLinesMax = 400
    static let functionLinesMax = 80

    /// Every Swift file under Sources, as (target, path relative to Sources, lines).
    static func sourceFiles() throws -> [(target: String, path: String, lines: [Substring])] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: sources, includingPropertiesForKeys: nil)
        else { return [] }
        var files: [(String, String, [Substring])] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(sources.path.count + 1))
            let target = String(relative.prefix { $0 != "/" })
            let text = try String(contentsOf: url, encoding: .utf8)
            files.append(
                (target, relative, text.split(separator: "\n", omittingEmptySubsequences: false)))
        }
        return files
    }

    @Test func everyTargetImportsOnlyWhatItsRowAllows() throws {
        let files = try Self.sourceFiles()
        #expect(files.count > 100, "sources not found")
        var checked = 0
        for (target, path, lines) in files {
            let allowed = try #require(Self.allowedImports[target], "\(target) has no row")
            for (number, line) in lines.enumerated() {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ $0.hasPrefix("@") || $0 == "public" })
                else { continue }
                let module = String(words[index + 1])
                checked += 1
                #expect(
                    allowed.contains(module),
                    "\(path):\(number + 1) imports \(module), which \(target) may not")
            }
        }
        #expect(checked > 200, "only \(checked) imports found: the parsing is broken")
    }

    /// The command line parses and prints; the work lives in the libraries. Issue 14 set the
    /// bound when the benchmark harness and the demo moved out (3,754 lines then).
    @Test func theCommandLineStaysThin() throws {
        let lines = try Self.sourceFiles().filter { $0.target == "logbook" }
            .reduce(0) { $0 + $1.lines.count - 1 }  // the last newline gives an empty line
        #expect(lines > 1000, "Sources/logbook not found")
        #expect(
            lines < Self.commandLineLinesMax,
            "Sources/logbook has \(lines) lines: move logic into a library (at most \(Self.commandLineLinesMax - 1))"
        )
    }

    static let commandLineLinesMax = 2000

    @Test func filesStayShort() throws {
        for (_, path, lines) in try Self.sourceFiles() where !Self.longFiles.contains(path) {
            #expect(
                lines.count <= Self.fileLinesMax + 1,  // the last newline gives an empty line
                "\(path) has \(lines.count) lines; split it (at most \(Self.fileLinesMax))")
        }
    }

    @Test func functionsStayShort() throws {
        for (_, path, lines) in try Self.sourceFiles() {
            for function in Self.functions(in: lines)
            where function.lines > Self.functionLinesMax
                && !Self.longFunctions.contains("\(path):\(function.name)")
            {
                let message =
                    "\(path):\(function.line) func \(function.name) has \(function.lines) lines "
                    + "(at most \(Self.functionLinesMax))"
                Issue.record(Comment(rawValue: message))
            }
        }
    }

    @Test func theExceptionListsHoldOnlyRealExceptions() throws {
        let files = try Self.sourceFiles()
        for path in Self.longFiles {
            let file = files.first { $0.path == path }
            #expect(
                (file?.lines.count ?? 0) > Self.fileLinesMax + 1,
                "\(path) is short now (or gone): take it off the list")
        }
        var long: Set<String> = []
        for (_, path, lines) in files {
            for function in Self.functions(in: lines) where function.lines > Self.functionLinesMax {
                long.insert("\(path):\(function.name)")
            }
        }
        for entry in Self.longFunctions {
            #expect(long.contains(entry), "\(entry) is short now (or gone): take it off the list")
        }
    }

    /// Each `func`'s name, first line and length in lines, found by matching braces outside
    /// string literals (enough for this code base; not a Swift parser).
    static func functions(in lines: [Substring]) -> [(name: String, line: Int, lines: Int)] {
        var found: [(String, Int, Int)] = []
        for (start, line) in lines.enumerated() {
            let code = line.trimmingCharacters(in: .whitespaces)
            guard !code.hasPrefix("//"), let range = code.range(of: "func ") else { continue }
            let name = String(
                code[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            guard !name.isEmpty else { continue }
            var depth = 0
            var opened = false
            var inMultilineString = false
            var end = start
            scan: for index in start..<lines.count {
                var characters = lines[index].makeIterator()
                var quote = false
                var previous: Character = " "
                var quotes = 0
                while let character = characters.next() {
                    quotes = character == "\"" ? quotes + 1 : 0
                    if quotes == 3 {
                        inMultilineString.toggle()
                        quote = false
                        quotes = 0
                    } else if !inMultilineString && character == "\"" && previous != "\\" {
                        quote.toggle()
                    } else if !inMultilineString && !quote {
                        if character == "{" {
                            depth += 1
                            opened = true
                        } else if character == "}" {
                            depth -= 1
                        }
                    }
                    previous = character
                }
                end = index
                if opened && depth <= 0 { break scan }
                if !opened && index > start + 10 { break scan }  // a requirement, no body
            }
            if opened { found.append((name, start + 1, end - start + 1)) }
        }
        return found
    }
}
