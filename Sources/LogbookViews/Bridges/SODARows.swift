/// Rows of a Seattle SODA export: a JSON array of objects whose values are strings (the
/// API sends every field as text). Non-string values are dropped from a row, as before;
/// anything else that is not such an array is refused with where and what was expected.
public enum SODARows {
    /// Parses a SODA JSON document into rows of string fields. Throws with the byte offset
    /// for malformed JSON and the row index for a row that is not an object.
    public static func parse(_ bytes: [UInt8]) throws(GoodiesDocument.FormatError)
        -> [[String: String]]
    {
        let root: OrderedJSON
        do { root = try OrderedJSON.parse(bytes) } catch {
            throw GoodiesDocument.FormatError(
                location: "byte \(error.offset)", expected: error.expected)
        }
        guard case .array(let items) = root else {
            throw GoodiesDocument.FormatError(
                location: "document", expected: "a JSON array of row objects")
        }
        var rows: [[String: String]] = []
        rows.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object(let members) = item else {
                throw GoodiesDocument.FormatError(
                    location: "row \(index)", expected: "an object of string fields")
            }
            var row: [String: String] = [:]
            for (key, value) in members {
                if let text = value.stringValue { row[key] = text }
            }
            rows.append(row)
        }
        return rows
    }
}
