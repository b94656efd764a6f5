/// One page of a query's answer: its models in the query's order, and where the next page
/// starts.
public struct QueryPage<Model: LogbookModel>: Sendable {
    /// The models found, in the query's order.
    public var models: [Model]
    /// Where the next page begins (pass it as `after:`); nil when this page is the last.
    public var next: IndexCursor?
}

/// A place in an index's order: the key of the last model of a page. A cursor from an older
/// state still works: the next page starts after that key, wherever the models are now.
public struct IndexCursor: Sendable, Hashable, Codable {
    /// The key's bytes (`IndexKeyEncoding`); any bytes are a valid place.
    public var key: [UInt8]

    /// The cursor at `key`.
    public init(key: [UInt8]) { self.key = key }
}

/// The order a query reads an index in.
public enum IndexOrder: Sendable {
    /// Smallest key first.
    case ascending
    /// Largest key first.
    case descending
}
