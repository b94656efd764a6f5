/// The rule for a hub stream's name, shared by the hub and the nodes that address it: 1–128
/// letters, digits, `.`, `_` and `-`, since names appear in URLs, logs and command lines.
public enum HubStreamName {
    /// True when `name` follows the rule.
    public static func isValid(_ name: String) -> Bool {
        let allowed = name.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
        }
        return allowed && (1...128).contains(name.utf8.count)
    }

    /// The rule, said for an error message.
    public static let rule = "1–128 letters, digits, '.', '_' or '-'"
}
