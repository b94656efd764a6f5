/// The fields of one change as they are read, and which form its keys are in.
struct ChangeFields {
    var form: ChangeJSONFormat?
    /// The fields read so far, one bit each.
    var seen: UInt16 = 0
    var recordId: String?
    var colName: String?
    var value: Value?
    var colVersion: UInt64?
    var dbVersion: UInt64?
    var nodeId: UInt64?
    var localDbVersion: UInt64?
    var flags: UInt64?
    /// `"value": null` was read: no value in the Rust form, refused in the Swift form.
    var hasBareNullValue = false

    /// Notes a key; false for a second one of a field or a key of the other form.
    mutating func take(_ field: ChangeField, in keyForm: ChangeJSONFormat) -> Bool {
        if !field.isSpelledAlike {
            if let form, form != keyForm { return false }
            form = keyForm
        }
        let bit: UInt16 = 1 << field.ordinal
        guard seen & bit == 0 else { return false }
        seen |= bit
        return true
    }

    mutating func set(_ field: ChangeField, _ number: UInt64) {
        switch field {
        case .colVersion: colVersion = number
        case .dbVersion: dbVersion = number
        case .nodeId: nodeId = number
        case .localDbVersion: localDbVersion = number
        default: flags = number
        }
    }

    /// The change the fields make, moved out of them (`take()`: no copy of their strings,
    /// no release of the fields' own).
    mutating func takeChange() -> Change<String, String, Value>? {
        guard form != nil, recordId != nil, let colVersion, let dbVersion, let nodeId,
            let localDbVersion, let recordId = recordId.take()
        else { return nil }
        var narrowFlags: UInt32 = 0
        if let flags {
            guard let narrow = UInt32(exactly: flags) else { return nil }
            narrowFlags = narrow
        }
        return Change(
            recordId: recordId, colName: colName.take(), value: value.take(),
            colVersion: colVersion, dbVersion: dbVersion, nodeId: nodeId,
            localDbVersion: localDbVersion, flags: narrowFlags)
    }
}

extension ChangeField {
    /// The field's place in `ChangeFields.seen`.
    var ordinal: UInt16 { UInt16(rawValue) }
}
