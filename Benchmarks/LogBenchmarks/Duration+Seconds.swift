/// A duration in seconds, for the suites' custom metrics (rates). The engine's own
/// conversion is package-internal to Logbook's package, which this one is not.
extension Duration {
    var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
