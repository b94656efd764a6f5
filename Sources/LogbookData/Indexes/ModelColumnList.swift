import Logbook

/// The columns a model view keeps (an index's key columns, a search's searched ones):
/// where each sits in the list, and the list as a checkpoint states and checks it. Shared
/// by the views of models in this module and in LogbookViews.
package struct ModelColumnList: Sendable {
    /// The columns, in order.
    package let names: [String]
    /// Each column's first position in `names`.
    package let positions: [String: Int]

    package init(_ names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (position, column) in names.enumerated() where positions[column] == nil {
            positions[column] = position
        }
        self.positions = positions
    }

    /// Writes the list, so that a restore can tell a state taken on other columns.
    package func write(to writer: inout CheckpointWriter) {
        writer.write(UInt64(names.count))
        for column in names { writer.write(column) }
    }

    /// Reads the list a checkpoint states and refuses one that is not this one; `role`
    /// names the columns in the refusal ("key", "searched").
    package func readAndCheck(from reader: inout CheckpointReader, role: String)
        throws(CheckpointReader.Malformed)
    {
        var stored: [String] = []
        for _ in 0..<(try reader.readCount()) { stored.append(try reader.readString()) }
        guard stored == names else {
            throw reader.malformed(expected: "the \(role) columns \(names), found \(stored)")
        }
    }
}
