/// Where a JSON string's bytes lie (between its quotes) and what they hold.
struct StringSpan {
    let bytes: Range<Int>
    /// It holds a backslash: its bytes are not its text.
    let hasEscapes: Bool
    /// It holds a byte over 0x7F: its UTF-8 must be validated.
    let hasNonASCII: Bool
}

extension ChangeJSONFastReader {
    // MARK: Strings

    /// The string at `position` (after any whitespace), its escapes resolved; nil for invalid
    /// UTF-8, a raw control character, a bad escape or a lone surrogate.
    mutating func string() -> String? {
        guard let span = stringSpan() else { return nil }
        return string(span)
    }

    /// The text of a string already scanned.
    func string(_ span: StringSpan) -> String? {
        let text = slice(span.bytes)
        if span.hasEscapes { return Self.unescaped(text, validating: span.hasNonASCII) }
        // ASCII needs no validation.
        if !span.hasNonASCII { return String(asciiBytes: UnsafeRawBufferPointer(text)) }
        return String(validating: text, as: UTF8.self)
    }

    /// Scans the string at `position` (after any whitespace) without building it; nil when
    /// there is no string there, it is not closed or it holds a raw control character.
    mutating func stringSpan() -> StringSpan? {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        position += 1
        let start = position
        var hasEscapes = false
        var highBits: UInt8 = 0
        while true {
            skipPlainWords()
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return StringSpan(
                    bytes: start..<(position - 1), hasEscapes: hasEscapes,
                    hasNonASCII: highBits & 0x80 != 0)
            }
            guard byte >= 0x20 else { return nil }
            highBits |= byte
            if byte == UInt8(ascii: "\\") {
                // The escaped byte may be a quote: step over it; `unescaped` checks it.
                hasEscapes = true
                position += 1
            }
            position += 1
        }
    }

    /// Steps over string text that needs no look, 8 bytes at a time, to the next quote,
    /// backslash, control character or byte over 0x7F (or to the last 7 bytes).
    private mutating func skipPlainWords() {
        guard let base = bytes.baseAddress else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        while bytes.count - position >= 8 {
            let word = UInt64(
                littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
            // A byte is zero in `x ^ c` exactly where it equals c; `(v - 1) & ~v` sets a zero
            // byte's high bit. Bytes under 0x20 borrow in `word - 0x20…`; bytes over 0x7F
            // have it already. A borrow can flag a byte above a hit, never one below it, so
            // the lowest flag is the first byte to look at.
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let special =
                (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes)
                    | ((word &- ones &* 0x20) & ~word) | word) & (ones &* 0x80)
            guard special == 0 else {
                position += special.trailingZeroBitCount >> 3
                return
            }
            position += 8
        }
    }

    /// The text of a string's bytes holding escapes; nil for a bad escape, a lone surrogate
    /// or (when `validating`: the raw bytes are not all ASCII) invalid UTF-8. What escapes
    /// add is always valid.
    private static func unescaped(_ text: UnsafeBufferPointer<UInt8>, validating: Bool)
        -> String?
    {
        // Every escape is longer than what it stands for, so the text fits in as many bytes
        // as its source: it is written straight into the string's (or array's) storage.
        var failed = false
        guard validating else {
            let string = String(unsafeUninitializedCapacity: text.count) { output in
                guard let count = resolveEscapes(text, into: output) else {
                    failed = true
                    return 0
                }
                return count
            }
            return failed ? nil : string
        }
        let utf8 = [UInt8](unsafeUninitializedCapacity: text.count) { output, count in
            guard let written = resolveEscapes(text, into: output) else {
                failed = true
                count = 0
                return
            }
            count = written
        }
        return failed ? nil : String(validating: utf8, as: UTF8.self)
    }

    /// Writes `text` with its escapes resolved into `output` (as long as `text` at least);
    /// the bytes written, or nil for a bad escape or a lone surrogate.
    private static func resolveEscapes(
        _ text: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int? {
        var index = 0
        var count = 0
        func put(_ byte: UInt8) {
            output[count] = byte
            count += 1
        }
        while index < text.count {
            let byte = text[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                put(byte)
                continue
            }
            guard index < text.count else { return nil }
            let escape = text[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): put(escape)
            case UInt8(ascii: "b"): put(0x08)
            case UInt8(ascii: "f"): put(0x0C)
            case UInt8(ascii: "n"): put(0x0A)
            case UInt8(ascii: "r"): put(0x0D)
            case UInt8(ascii: "t"): put(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = unicodeEscape(text, at: &index) else { return nil }
                UTF8.encode(scalar, into: put)
            default: return nil
            }
        }
        return count
    }

    /// The scalar of `\uXXXX` (`index` just after its `\u`), joining a surrogate pair; nil
    /// for a lone surrogate or bad hex.
    private static func unicodeEscape(_ text: UnsafeBufferPointer<UInt8>, at index: inout Int)
        -> Unicode.Scalar?
    {
        guard let high = hex4(text, at: &index) else { return nil }
        guard (0xD800...0xDBFF).contains(high) else {
            return (0xDC00...0xDFFF).contains(high) ? nil : Unicode.Scalar(high)
        }
        guard index + 1 < text.count, text[index] == UInt8(ascii: "\\"),
            text[index + 1] == UInt8(ascii: "u")
        else { return nil }
        index += 2
        guard let low = hex4(text, at: &index), (0xDC00...0xDFFF).contains(low) else {
            return nil
        }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private static func hex4(_ text: UnsafeBufferPointer<UInt8>, at index: inout Int) -> UInt32? {
        guard index + 4 <= text.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Character(Unicode.Scalar(text[index])).hexDigitValue else {
                return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    // MARK: Numbers

    /// A JSON number as its kind, read the way serde_json (crdt-lite's Rust side) reads it,
    /// so each kind a client sends comes back as that kind:
    /// - written with a fraction or an exponent (`1.0`, `1e2`, `-0.0`): a double, even when
    ///   it is a whole number;
    /// - an integer that fits Int64: `.int`; from 2^63 to 2^64 − 1: `.unsigned`;
    /// - `-0`, and an integer beyond those ranges: a double, the nearest one.
    /// Nil for text that is not a JSON number, and for a number beyond a double's range
    /// (`1e400`), which no client can have sent and which would otherwise become infinity.
    mutating func number() -> Value? {
        let start = position
        guard let (isInteger, end) = numberEnd() else { return nil }
        position = end
        if isInteger {
            let negative = bytes[start] == UInt8(ascii: "-")
            if let magnitude = Self.digitsValue(slice((negative ? start + 1 : start)..<end)) {
                if !negative { return Value(integer: magnitude) }
                // Int64.min's magnitude is one past Int64.max; `-0` is serde_json's -0.0.
                if magnitude != 0, magnitude <= UInt64(Int64.max) + 1 {
                    return .int(Int64(truncatingIfNeeded: 0 &- magnitude))
                }
            }
        }
        let text = String(decoding: slice(start..<end), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            refusal = "the number \(text.prefix(40)) is beyond a 64-bit float's range"
            return nil
        }
        return .double(double)
    }

    /// An unsigned integer written as digits only; a sign, a fraction, an exponent or a
    /// leading zero goes to `JSONDecoder`.
    mutating func unsigned() -> UInt64? {
        skipWhitespace()
        let start = position
        var value: UInt64 = 0
        while position < bytes.count {
            let digit = bytes[position] &- 0x30
            guard digit < 10 else { break }
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflowed, !carried else { return nil }
            value = sum
            position += 1
        }
        let count = position - start
        guard count > 0, count == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        if position < bytes.count,
            bytes[position] == UInt8(ascii: ".") || bytes[position] | 0x20 == UInt8(ascii: "e")
        {
            return nil
        }
        return value
    }

    /// The value of a run of decimal digits, nil when it overflows UInt64.
    private static func digitsValue(_ digits: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(UInt64(digit &- 0x30))
            guard !overflowed, !carried else { return nil }
            value = sum
        }
        return value
    }

    /// Where the JSON number at `position` ends, and whether it is written as an integer;
    /// nil when it is not a JSON number.
    private func numberEnd() -> (isInteger: Bool, end: Int)? {
        var index = position
        func digits() -> Int {
            let first = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return nil
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            guard digits() > 0 else { return nil }
            isInteger = false
        }
        return (isInteger, index)
    }
}
