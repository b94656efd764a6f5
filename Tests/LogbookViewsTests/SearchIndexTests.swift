import Foundation
import Logbook
import LogbookCRDT
import LogbookTesting
import LogbookViews
import Testing

// The Goodies' search contract. Expected scores and highlights come from running The
// Goodies' scoring rules in Python 3 on the same corpus (figures, not code, copied here);
// the difflib and json.dumps vectors likewise.
@Suite struct SearchIndexTests {
    static let corpus = #"""
        {"entities": [
          {"id": "t", "entity_type": "device", "name": "Smart Thermostat", "content": {"brand": "Nest", "location": "Hall"}},
          {"id": "k", "entity_type": "room", "name": "Kitchen", "content": {"features": ["island", "pantry"], "floor": 1}},
          {"id": "kl", "entity_type": "device", "name": "Kitchen Light", "content": {"brand": "Hue", "note": "Café lights over the kitchen island"}},
          {"id": "m", "entity_type": "manual", "name": "Thermostat Manual", "content": {}},
          {"id": "n", "entity_type": "note", "name": "kitchn", "content": {"text": "typo"}}
        ], "relationships": []}
        """#

    @Test(
        arguments: [
            ("kitchen", [("k", 7.0), ("kl", 6.0), ("n", 0.9230769230769231)]),
            ("thermostat", [("t", 3.0), ("m", 3.0)]),  // a tie: insertion order
            ("kitchen island", [("kl", 4.5), ("k", 2.0)]),
            ("café", [("kl", 1.0)]),
            ("nest", [("t", 3.0)]),
            ("kitchn", [("n", 7.0), ("k", 0.9230769230769231)]),
            ("Kitchen Light", [("kl", 9.0), ("k", 1.5)]),
            ("zebra", []),
        ] as [(String, [(String, Double)])])
    func scoresMatchTheGoodies(query: String, expected: [(String, Double)]) async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.corpus)
        let results = home.search.search(query)
        #expect(results.map(\.id) == expected.map(\.0))
        #expect(results.map(\.score) == expected.map(\.1))
        #expect(home.search.searchByScanning(query) == results)
    }

    @Test func highlightsSayWhyAsTheGoodiesDoes() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.corpus)
        let kitchen = home.search.search("kitchen")
        #expect(kitchen[0].highlights == ["name": ["Kitchen"]])
        #expect(
            kitchen[1].highlights == [
                "name": ["Kitchen Light"],
                "content": [
                    "Content contains 'kitchen'", "note: Café lights over the kitchen island...",
                ],
            ])
        #expect(kitchen[2].highlights == [:])  // fuzzy only
        #expect(
            home.search.search("Kitchen Light")[0].highlights["content"] == [
                "Content matches 2 word(s)"
            ])
    }

    @Test func limitsAndTypeFiltersCutTheRanking() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.corpus)
        #expect(home.search.search("kitchen", limit: 0).isEmpty)
        #expect(home.search.search("kitchen", limit: 1).map(\.id) == ["k"])
        #expect(home.search.search("kitchen", types: ["device", "note"]).map(\.id) == ["kl", "n"])
        #expect(home.search.search("").count == 5)  // "" is in every name
    }

    @Test func updatesAndDeletionsReachTheIndex() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.corpus)
        #expect(home.search.search("hall").map(\.id) == ["t"])
        try await home.logbook.deleteField("entity/t", fieldName: "content.location")
        #expect(home.search.search("hall").isEmpty)
        try await home.logbook.insertOrUpdate("entity/m", fields: [("name", "Hallway guide")])
        #expect(home.search.search("hall").map(\.id) == ["m"])
        try await home.logbook.deleteRecord("entity/m")
        #expect(home.search.search("hall").isEmpty)
        #expect(home.search.count == 4)
    }

    @Test(
        arguments: [
            ("kitchen", "kitchn", 0.9230769230769231),
            ("living room lights", "living room light", 0.9714285714285714),
            ("abcd", "bcda", 0.75),
            ("", "", 1.0),
            ("a", "", 0.0),
            ("smart thermostat", "thermostat", 0.7692307692307693),
            ("qabxcd", "abycdf", 0.6666666666666666),
            // autojunk: b of 240 elements, both letters popular; the match still extends.
            (
                String(repeating: "ab", count: 150), String(repeating: "aaab", count: 60),
                0.003703703703703704
            ),
            ("x" + String(repeating: "e", count: 5) + "y", String(repeating: "e", count: 250), 0.0),
        ] as [(String, String, Double)])
    func sequenceMatcherEqualsPythonsDifflib(a: String, b: String, ratio: Double) {
        #expect(SequenceMatcher.ratio(a, b) == ratio)
    }

    @Test func jsonDumpsEqualsPythons() {
        let text = PythonJSON.dumps(members: [
            (
                "a",
                .array([
                    .double(1.0), .double(1e16), .double(1e-5), .double(0.1),
                    .double(123_456_789_012_345.0), .double(1e15), .double(-0.0), .double(.nan),
                    .double(.infinity), .double(.leastNonzeroMagnitude), .double(1.5e300),
                ])
            ),
            ("b", .string("Caf\u{e9} \u{1F600} \u{7F} \u{01} \"q\"\\")),
        ])
        #expect(
            text
                == #"{"a": [1.0, 1e+16, 1e-05, 0.1, 123456789012345.0, 1000000000000000.0, -0.0, NaN, Infinity, 5e-324, 1.5e+300], "b": "Caf\u00e9 \ud83d\ude00 \u007f \u0001 \"q\"\\"}"#
        )
        #expect(PythonJSON.dumps(members: []) == "{}")
        #expect(PythonJSON.dumps(Value.array([])) == "[]")
    }

    /// Random names and content over a small alphabet, so substrings and near-misses are common.
    static func randomCorpus(_ random: inout SeededGenerator, entities: Int) -> [(
        String, [(String, Value)]
    )] {
        let syllables = [
            "ki", "tch", "en", "li", "ght", "ro", "om", "the", "rmo", "st", "at", " ", "é",
        ]
        func phrase(_ count: Int) -> String {
            (0..<count).map { _ in syllables.randomElement(using: &random) ?? "" }.joined()
        }
        return (0..<entities).map { index in
            var fields: [(String, Value)] = [
                (
                    "entity_type",
                    .string(["device", "room", "note"].randomElement(using: &random) ?? "")
                ),
                ("name", .string(phrase(Int.random(in: 1...6, using: &random)))),
            ]
            for key in ["brand", "notes", "floor"].shuffled(using: &random).prefix(
                Int.random(in: 0...3, using: &random))
            {
                fields.append(
                    (
                        "content." + key,
                        key == "floor"
                            ? .int(Int64(index % 3))
                            : .string(phrase(Int.random(in: 1...8, using: &random)))
                    ))
            }
            return ("entity/e\(index)", fields)
        }
    }

    /// Past 1,024 changed entities the first query rebuilds every index at once, its posting
    /// lists on two threads (`RebuiltPostings`); the answers must be the scan's, as for the
    /// one-at-a-time indexing the smaller corpora above take.
    @Test func aRebuildOnTwoThreadsAnswersAsTheScan() async throws {
        var random = SeededGenerator(seed: 31)
        let home = try HomeLogbook()
        defer { home.close() }
        for (recordId, fields) in Self.randomCorpus(&random, entities: 1_500) {
            try await home.logbook.insertOrUpdate(recordId, fields: fields)
        }
        for query in ["kitchen", "ki", "light the", "rmost", "the st", "ro om", "é", "tch en li"] {
            #expect(
                home.search.search(query, limit: 20)
                    == home.search.searchByScanning(query, limit: 20), "'\(query)'")
            #expect(
                home.search.searchBM25(query, limit: 20)
                    == home.search.searchBM25ByScanning(query, limit: 20), "BM25 '\(query)'")
        }
    }

    /// Queries of several words with few results wanted: the floor rises above what the
    /// longest word lists can add, so search leaves them out (`QueryWordLists`), and an
    /// entity ranked wrongly because of that differs from the scan.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func severalWordsWithFewResultsEqualAScan(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let home = try HomeLogbook()
        defer { home.close() }
        let words = ["living", "room", "speaker", "smart", "light", "kitchen", "lamp"]
        func phrase(_ count: Int) -> String {
            (0..<count).map { _ in words.randomElement(using: &random) ?? "" }.joined(
                separator: " ")
        }
        for index in 0..<400 {
            var fields: [(String, Value)] = [
                ("name", .string(phrase(Int.random(in: 1...4, using: &random))))
            ]
            if Bool.random(using: &random) {
                fields.append(
                    ("content.notes", .string(phrase(Int.random(in: 1...5, using: &random)))))
            }
            fields.append(("entity_type", .string(index % 3 == 0 ? "device" : "room")))
            try await home.logbook.insertOrUpdate("entity/e\(index)", fields: fields)
        }
        for round in 0..<80 {
            // Mostly a few words; every tenth query forty, past the floors search computes.
            let query = phrase(round % 10 == 9 ? 40 : Int.random(in: 2...4, using: &random))
            let limit = [1, 3, 10][round % 3]
            let types: Set<String>? = round % 4 == 0 ? ["device"] : nil
            #expect(
                home.search.search(query, types: types, limit: limit)
                    == home.search.searchByScanning(query, types: types, limit: limit),
                "seed \(seed) query '\(query)' limit \(limit)")
        }
    }

    /// A query of hundreds of words counts more of an entity's word lists than a byte
    /// holds: the entity naming the most of them must still come first.
    @Test func aQueryOfHundredsOfWordsRanksByAllOfThem() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        for index in 0..<20 {
            try await home.logbook.insertOrUpdate(
                "entity/f\(index)",
                fields: [("name", .string("lamp \(index)")), ("content.notes", .string("desk"))])
        }
        try await home.logbook.insertOrUpdate("entity/b", fields: [("name", .string("lamp desk"))])
        let query =
            Array(repeating: "lamp", count: 200).joined(separator: " ") + " "
            + Array(repeating: "desk", count: 100).joined(separator: " ")
        for limit in [1, 3] {
            let results = home.search.search(query, limit: limit)
            #expect(results.first?.id == "b")
            #expect(results == home.search.searchByScanning(query, limit: limit))
        }
    }

    /// Names that hold a query's words but seldom its phrase (words joined by hyphens,
    /// underscores or nothing), so results rank on their words and the similarity term:
    /// what search leaves unmarked, below the floor, must never have ranked.
    @Test(arguments: [11, 12, 13] as [UInt64])
    func wordsWithoutThePhraseRankAsTheScan(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let home = try HomeLogbook()
        defer { home.close() }
        let words = ["living", "room", "speaker", "smart", "lamp", "light"]
        func distinctWords(_ count: Int) -> [String] {
            Array(words.shuffled(using: &random).prefix(count))
        }
        for index in 0..<500 {
            var name = ""
            for (position, word) in distinctWords(Int.random(in: 1...3, using: &random))
                .enumerated()
            {
                if position > 0 { name += [" ", "-", "_", ""].randomElement(using: &random) ?? "" }
                name += word
            }
            var fields: [(String, Value)] = [("name", .string(name))]
            if index % 4 == 0 {
                fields.append(
                    ("content.notes", .string(distinctWords(2).joined(separator: "/"))))
            }
            try await home.logbook.insertOrUpdate("entity/w\(index)", fields: fields)
        }
        for round in 0..<90 {
            let query = distinctWords(Int.random(in: 2...3, using: &random)).joined(
                separator: " ")
            let limit = [1, 3, 5][round % 3]
            #expect(
                home.search.search(query, limit: limit)
                    == home.search.searchByScanning(query, limit: limit),
                "seed \(seed) query '\(query)' limit \(limit)")
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func theIndexedAnswerEqualsAScanOnRandomCorpora(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let home = try HomeLogbook()
        defer { home.close() }
        let corpus = Self.randomCorpus(&random, entities: 300)
        for (recordId, fields) in corpus {
            try await home.logbook.insertOrUpdate(recordId, fields: fields)
        }
        let syllables = [
            "ki", "tch", "en", "li", "ght", "ro", "om", "the", "rmo", "st", "at", " ", "é", "x",
        ]
        for round in 0..<60 {
            // Some edits between queries, so the index is exercised incrementally too.
            if round % 10 == 5 {
                try await home.logbook.insertOrUpdate(
                    "entity/e\(Int.random(in: 0..<300, using: &random))",
                    fields: [
                        ("name", .string(syllables.shuffled(using: &random).prefix(3).joined()))
                    ])
                try await home.logbook.deleteRecord(
                    "entity/e\(Int.random(in: 0..<300, using: &random))")
            }
            let query = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                syllables.randomElement(using: &random) ?? ""
            }.joined()
            // Query strings from names too: exact names and one-character typos of them.
            let named = corpus.randomElement(using: &random)?.1[1].1.stringValue ?? ""
            let typo = String(named.dropLast())
            for text in [query, named, typo] {
                let indexed = home.search.search(text, limit: 50)
                let scanned = home.search.searchByScanning(text, limit: 50)
                #expect(indexed == scanned, "seed \(seed) query '\(text)'")
                let types: Set<String>? = round % 3 == 0 ? ["room", "note"] : nil
                #expect(
                    home.search.searchBM25(text, types: types, limit: 20)
                        == home.search.searchBM25ByScanning(text, types: types, limit: 20),
                    "BM25, seed \(seed) query '\(text)'")
            }
        }
    }

    @Test func aViewReusedForASmallerLogForgetsTheLargerOne() async throws {
        let search = SearchIndex()
        let large = TemporaryDirectory()
        let small = TemporaryDirectory()
        defer {
            large.remove()
            small.remove()
        }
        var options = LogbookOptions()
        options.durability = .buffered
        options.views = [search]
        var random = SeededGenerator(seed: 9)
        let first = try Logbook.open(directory: large.path, nodeId: 1, options: options)
        for (recordId, fields) in Self.randomCorpus(&random, entities: 200) {
            try await first.insertOrUpdate(recordId, fields: fields)
        }
        #expect(!search.search("ki", limit: 50).isEmpty)
        _ = search.searchBM25("kitchen")
        try first.close()
        let second = try Logbook.open(directory: small.path, nodeId: 2, options: options)
        defer { try? second.close() }
        try await second.insertOrUpdate(
            "entity/only", fields: [("name", "kitchen"), ("content.note", "the kitchen")])
        #expect(
            search.search("kitchen", limit: 50) == search.searchByScanning("kitchen", limit: 50))
        #expect(search.search("ki", limit: 50).map(\.id) == ["only"])
        #expect(search.searchBM25("kitchen").map(\.id) == ["only"])
    }

    @Test func bm25RanksRareTermsAndShortDocumentsHigher() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.load(Self.corpus)
        let island = home.search.searchBM25("island")
        #expect(island.map(\.id) == ["k", "kl"])  // the shorter document first
        #expect(island[0].score > island[1].score)
        #expect(home.search.searchBM25("thermostat nest").first?.id == "t")
        #expect(home.search.searchBM25("zebra").isEmpty)
        #expect(home.search.searchBM25("kitchen", types: ["room"]).map(\.id) == ["k"])
    }

    @Test
    func theDemoHomesNoteWithTheWifiPasswordIsFound() async throws {
        let home = try HomeLogbook()
        defer { home.close() }
        try await home.logbook.importGoodies(
            GoodiesDocument(parsing: HomeLogbook.fixture("goodies_martinez_home.json")))
        let results = home.search.search("password")
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0.highlights["content"] != nil })
        // Rankings from The Goodies' rules run in Python on the same file: ids, scores, order.
        let expected: [(String, [(String, Double)])] = [
            (
                "wifi password",
                [
                    ("wifi_note", 2.0), ("tv", 0.5), ("thermostat", 0.5), ("fridge", 0.5),
                    ("oven", 0.5),
                    ("doorbell", 0.5), ("tv_setup", 0.5),
                ]
            ),
            ("tv", [("tv_setup", 5.0), ("tv", 3.0), ("movie_time", 2.0)]),
            (
                "living room",
                [
                    ("living_room", 7.0), ("living_room_lights", 3.0),
                    ("mitsubishi_thermostat", 3.0),
                    ("mitsubishi_user_note", 3.0), ("dining_room", 2.3181818181818183),
                    ("master_bedroom", 1.5),
                    ("good_morning", 1.0), ("movie_time", 1.0), ("ground_floor", 0.5),
                    ("upper_floor", 0.5),
                ]
            ),
            (
                "garage door",
                [
                    ("outdoor", 2.0), ("doorbell", 2.0), ("garage", 1.5),
                    ("kitchen_dining_door", 1.5),
                    ("fridge", 0.5), ("pvfy_blower", 0.5), ("mitsubishi_user_note", 0.5),
                ]
            ),
            ("Fridge", []),
        ]
        for (query, ranking) in expected {
            let found = home.search.search(query)
            #expect(found.map(\.id) == ranking.map(\.0), "\(query)")
            #expect(found.map(\.score) == ranking.map(\.1), "\(query)")
        }
        for query in ["thermostat", "tv", "living room", "wifi", "garage door", "mitsubishi", "x"] {
            #expect(
                home.search.search(query, limit: 100)
                    == home.search.searchByScanning(query, limit: 100))
        }
    }
}
