import Foundation
import Testing

// scripts/docs.sh builds every library product's DocC catalog and refuses one without a
// landing page and an article, but CI runs it after the whole suite. This reads the library
// products from Package.swift's text so a new product without a catalog fails in seconds.
@Suite struct DocCCatalogTests {
    /// The target names of `.library(name:targets:)` declarations in Package.swift.
    static func libraryTargets() throws -> [String] {
        let manifest = try String(
            contentsOf: TidyTests.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String] = []
        for line in manifest.split(separator: "\n") where line.contains(".library(") {
            guard let open = line.range(of: "targets: ["),
                let close = line[open.upperBound...].firstIndex(of: "]")
            else { continue }
            for name in line[open.upperBound..<close].split(separator: ",") {
                targets.append(name.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")))
            }
        }
        return targets
    }

    @Test func everyLibraryTargetHasALandingPageAndAnArticle() throws {
        let targets = try Self.libraryTargets()
        #expect(targets.count > 5, "no library products read from Package.swift")
        for target in targets {
            let catalog = LayeringTests.sources.appendingPathComponent("\(target)/\(target).docc")
            let pages = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
            #expect(
                pages.contains("\(target).md"),
                "Sources/\(target)/\(target).docc has no landing page \(target).md")
            #expect(
                pages.filter { $0.hasSuffix(".md") }.count >= 2,
                "Sources/\(target)/\(target).docc needs at least one article beside its landing page"
            )
        }
    }
}
