/// What one record contributes to a state digest: the hash of a live record with its
/// columns, or of a tombstoned id. The state keeps the sum of these over its entries; the
/// module that defines the digest (it owns the byte encoding of values) supplies them.
package protocol EntryDigesting {
    mutating func live(_ recordId: String, _ record: Record<String, Value>) -> DigestSum
    mutating func tombstoned(_ recordId: String) -> DigestSum
}
