extension Duration {
    /// The duration in seconds, as a Double: what rates and reports divide by. Package-wide
    /// rather than public, so it cannot clash with an application's own extension.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
