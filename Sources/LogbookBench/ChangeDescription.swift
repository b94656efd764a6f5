import Foundation
import LogbookCRDT

/// A change as one readable line.
package func describe(_ change: Change<String, String, Value>) -> String {
    let what: String
    switch (change.colName, change.value) {
    case (nil, _): what = "deleted record"
    case (let column?, nil): what = "deleted \(column)"
    case (let column?, let value?): what = "\(column) = \(describe(value))"
    }
    return
        "\(change.recordId)  \(what)  (col v\(change.colVersion == .max ? "max" : String(change.colVersion)), db v\(change.dbVersion), node \(change.nodeId))"
}

/// A value as compact JSON.
package func describe(_ value: Value) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return "\(value)" }
    return String(decoding: data, as: UTF8.self)
}
