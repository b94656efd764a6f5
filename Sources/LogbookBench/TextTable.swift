import Logbook

/// Rows under a header as terminal text, columns padded to their widest cell: the first
/// column left-aligned, the rest right-aligned (they are mostly numbers); a row with another
/// number of cells is printed as it is, spanning the table. Cells are made `terminalSafe`.
package enum TextTable {
    package static func render(header: [String], rows: [[String]]) -> String {
        let rows = rows.map { $0.map { terminalSafe($0) } }  // cells hold ids and names from data
        var widths = header.map(\.count)
        for row in rows where row.count == header.count {
            for (column, cell) in row.enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                column == 0
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: max(0, widths[column] - cell.count)) + cell
            }.joined(separator: "  ")
        }
        var text = line(header) + "\n"
        for row in rows { text += (row.count == header.count ? line(row) : row.joined()) + "\n" }
        return text
    }
}
