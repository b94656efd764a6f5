import LogbookBench
import Testing

// The report's renderings: the HTML page holds every figure the terminal shows, with
// whatever text it carries escaped.
@Suite struct BenchReportTests {
    private let report = BenchReport(
        machine: "2 cores", workload: "<script>alert(1)</script>",
        figures: [
            BenchFigure(
                system: "Logbook", name: "append .groupCommit, 64 writers", kind: nil,
                changesPerSecond: 250_000, fsyncsPerSecond: 4_800,
                boundChangesPerSecond: 500_000, note: "bound 500 k & \"more\""),
            BenchFigure(
                system: "ceiling", name: "fdatasync of <4 KiB> writes", changesPerSecond: 0,
                fsyncsPerSecond: 7_531),
        ])

    @Test func thePageListsEveryFigureWithItsColumnsBoundAndNote() {
        let page = report.html()
        // The ceiling has no changes/s, so it is in no chart, but it is in the table.
        #expect(page.contains("<td class=\"t\">fdatasync of &lt;4 KiB&gt; writes</td>"), "\(page)")
        #expect(page.contains("<td>7531</td>"))
        #expect(page.contains("<td>4800</td>"))
        #expect(page.contains("<td>50%</td>"), "the share of the bound reached")
        #expect(page.contains("bound 500 k &amp; &quot;more&quot;"))
    }

    @Test func theTerminalShowsTheBoundToo() {
        let text = report.tables()
        #expect(text.contains("against the bound"))
        #expect(text.contains("50%"))
    }

    @Test func textFromTheCommandLineCannotAddMarkup() {
        let page = report.html()
        #expect(!page.contains("<script>"))
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test func aFigureWithoutABoundHasNoBoundRow() {
        var plain = report
        plain.figures[0].boundChangesPerSecond = nil
        #expect(!plain.html().contains("Against the bound"))
        #expect(!plain.tables().contains("against the bound"))
    }
}
