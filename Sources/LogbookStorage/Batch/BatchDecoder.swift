/// Checks and unpacks one stored batch: CRC first, then decompression, then record framing.
public enum BatchDecoder {
    /// Verifies the CRC of `header` over `storedPayload`, decompresses into `raw` (replacing
    /// its contents) and checks that the records frame exactly the payload, with offsets
    /// rising from the base to `baseOffset + lastOffsetDelta`. Returns the failure reason.
    public static func unpack(
        header: BatchHeader, storedPayload: UnsafeRawBufferPointer, into raw: inout [UInt8]
    ) -> String? {
        guard storedPayload.count == Int(truncatingIfNeeded: header.storedLength) else {
            return "stored payload is cut short"
        }
        guard header.computeCRC(payload: storedPayload) == header.batchCRC else {
            return "batch checksum mismatch"
        }
        raw.removeAll(keepingCapacity: true)
        if let failure = LZ4Frame.decode(
            storedPayload, rawLength: Int(truncatingIfNeeded: header.rawLength), into: &raw)
        {
            return failure.rawValue
        }
        var count = 0
        var lastDelta: UInt64 = 0
        let framingError: String? = raw.withUnsafeBytes { payload in
            forEachRecord(payload) { delta, _ in
                if count > 0 && delta <= lastDelta { return false }
                lastDelta = delta
                count += 1
                return true
            }
        }
        if let framingError { return framingError }
        guard count == Int(truncatingIfNeeded: header.recordCount) else {
            return "record count differs from header"
        }
        guard lastDelta == UInt64(header.lastOffsetDelta) else {
            return "last offset differs from header"
        }
        return nil
    }

    /// Walks the records of an unpacked payload, calling `body(offsetDelta, record)` until it
    /// returns false. Returns a reason when the framing is broken.
    @inlinable
    public static func forEachRecord(
        _ payload: UnsafeRawBufferPointer, _ body: (UInt64, UnsafeRawBufferPointer) -> Bool
    ) -> String? {
        var position = 0
        while position < payload.count {
            guard let delta = Varint.read(payload, at: &position),
                let length = Varint.read(payload, at: &position)
            else { return "record framing is cut short" }
            guard length <= UInt64(payload.count - position) else {
                return "record runs past the payload"
            }
            let end = position + Int(truncatingIfNeeded: length)
            if !body(delta, UnsafeRawBufferPointer(rebasing: payload[position..<end])) {
                return nil
            }
            position = end
        }
        return nil
    }
}
