import Foundation
import LogbookTesting
import Testing

// The package an app fetches: `Fixtures/app` depends on the embedded products (`Logbook`,
// `LogbookCRDT`, `LogbookViews`, `LogbookTesting`) with the `Server` trait off, as the
// README's "Use it from an app" shows. Resolved against this checkout, it must fetch
// swift-metrics alone: none of the 27 packages the server side brings (Hummingbird,
// AsyncHTTPClient, SwiftNIO and its TLS, postgres-nio, GRDB, swift-prometheus, the DocC
// plugin, ...). With the trait on, the same app fetches them all, which keeps the count an
// honest one: SwiftPM skips a package only when no enabled trait names it.
@Suite struct AppFixtureResolutionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func anAppWithTheServerTraitOffFetchesSwiftMetricsAlone() async throws {
        let fetched = try await Self.packagesFetched(serverTrait: false)
        #expect(fetched == ["swift-metrics"], "the app fetched \(fetched)")
    }

    @Test func theSameAppWithTheServerTraitOnFetchesTheServerSide() async throws {
        let fetched = try await Self.packagesFetched(serverTrait: true)
        for server in [
            "hummingbird", "async-http-client", "swift-nio", "postgres-nio", "grdb.swift",
        ] {
            #expect(fetched.contains(server), "\(server) not among \(fetched)")
        }
        #expect(fetched.count > 20, "the app fetched \(fetched)")
    }

    @Test func theReadmeShowsTheFixture() throws {
        let fixture = try String(
            contentsOf: Self.root.appendingPathComponent("Fixtures/app/Package.swift"),
            encoding: .utf8)
        let readme = try String(
            contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let shown = try #require(
            fixture.components(separatedBy: "// README: begin\n").dropFirst().first?
                .components(separatedBy: "    // README: end").first)
        let block = shown.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }
            .joined(separator: "\n")
        #expect(readme.contains("```swift\n" + block + "```"), "README's app snippet:\n\(block)")
    }

    /// Copies the fixture beside a link named `logbook` to this checkout (the package's
    /// identity is the path's last part), resolves it, and lists the checkouts made.
    static func packagesFetched(serverTrait: Bool) async throws -> [String] {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("logbook-app-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: scratch.appendingPathComponent("logbook"), withDestinationURL: root)
        let app = scratch.appendingPathComponent("app")
        try FileManager.default.createDirectory(
            at: app.appendingPathComponent("Sources/NoteTaker"), withIntermediateDirectories: true)
        var manifest = try String(
            contentsOf: root.appendingPathComponent("Fixtures/app/Package.swift"), encoding: .utf8)
        if serverTrait {
            manifest = manifest.replacingOccurrences(of: "traits: []", with: "traits: [\"Server\"]")
        }
        try manifest.write(
            to: app.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("Fixtures/app/Sources/NoteTaker/main.swift"),
            to: app.appendingPathComponent("Sources/NoteTaker/main.swift"))
        let resolve = Process()
        resolve.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        resolve.arguments = ["swift", "package", "resolve"]
        resolve.currentDirectoryURL = app
        let log = scratch.appendingPathComponent("resolve.log")
        #expect(FileManager.default.createFile(atPath: log.path, contents: nil))
        let output = try FileHandle(forWritingTo: log)
        resolve.standardOutput = output
        resolve.standardError = output
        try resolve.run()
        await resolve.exited()
        try output.close()
        let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try #require(resolve.terminationStatus == 0, "swift package resolve failed: \(said)")
        let checkouts = app.appendingPathComponent(".build/checkouts").path
        return try FileManager.default.contentsOfDirectory(atPath: checkouts)
            .map { $0.lowercased() }.sorted()
    }
}
