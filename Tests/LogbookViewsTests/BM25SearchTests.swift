import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

// BM25 from the index against BM25 computed from every entity's text, under heavy edits:
// the index moves postings when a document is removed or re-indexed, and only a long run
// of renames, content changes, deletions and re-creations between queries reaches every
// such move.
@Suite struct BM25SearchTests {
    @Test(arguments: [11, 12, 13] as [UInt64])
    func theIndexedRankingEqualsAScanUnderEdits(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let home = try HomeLogbook()
        defer { home.close() }
        let entities = 150
        for (recordId, fields) in SearchIndexTests.randomCorpus(&random, entities: entities) {
            try await home.logbook.insertOrUpdate(recordId, fields: fields)
        }
        let words = ["kitchen", "light", "room", "thermostat", "nest", "hue", "lamp", "é"]
        func text(_ count: Int) -> String {
            (0..<count).map { _ in words.randomElement(using: &random) ?? "" }.joined(
                separator: " ")
        }
        for round in 0..<40 {
            for _ in 0..<6 {
                let record = "entity/e\(Int.random(in: 0..<entities, using: &random))"
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    try await home.logbook.insertOrUpdate(
                        record,
                        fields: [("name", .string(text(Int.random(in: 1...4, using: &random))))])
                case 1:
                    try await home.logbook.insertOrUpdate(
                        record,
                        fields: [
                            ("content.notes", .string(text(Int.random(in: 0...9, using: &random))))
                        ])
                case 2:
                    try await home.logbook.deleteRecord(record)
                default:
                    try await home.logbook.insertOrUpdate(
                        "entity/new\(round)-\(Int.random(in: 0..<1000, using: &random))",
                        fields: [("name", .string(text(2))), ("content.brand", .string(text(3)))])
                }
            }
            for query in [text(1), text(2), text(3) + " ki"] {
                let types: Set<String>? = round % 4 == 0 ? ["device"] : nil
                let indexed = home.search.searchBM25(query, types: types, limit: 15)
                #expect(
                    indexed == home.search.searchBM25ByScanning(query, types: types, limit: 15),
                    "seed \(seed) round \(round) query '\(query)'")
            }
        }
    }

    /// Names are tokenized as written; content as The Goodies' `json.dumps` text, where
    /// non-ASCII characters are escapes (so they are put in the name here).
    @Test func tokensAreLetterAndDigitRunsOfAnyScript() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.logbook.insertOrUpdate(
            "entity/a", fields: [("name", "Café-42 ÅNGSTRÖM ½ ٣"), ("content.note", "x_y")])
        try await home.logbook.insertOrUpdate("entity/b", fields: [("name", "cafe 42")])
        for (query, expected) in [
            ("café", ["a"]), ("42", ["a", "b"]), ("ångström", ["a"]), ("x", ["a"]),
            ("y", ["a"]), ("½", ["a"]), ("٣", ["a"]), ("cafe", ["b"]), ("-", []),
        ] {
            #expect(
                home.search.searchBM25(query).map(\.id).sorted() == expected, "query '\(query)'")
        }
    }
}

extension BM25SearchTests {
    /// A type filter keeps only entities whose type it names; an entity with no
    /// `entity_type` passes no filter, and without a filter every match comes back. Both
    /// rankings and their scans share the filter, so the scans cannot catch it: this names
    /// the answer.
    @Test func aTypeFilterNeverLetsAnUntypedEntityThrough() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.logbook.insertOrUpdate(
            "entity/typed", fields: [("entity_type", "device"), ("name", "Hall lamp")])
        try await home.logbook.insertOrUpdate("entity/untyped", fields: [("name", "Hall lamp")])
        for ids in [
            home.search.search("hall lamp", types: ["device"]).map(\.id),
            home.search.searchByScanning("hall lamp", types: ["device"]).map(\.id),
            home.search.searchBM25("hall lamp", types: ["device"]).map(\.id),
            home.search.searchBM25ByScanning("hall lamp", types: ["device"]).map(\.id),
        ] {
            #expect(ids == ["typed"])
        }
        #expect(Set(home.search.search("hall lamp").map(\.id)).count == 2)
        #expect(Set(home.search.searchBM25("hall lamp").map(\.id)).count == 2)
    }
}
