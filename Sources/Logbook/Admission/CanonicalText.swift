import Foundation

/// Record ids and column names in Unicode NFC, so that two of them are equal exactly when
/// their bytes are (docs/decisions/0006-record-ids-in-nfc.md).
///
/// Swift compares strings by canonical equivalence: "é" (U+00E9) and "e" + U+0301 are one
/// dictionary key in a replica, while crdt-lite, the hub's PostgreSQL and the state digest
/// compare bytes. Two spellings of one id would be one record on a node and two everywhere
/// else. NFC is the canonical form, so between NFC strings canonical equivalence and byte
/// equality agree, and a replica whose ids are all NFC keys its records as every peer does.
enum CanonicalText {
    /// Whether `text` is in NFC. ASCII is; otherwise the standard's quick check, and the full
    /// check only for what it cannot decide.
    static func isNFC(_ text: String) -> Bool {
        if isASCII(text) { return true }
        if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
            var quick = text.utf8Span
            if quick.checkForNFC(quickCheck: true) { return true }
            var full = text.utf8Span
            return full.checkForNFC(quickCheck: false)
        }
        return text.utf8.elementsEqual(text.precomposedStringWithCanonicalMapping.utf8)
    }

    /// Whether every byte of `text` is ASCII: what the string already knows of itself when it
    /// can say (a flag for small and native strings, read in O(1)), else the decoder's
    /// word-at-a-time test, since every id and column of every write and merged change
    /// passes here.
    private static func isASCII(_ text: String) -> Bool {
        if knownASCIIByteCount(text) != nil { return true }
        let contiguous = text.utf8.withContiguousStorageIfAvailable {
            ValueCodec.isASCII(UnsafeRawBufferPointer($0))
        }
        return contiguous ?? text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// `text`'s byte count when the string itself knows it is ASCII (its flag, read in O(1));
    /// nil when it does not know, which says nothing either way.
    @inline(__always)
    static func knownASCIIByteCount(_ text: String) -> Int? {
        if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
            let utf8 = text.utf8Span
            if utf8.isKnownASCII { return utf8.count }
        }
        return nil
    }

    /// `text` in NFC: itself when it already is (no copy), else its canonical composition.
    static func nfc(_ text: String) -> String {
        isNFC(text) ? text : text.precomposedStringWithCanonicalMapping
    }

    /// Why `text`, a record id or column name (`what`), must be refused, or nil. Both forms
    /// are shown with non-ASCII escaped: printed plainly they look the same.
    static func reasonToRefuse(_ text: String, what: String) -> String? {
        guard !isNFC(text) else { return nil }
        return "the \(what) is not in Unicode NFC: it is \(escaped(text)), its NFC form "
            + "\(escaped(nfc(text))); two spellings of one \(what) would be one on a node and "
            + "two at a hub or a crdt-lite peer, so send the NFC form (Foundation's "
            + "precomposedStringWithCanonicalMapping)"
    }

    /// Quoted, non-ASCII escaped (`\u{301}`), cut to 64 scalars.
    private static func escaped(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let shown = scalars.prefix(64).map { $0.escaped(asASCII: true) }.joined()
        return "\"" + shown + (scalars.count > 64 ? "…" : "") + "\""
    }
}
