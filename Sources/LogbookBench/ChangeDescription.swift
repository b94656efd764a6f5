import Foundation
import Logbook
import LogbookCRDT

/// A change as one readable line.
package func describe(_ change: Change<String, String, Value>) -> String {
    describe(
        recordId: change.recordId, column: change.colName, value: change.value,
        colVersion: change.colVersion, dbVersion: change.dbVersion, nodeId: change.nodeId)
}

/// A column (nil: the whole record) with its value (nil: deleted) and version, as one line:
/// how `put` prints what it wrote and `get` what the replica holds. Ids, names and values
/// are made `terminalSafe`: they may come from a peer.
package func describe(
    recordId: String, column: String?, value: Value?, colVersion: UInt64, dbVersion: UInt64,
    nodeId: NodeId
) -> String {
    let what: String
    switch (column.map { terminalSafe($0) }, value) {
    case (nil, _): what = "deleted record"
    case (let column?, nil): what = "deleted \(column)"
    case (let column?, let value?): what = "\(column) = \(terminalSafe(describe(value)))"
    }
    return
        "\(terminalSafe(recordId))  \(what)  (col v\(colVersion == .max ? "max" : String(colVersion)), db v\(dbVersion), node \(nodeId))"
}

/// A value as compact JSON.
package func describe(_ value: Value) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "\(value)" }
    return String(decoding: data, as: UTF8.self)
}
