import Foundation

extension UUID: ModelID {
    /// The UUID's canonical uppercase spelling.
    public var recordKey: String { uuidString }
    /// The UUID `recordKey` spells, in either case; nil when it spells none.
    public init?(recordKey: String) { self.init(uuidString: recordKey) }
}
