import Foundation
import Testing

// docs/ARCHITECTURE.md is what a new engineer reads first, so it is held to the code: its
// table names every target under Sources and nothing else, and each Swift target's
// "depends on" cell names every Logbook module the import allow-list lets it use.
@Suite struct ArchitectureDocumentTests {
    /// The table's rows: target name to its "depends on" cell.
    static func documentedTargets() throws -> [String: String] {
        let document = try String(
            contentsOf: TidyTests.root.appendingPathComponent("docs/ARCHITECTURE.md"),
            encoding: .utf8)
        var rows: [String: String] = [:]
        for line in document.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 3, cells[0].hasPrefix("`"), cells[0].hasSuffix("`") else {
                continue
            }
            rows[String(cells[0].dropFirst().dropLast())] = cells[cells.count - 1]
        }
        return rows
    }

    @Test func theTableNamesEveryTargetAndNoOther() throws {
        let documented = Set(try Self.documentedTargets().keys)
        let targets = Set(
            try FileManager.default.contentsOfDirectory(atPath: LayeringTests.sources.path)
                .filter { !$0.hasPrefix(".") })
        #expect(targets.count > 10, "Sources not found")
        #expect(
            targets.subtracting(documented).isEmpty,
            "targets missing from docs/ARCHITECTURE.md: \(targets.subtracting(documented).sorted())"
        )
        #expect(
            documented.subtracting(targets).isEmpty,
            "rows for targets that are gone: \(documented.subtracting(targets).sorted())")
    }

    @Test func eachRowNamesTheLogbookModulesItsTargetMayImport() throws {
        let rows = try Self.documentedTargets()
        for (target, allowed) in LayeringTests.allowedImports {
            let cell = try #require(rows[target], "\(target) has no row in docs/ARCHITECTURE.md")
            // The CLI's row says "all of the above but …" instead of a list.
            guard !cell.hasPrefix("all of the above") else { continue }
            for module in allowed where module.hasPrefix("Logbook") || module.hasPrefix("C") {
                #expect(
                    cell.contains(module),
                    "docs/ARCHITECTURE.md: \(target) may import \(module), its row does not say so"
                )
            }
        }
    }
}
