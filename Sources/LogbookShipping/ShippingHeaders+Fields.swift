import HTTPTypes

/// The shipping headers as HTTP field names, for the servers that set them (a node's and
/// the hub's): `headers[.logbookNextOffset] = …`.
extension HTTPField.Name {
    package static let logbookNodeId = field(ShippingHeaders.nodeId)
    package static let logbookDurableOffset = field(ShippingHeaders.durableOffset)
    package static let logbookStartOffset = field(ShippingHeaders.startOffset)
    package static let logbookNextOffset = field(ShippingHeaders.nextOffset)
    package static let logbookBatchCount = field(ShippingHeaders.batchCount)
    package static let logbookSnapshotAfter = field(ShippingHeaders.snapshotAfter)
    package static let logbookNextSince = field(ShippingHeaders.nextSince)
    package static let logbookEpoch = field(ShippingHeaders.epoch)
    package static let logbookChangeFormat = field(ShippingHeaders.changeFormat)
    package static let logbookClock = field(ShippingHeaders.clock)
    package static let logbookSinceReset = field(ShippingHeaders.sinceReset)

    private static func field(_ name: String) -> HTTPField.Name {
        HTTPField.Name(name) ?? .contentType  // the names are constants known to be valid
    }
}
