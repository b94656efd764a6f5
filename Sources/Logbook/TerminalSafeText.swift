/// Text that came from data — record ids, column names, values, names a peer, a dataset or
/// a directory chose, a peer's error answer — made safe to print or log for a person:
/// control characters and the bidirectional overrides are written as escapes (`\u{1B}`).
/// Printed raw, an escape sequence in a record id merged from a peer could recolor, retitle
/// or rewrite what the operator's terminal shows, a newline in a peer's answer could forge
/// a log line, and a bidi override could reorder one. Everything else, accents and emoji
/// included, passes unchanged; JSON output is JSON-escaped instead.
package func terminalSafe(_ text: some StringProtocol) -> String {
    let text = String(text)
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }  // the usual case
    var safe = ""
    safe.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
        if isUnsafeOnATerminal(scalar) {
            safe += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        } else {
            safe.unicodeScalars.append(scalar)
        }
    }
    return safe
}

/// C0 and C1 controls and DEL (general category Cc), and the scalars that override or
/// isolate text direction (the "Trojan Source" set). Joiners and variation selectors, which
/// emoji need, are left alone.
private func isUnsafeOnATerminal(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
}
