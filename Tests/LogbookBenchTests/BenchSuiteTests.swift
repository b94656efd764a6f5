import Foundation
import LogbookBench
import LogbookCRDT
import LogbookTesting
import Testing

// The harness behind `logbook bench`, small: every suite must produce its figures, with the
// SQLite baseline reading back what it wrote, and the report must render them.
@Suite struct BenchSuiteTests {
    @Test func theSQLiteBaselineReadsBackEveryChangeItWrote() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let changes = StandardWorkload.changes(
            of: StandardWorkload.operations(records: 300, changes: 4000))
        let baseline = SQLiteBaseline(path: directory.path + "/baseline.sqlite")
        let written = try baseline.append(changes)
        #expect(written.bytes > 0)
        #expect(try baseline.replay().changes == changes.count)
        // A second append replaces the database rather than adding to it.
        _ = try baseline.append(Array(changes.prefix(10)))
        #expect(try baseline.replay().changes == 10)
    }

    @Test func theLocalWritesAloneMakeTheWorkloadsChanges() throws {
        // The reference figure's calls make what the workload's own replay makes: the same
        // changes, so its rate is comparable with the append figures'.
        let operations = StandardWorkload.operations(records: 300, changes: 4000)
        let expected = StandardWorkload.changes(of: operations, nodeId: 1)
        let oneCall = ReplicaState(nodeId: 1)
        var changes: [Change<String, String, Value>] = []
        let made = try operations.reduce(0) { $0 + (try $1.apply(to: oneCall, reusing: &changes)) }
        #expect(made == expected.count)
        let batched = ReplicaState(nodeId: 1)
        let outcome = batched.write(operations.map(\.localWrite))
        #expect(outcome.changes.count == expected.count)
        #expect(outcome.changes == expected)
        #expect(oneCall.getChangesSince(0) == batched.getChangesSince(0))
    }

    @Test(.timeLimit(.minutes(1)), arguments: [1, 5])
    func tasksSuspendedTogetherMakeRoundsAndAllEnd(tasks: Int) async {
        // Returning at all means every task was resumed for the last time; a rate of zero
        // would mean no round completed.
        let rounds = await measureTaskRoundTrips(tasks: tasks, seconds: 0.05)
        #expect(rounds.isFinite && rounds > 0, "\(rounds)")
    }

    @Test func theLogSuiteMeasuresLogbookAndBothBaselines() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var suite = BenchSuite(kind: .log)
        suite.records = 200
        suite.changes = 3000
        suite.runs = 1
        suite.writers = 4
        suite.syncedOperations = 20
        suite.directory = directory.path + "/bench"
        var steps: [String] = []
        let report = try await suite.run { steps.append($0) }
        let systems = Set(report.figures.map(\.system))
        #expect(systems.isSuperset(of: ["Logbook", "SQLite", "JSON"]), "\(systems)")
        #expect(report.figures.allSatisfy { $0.changesPerSecond.isFinite })
        #expect(report.ratios.contains { $0.baseline == "SQLite" && $0.ratio > 0 })
        #expect(steps.last?.hasPrefix("[####################]") == true, "\(steps)")
        // One progress step per counted step: the bar neither stops short nor stalls full.
        let counted = steps.compactMap { $0.split(separator: " ").dropFirst().first }.map(
            String.init)
        let total = counted.last?.split(separator: "/").last.flatMap { Int($0) } ?? 0
        #expect(total > 0 && counted == (1...max(1, total)).map { "\($0)/\(total)" }, "\(steps)")
        let tables = report.tables()
        for figure in report.figures { #expect(tables.contains(figure.name)) }
        let decoded = try JSONDecoder().decode(
            BenchReport.self, from: Data(try report.json().utf8))
        #expect(decoded.figures.count == report.figures.count)
        let page = report.html()
        #expect(page.contains("<svg"))
        // The page holds every figure, the ceilings (no changes/s) included, and group
        // commit against its bound.
        for figure in report.figures {
            #expect(page.contains("<td class=\"t\">\(figure.name)</td>"), "\(figure.name)")
        }
        let groupCommit = try #require(
            report.figures.first { $0.name.hasPrefix("append .groupCommit, 4 writers") })
        #expect((groupCommit.boundChangesPerSecond ?? 0) > 0)
        // Beside it, the runtime's part of a round: 4 tasks suspended and resumed together.
        let roundTrip = try #require(
            report.figures.first { $0.system == "ceiling" && $0.name.hasPrefix("4 tasks") })
        #expect(roundTrip.changesPerSecond > 0)
        #expect(groupCommit.note.contains("round trip of 4 tasks takes"), "\(groupCommit.note)")
        #expect(page.contains("Against the bound"))
        // Each buffered append stands beside its local writes alone, as a share of them.
        for (append, alone) in [
            ("append .buffered, 1 writer", "one call each"),
            ("append .buffered, 10k writes/call", "10k a call"),
        ] {
            let appended = try #require(report.figures.first { $0.name == append })
            let reference = try #require(
                report.figures.first {
                    $0.name.hasPrefix("reference: local writes") && $0.name.contains(alone)
                })
            #expect(reference.changesPerSecond > 0)
            #expect(appended.note.contains("of the local writes alone"), "\(appended.note)")
        }
        #expect(!FileManager.default.fileExists(atPath: suite.directory), "scratch left behind")
    }

    @Test func theMaintenanceSuiteComparesTheCompactedLogWithTheLiveState() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var suite = BenchSuite(kind: .maintenance)
        suite.records = 100
        suite.runs = 1
        suite.directory = directory.path + "/bench"
        let report = try await suite.run()
        #expect(report.figures.count >= 2, "\(report.figures.map(\.name))")
        #expect(report.workload.contains("100 records"))
        // The tied log: the same ties, settled in memory by default, read back without.
        let kept = try #require(
            report.figures.first { $0.name.hasPrefix("compaction with ties (") })
        let readBack = try #require(
            report.figures.first { $0.name.hasSuffix("every tie read back") })
        #expect(kept.note.contains(" 0 read back from the log"), "\(kept.note)")
        #expect(readBack.note.contains(": 0 settled in memory"), "\(readBack.note)")
        #expect(!kept.note.contains(" 0 ties"), "\(kept.note)")
    }

    @Test func theChatSuiteWritesMessagesAndOpensThemFromTheirSnapshot() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var suite = BenchSuite(kind: .chat)
        suite.records = 500
        suite.runs = 1
        suite.directory = directory.path + "/bench"
        let report = try await suite.run()
        #expect(report.workload.contains("500 messages") && report.workload.contains("debug build"))
        #expect(report.figures.map(\.kind) == ["chat write", "chat open"])
        let open = try #require(report.figures.last)
        #expect(open.note.contains("snapshot-"), "opened from no snapshot: \(open.note)")
        #expect(report.figures.allSatisfy { $0.changesPerSecond > 0 })
    }

    @Test func theChatWorkloadIsSeededAndHoldsAboutFiveHundredBytesOfTextAMessage() {
        func texts(_ writes: [[LocalWrite]]) -> [String] {
            writes.joined().compactMap { write -> String? in
                guard case .insertOrUpdate(let id, let fields) = write else { return nil }
                return fields.first { $0.0 == "text" }?.1.stringValue.map { id + " " + $0 }
            }
        }
        let writes = ChatWorkload(messages: 1_000).batches(of: 100)
        #expect(writes.count == 10)
        let first = texts(writes)
        #expect(first.count == 1_000)
        #expect((440...580).contains(first.reduce(0) { $0 + $1.utf8.count } / first.count))
        #expect(texts(ChatWorkload(messages: 1_000).batches(of: 100)) == first)
    }

    @Test func theShippingSuiteCatchesUpFromStateAndHistoryAndFollows() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var suite = BenchSuite(kind: .shipping)
        suite.changes = 3000
        suite.runs = 1
        suite.rate = 5_000  // 64 writers of four-field writes: some each in 0.5 s
        suite.seconds = 0.5
        suite.directory = directory.path + "/bench"
        let report = try await suite.run()
        let names = report.figures.map(\.name)
        let fromState = try #require(
            report.figures.first {
                $0.name.hasPrefix("catch-up of a new node from the peer's state")
            },
            "\(names)")
        #expect(fromState.note.contains("3000 changes"), "\(fromState.note)")
        #expect(names.contains { $0.hasPrefix("catch-up from the peer's history") }, "\(names)")
        #expect(names.contains { $0.contains("lag") }, "\(names)")
        for figure in report.figures {
            #expect(
                figure.changesPerSecond.isFinite && figure.changesPerSecond > 0,
                "\(figure.name): \(figure.changesPerSecond), \(figure.note)")
        }
    }
}

