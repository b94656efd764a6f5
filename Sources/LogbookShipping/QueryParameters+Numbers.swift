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

    /// The query parameter `name` as a positive integer; nil when absent. Refused (400,
    /// naming the parameter) when present and not one: a page size or byte bound a client
    /// stated is never silently replaced by the default.
    package func positive(_ name: String) throws -> Int? {
        guard let text = get(name) else { return nil }
        guard let value = Int(text), value > 0 else {
            throw HTTPError(.badRequest, message: "\(name) must be a positive integer")
        }
        return value
    }

    /// The query parameter `name` as a number of milliseconds (0 or more); nil when absent,
    /// refused (400) when present and not one.
    package func milliseconds(_ name: String) throws -> Int? {
        guard let text = get(name) else { return nil }
        guard let value = Int(text), value >= 0 else {
            throw HTTPError(.badRequest, message: "\(name) must be a number of milliseconds")
        }
        return value
    }
}
