import Hummingbird
import HummingbirdCore

extension FlatDictionary<Substring, Substring> {
    /// The query parameter `name` as an unsigned integer; nil when absent. A value that is
    /// not one is refused (400, naming the parameter) rather than read as absent, so a
    /// client never has a position it stated silently ignored.
    package func unsigned(_ name: String) throws -> UInt64? {
        guard let text = get(name) else { return nil }
        guard let value = UInt64(text) else {
            throw HTTPError(.badRequest, message: "\(name) must be an unsigned integer")
        }
        return value
    }
}
