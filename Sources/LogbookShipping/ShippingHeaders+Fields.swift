import HTTPTypes

extension ShippingHeaders {
    /// The header `name` as an HTTP field name, for the servers that set these headers (a
    /// node's and the hub's).
    package static func field(_ name: String) -> HTTPField.Name {
        HTTPField.Name(name) ?? .contentType  // the names are constants known to be valid
    }
}
