/// Which file a path or an open handle is: the device and inode number (`stat`), so that a
/// reader can tell whether the file at a path is still the one it opened, after a writer in
/// another process may have renamed another over it (compaction's swap) or removed it.
public struct FileIdentity: Hashable, Sendable {
    /// The device the file lives on.
    public var device: UInt64
    /// The file's number on that device.
    public var inode: UInt64

    /// An identity from its parts.
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
