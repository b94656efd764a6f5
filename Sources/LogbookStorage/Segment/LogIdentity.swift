/// The identity of one log: 128 random bits drawn when the log is created, written in its
/// manifest (`log <32 hex digits>`) and, by the engine, in `logbook.json`, the snapshots and
/// the peer ledger. A file that names another identity belongs to another log (a copy of
/// another node's directory, a backup of a different one) and is refused or set aside by
/// name, never read as this log's.
public struct LogIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The first 64 bits.
    public var high: UInt64
    /// The last 64 bits.
    public var low: UInt64

    /// The identity of these bits.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A new identity from the system's random source.
    public static func random() -> LogIdentity {
        LogIdentity(high: .random(in: .min ... .max), low: .random(in: .min ... .max))
    }

    /// Parses 32 lowercase or uppercase hexadecimal digits; nil for anything else.
    public init?(hex: some StringProtocol) {
        guard hex.utf8.count == 32, hex.utf8.allSatisfy(\.isHexDigit),
            let high = UInt64(hex.prefix(16), radix: 16),
            let low = UInt64(hex.dropFirst(16), radix: 16)
        else { return nil }
        self.init(high: high, low: low)
    }

    /// 32 lowercase hexadecimal digits.
    public var hex: String { zeroPaddedHex(high) + zeroPaddedHex(low) }

    /// The hexadecimal digits.
    public var description: String { hex }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}

/// `value` in lowercase hexadecimal, zero-padded to its type's full width (16 digits for a
/// UInt64, 8 for a UInt32), so names and messages line up and parse back by length.
func zeroPaddedHex<Number: FixedWidthInteger & UnsignedInteger>(_ value: Number) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: Number.bitWidth / 4 - digits.count) + digits
}
