import Foundation
import Testing

@testable import Logbook
@testable import LogbookShipping

// The status page's lag chart: a line per acknowledging peer, scaled to the highest lag and
// the window of samples, names escaped, the history bounded.
@Suite struct LagChartTests {
    @Test func eachAcknowledgingPeerGetsALineOverTheWindow() throws {
        let history = PeerLagHistory(capacity: 3)
        let start = Date(timeIntervalSince1970: 1_000)
        var ledger: [String: PeerLedger.Entry] = [:]
        ledger["node-2"] = PeerLedger.Entry(acknowledged: 90, nodeId: 2, updated: 0)
        ledger["<b>&\"odd"] = PeerLedger.Entry(acknowledged: 100, updated: 0)
        ledger["silent"] = PeerLedger.Entry(nodeId: 4, updated: 0)
        ledger["gone"] = PeerLedger.Entry(acknowledged: 1, removed: true, updated: 0)
        for second in 0..<4 {
            history.record(ledger: ledger, logEnd: 100, at: start + Double(second * 10))
        }
        let samples = history.recorded
        #expect(samples.count == 3, "the oldest sample goes when the history is full")
        #expect(samples.first?.time == start + 10)
        #expect(samples.first?.lags == ["node-2": 10, "<b>&\"odd": 0])

        let svg = LagChart.svg(samples)
        #expect(svg.components(separatedBy: "<polyline").count == 3, "one line per peer")
        #expect(!svg.contains("silent") && !svg.contains("gone"))
        #expect(svg.contains("&lt;b&gt;&amp;&quot;odd") && !svg.contains("<b>"))
        // node-2's lag is the highest (10): its line runs along the top, from the left edge
        // of the plot (the window's first sample) to its right edge (now); the other peer
        // has everything, along the bottom. Peers take colours in name order.
        #expect(
            svg.contains(
                ##"data-peer="node-2" fill="none" stroke="#d62728" stroke-width="2" points="64.0,8.0 348.0,8.0 632.0,8.0""##
            ), "\(svg)")
        #expect(
            svg.contains(
                ##"stroke="#1f77b4" stroke-width="2" points="64.0,192.0 348.0,192.0 632.0,192.0""##)
        )
        #expect(svg.contains(">20 s ago<") && svg.contains(">10<"))
        #expect(LagChart.svg([]).contains("no-lag"))
    }
}
