import Logbook
import LogbookBench
import LogbookCRDT
import Testing

// Text output for people never carries a control character or a direction override taken
// from data: a record id, column or value merged from a peer cannot drive the operator's
// terminal. Ordinary Unicode (accents, CJK, emoji sequences) prints unchanged.
@Suite struct TerminalSafeTextTests {
    private static let hostile = [
        "\u{1B}[2J\u{1B}]0;owned\u{07}", "a\u{9B}31m", "\u{7F}", "x\u{202E}gnp.exe", "\u{2066}y",
        "line\nbreak\r", "\u{0}",
    ]

    private func carriesNothingUnsafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E
                || $0.value == 0x2066
        }
    }

    @Test func controlsAndOverridesAreEscapedVisibly() {
        #expect(terminalSafe("\u{1B}[31mred") == "\\u{1B}[31mred")
        #expect(terminalSafe("x\u{202E}gnp.exe") == "x\\u{202E}gnp.exe")
        #expect(terminalSafe("\u{9B}") == "\\u{9B}")
        for text in Self.hostile { #expect(carriesNothingUnsafe(terminalSafe(text)), "\(text)") }
    }

    @Test func ordinaryTextIsLeftAlone() {
        for text in ["entity/lamp", "Café crème", "東京の部屋", "👨‍👩‍👧 family", "flag 🏳️‍🌈", ""] {
            #expect(terminalSafe(text) == text)
        }
    }

    @Test func changeLinesRecordLinesAndTablesAreSafe() {
        for text in Self.hostile {
            let change = Change<String, String, Value>(
                recordId: "entity/" + text, colName: "name" + text, value: .string(text),
                colVersion: 1, dbVersion: 2, nodeId: 3, localDbVersion: 2)
            let line = describe(change)
            #expect(carriesNothingUnsafe(line), "\(line)")
            #expect(line.hasSuffix("(col v1, db v2, node 3)"))
            let table = TextTable.render(header: ["id", "name"], rows: [[text, "n" + text]])
            let rows = table.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(rows.count == 3, "a cell's newline must not start a row: \(table)")
            #expect(carriesNothingUnsafe(rows.joined()), "\(table)")
            #expect(rows[0].count == rows[1].count, "columns line up after escaping")
        }
    }
}
