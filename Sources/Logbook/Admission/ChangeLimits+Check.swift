import LogbookCRDT

extension ChangeLimits {
    /// Why a change from outside must be refused — a version, id, column name or value over
    /// one of the bounds, or an id or column name not in Unicode NFC (`CanonicalText`) — or
    /// nil when it may be merged. The check every write entry point
    /// of a Logbook runs; a hub or any other store that must hold only what a Logbook can
    /// read back runs the same one.
    public static func reasonToRefuse(_ change: Change<String, String, Value>) -> String? {
        ChangeAdmission.reasonToRefuse(change)
    }
}