extension BenchSuiteTests {
    /// The hub suite, small, against the test PostgreSQL: every figure is measured and the
    /// ceiling is reported beside the merges.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"] != nil
                || ProcessInfo.processInfo.environment["CI"] == "true"))
    func theHubSuiteMeasuresIngestTheCeilingAndPull() async throws {
        let url: String = try #require(
            ProcessInfo.processInfo.environment["LOGBOOK_TEST_POSTGRES_URL"])
        var suite = BenchSuite(kind: .hub, postgres: url)
        suite.changes = 6400
        suite.pushChanges = 100
        suite.runs = 1
        (suite.followers, suite.hubWriters, suite.hubFollowSeconds) = (20, 5, 1)
        let report = try await suite.run()
        let names = report.figures.map(\.name)
        let lag = try #require(report.figures.first { $0.name.hasPrefix("lag") }, "\(names)")
        #expect(lag.latency != nil && lag.note.contains(", 0 pairs not covered"), "\(lag.note)")
        #expect(names.contains("5 nodes writing at once converge"), "\(names)")
        #expect(names.filter { $0.hasPrefix("ingest, new cells") }.count == 3, "\(names)")
        #expect(report.figures.contains { $0.system == "ceiling" })
        #expect(names.contains { $0.hasPrefix("pull") })
        #expect(names.contains { $0.hasPrefix("state by one reader") })
        #expect(
            report.figures.allSatisfy { $0.changesPerSecond > 0 && $0.changesPerSecond.isFinite })
    }
}
