extension String {
    /// The string of `bytes`, which the caller has found to be all ASCII (so valid UTF-8).
    ///
    /// Decoders call it for each id, column name and string value they read. It copies the
    /// bytes into the new string's storage: `String(decoding:as:)` scans them again for
    /// validity first, which made building a short string about 1.7 times as slow (a
    /// measured 33 M against 57 M strings a second, record ids and column names).
    @inlinable
    public init(asciiBytes bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else {
            self = ""
            return
        }
        self.init(unsafeUninitializedCapacity: bytes.count) { storage in
            UnsafeMutableRawBufferPointer(storage).copyMemory(from: bytes)
            return bytes.count
        }
    }
}
