import LogbookStorage

extension ChangeRecordCodec {
    /// The engine's epoch marks (`EpochMarking`): a mark record
    /// (`ChangeRecord.snapshotMark`) whose nonce is the epoch's id, at the version of the
    /// epoch's first record. Replay reads it as the clock at that version (which the
    /// record after it reaches anyway); compaction and GC keep it, as every mark.
    static let epochMarking = EpochMarking(
        record: { id, version in
            var bytes: [UInt8] = []
            encode(.snapshotMark(time: version, nonce: id), into: &bytes)
            return bytes
        },
        epochId: { record in snapshotMark(record)?.nonce })
}
