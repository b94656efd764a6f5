import Foundation
import Testing

// The examples are read as tutorials: each app under Examples/Sources stays under 300
// lines (issue 62), and each is in Examples/README.md, the list a reader starts from.
@Suite struct ExampleSizeTests {
    static let apps = ["Chat", "Home", "Bridges"]

    @Test(arguments: apps)
    func anExampleAppIsUnder300Lines(_ app: String) throws {
        let files = TidyTests.swiftFiles(under: "Examples/Sources/\(app)")
        #expect(!files.isEmpty, "Examples/Sources/\(app) holds no Swift file")
        var lines = 0
        for file in files {
            lines += try String(contentsOf: file, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false
            ).count
        }
        #expect(lines < 300, "Examples/Sources/\(app): \(lines) lines")
    }

    @Test func everyExampleAppIsInTheExamplesReadme() throws {
        let readme = try String(
            contentsOf: TidyTests.root.appendingPathComponent("Examples/README.md"),
            encoding: .utf8)
        let listed = try FileManager.default.contentsOfDirectory(
            atPath: TidyTests.root.appendingPathComponent("Examples/Sources").path)
        #expect(Set(listed) == Set(Self.apps))
        for app in Self.apps { #expect(readme.contains("`swift run \(app)"), "\(app)") }
    }
}
