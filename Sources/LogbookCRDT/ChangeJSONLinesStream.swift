import Foundation

/// Reads crdt-lite JSON-lines changes from a file or a pipe a block of whole lines at a
/// time, with `ChangeJSONLinesReader` inside each block: memory holds one block and the
/// line being read, never the whole input, and a line longer than `lineBytesMax` is refused
/// before it is read whole. `logbook append` of a 400 MB line used to hold 850 MB.
public struct ChangeJSONLinesStream {
    /// The longest line read by default: 64 MiB. The largest change within
    /// `ChangeLimits` (a 16 MiB value) fits it in any spelling but the most wasteful (every
    /// byte of a string escaped as `\uXXXX`).
    public static let lineBytesMaxDefault = 64 << 20

    private let read: (Int) throws -> Data
    private let lineBytesMax: Int
    private let blockBytes: Int
    /// The start of a line whose end has not been read yet.
    private var pending = Data()
    private var block: ChangeJSONLinesReader<String, String, Value>?
    /// Lines in the blocks before the current one.
    private var linesBefore = 0
    private var atEnd = false

    /// The 1-based number of the line most recently read (0 before the first).
    public var lineNumber: Int { linesBefore + (block?.lineNumber ?? 0) }

    /// A stream over `handle`, read `blockBytes` at a time.
    public init(
        _ handle: FileHandle, lineBytesMax: Int = lineBytesMaxDefault, blockBytes: Int = 4 << 20
    ) {
        self.init(lineBytesMax: lineBytesMax, blockBytes: blockBytes) { count in
            try handle.read(upToCount: count) ?? Data()
        }
    }

    /// A stream over what `read` returns (up to the count asked; empty at the end).
    public init(lineBytesMax: Int, blockBytes: Int, read: @escaping (Int) throws -> Data) {
        self.read = read
        self.lineBytesMax = max(1, lineBytesMax)
        self.blockBytes = max(1, blockBytes)
    }

    /// The next change, or nil at the end of the input. Throws `ChangeJSONError` naming the
    /// line for a malformed or too long line, and what reading the input throws.
    public mutating func next() throws -> Change<String, String, Value>? {
        while true {
            if var current = block {
                do {
                    let change = try current.next()
                    block = current
                    if let change { return change }
                } catch {
                    block = current
                    var located = error
                    located.line = error.line.map { $0 + linesBefore }
                    throw located
                }
                linesBefore += current.lineNumber
                block = nil
            }
            guard let lines = try nextBlock() else { return nil }
            block = ChangeJSONLinesReader(lines)
        }
    }

    /// Whole lines of the input: what was read up to its last line end, or the rest at the
    /// end of the input; nil when nothing is left.
    private mutating func nextBlock() throws -> Data? {
        while !atEnd {
            let chunk = try read(blockBytes)
            guard !chunk.isEmpty else {
                atEnd = true
                break
            }
            let searchedFrom = pending.endIndex
            pending.append(chunk)
            // The line carried over ends at the chunk's first line end, or not yet.
            let firstEnd = pending[searchedFrom...].firstIndex(of: 0x0A) ?? pending.endIndex
            guard firstEnd - pending.startIndex <= lineBytesMax else {
                throw ChangeJSONError(
                    code: .refused, line: linesBefore + 1,
                    message: "the line is longer than \(lineBytesMax) bytes "
                        + "(ChangeJSONLinesStream.lineBytesMax); no change within the limits is")
            }
            if let newline = pending[searchedFrom...].lastIndex(of: 0x0A) {
                let lines = Data(pending[...newline])
                pending = Data(pending[pending.index(after: newline)...])
                return lines
            }
        }
        guard !pending.isEmpty else { return nil }
        defer { pending = Data() }
        return pending
    }
}
