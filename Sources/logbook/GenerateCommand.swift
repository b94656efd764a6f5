import ArgumentParser
import Foundation
import LogbookViews
import LogbookWorkloads

/// `logbook generate bridges --years N --seed S`: a realistic SODA JSON array on stdout.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a realistic dataset as JSON to standard output.",
        discussion: """
            Kinds: `bridges` — Seattle drawbridge openings in the SODA feed's shape: the seven \
            real bridges with the feed's coordinates, Fremont the busiest, fewer openings on \
            weekdays 7–9 and 16–18, about 4,500 rows a year, some openings split into several \
            rows and a few with no close. `home` — a home graph in The Goodies' file format \
            (entities, then relationships) with --entities entities: homes of zones and rooms, \
            devices in rooms, and manuals, procedures, notes, schedules, automations and apps \
            around them. The same seed gives the same file.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        /// Seattle SODA drawbridge rows.
        case bridges
        /// A Goodies home graph.
        case home
    }

    @Argument(help: "What to generate: bridges or home.")
    var kind: Kind
    @Option(help: "Years of openings, from 1 January 2023.")
    var years = 1
    @Option(help: "home: the number of entities.")
    var entities = 1000
    @Option(help: "Seed; the same seed gives the same output.")
    var seed: UInt64 = 1

    func validate() throws {
        guard (1...50).contains(years) else {
            throw ValidationError("--years must be within 1...50")
        }
        guard (1...20_000_000).contains(entities) else {
            throw ValidationError("--entities must be within 1...20000000")
        }
    }

    func run() throws {
        if kind == .home {
            var generator = HomeGraphGenerator(seed: seed)
            let text = PythonJSON.dumps(generator.document(entities: entities))
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
            return
        }
        var generator = DrawbridgeFeedGenerator(seed: seed)
        let rows = generator.rows(years: years)
        let data = try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys])
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}
