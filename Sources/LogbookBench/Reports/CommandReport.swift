import Foundation

/// What a command prints when it is done: lines for a person, or with `--json` one JSON
/// document. Every document is one object with `command` (the command's name) and
/// `directory` first among its keys, then the command's own; docs/cli.md lists them.
package protocol CommandReport: Encodable {
    /// The lines printed without `--json`.
    var text: String { get }
}

extension CommandReport {
    /// The report as one JSON document: keys sorted, two-space indents, numbers as numbers
    /// (a ratio that is not finite, which no report should hold, is written as a string
    /// rather than refused).
    package var json: String {
        get throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        }
    }
}
