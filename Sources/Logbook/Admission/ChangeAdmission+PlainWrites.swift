import LogbookCRDT
import LogbookStorage

// Nearly every local write names its record and columns in ASCII, short, with scalar
// values: admitted as given. Deciding that in one pass, with each string's UTF-8 view asked
// once and no field copied, costs about a third of the general checks (which make the NFC
// test, the size test and the value's walk separately, and build the NFC forms).
extension ChangeAdmission {
    /// `admitLocalWrite`'s answer when it is the write as given: every name ASCII (so in
    /// NFC) and within its size bound, every value a scalar within the value bounds. False
    /// says only that the general checks must decide.
    @inline(__always)
    static func isPlainLocalWrite(recordId: String, fields: [(String, Value)]) -> Bool {
        guard isShortASCII(recordId, sizeMax: ChangeLimits.recordIdSizeMax) else { return false }
        for index in fields.indices {
            guard isShortASCII(fields[index].0, sizeMax: ChangeLimits.columnNameSizeMax),
                isPlainScalar(fields[index].1)
            else { return false }
        }
        return true
    }

    /// A name the string itself knows to be ASCII, of at most `sizeMax` bytes. A string that
    /// does not know (bridged, or built from bytes unchecked) goes the general way.
    @inline(__always)
    private static func isShortASCII(_ text: String, sizeMax: Int) -> Bool {
        guard let byteCount = CanonicalText.knownASCIIByteCount(text) else { return false }
        return byteCount <= sizeMax
    }

    /// A value whose encoding is surely within `ChangeLimits`: a null, bool, integer (an
    /// `unsigned` one above Int64.max), finite double, or a string short enough that its length prefix cannot take it over.
    @inline(__always)
    private static func isPlainScalar(_ value: Value) -> Bool {
        switch value {
        case .null, .bool, .int: true
        case .double(let double): double.isFinite
        case .unsigned(let unsigned): unsigned > UInt64(Int64.max)
        case .string(let string):
            string.utf8.count <= ChangeLimits.valueSizeMax - 1 - Varint.sizeMax
        case .bytes, .array, .object: false
        }
    }
}
