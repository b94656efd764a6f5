/// The fixed mix of search queries the views benchmarks cycle through: single words,
/// brands, the two-letter `tv`, typos (`kitchn`, `thermostatt`) and three-word phrases whose
/// words each match a large part of a generated home (the slowest kind).
public enum SearchQueryMix {
    /// The twenty queries, in the order the benchmarks cycle through them.
    public static let queries = [
        "kitchen", "thermostat", "smart light", "philips hue", "door lock", "thermostatt", "kitchn",
        "garage camera", "tv", "reset", "wi-fi", "motion sensor battery", "living room speaker",
        "nest", "evening scene", "manual", "bosch oven", "upstairs", "blinds", "smoke",
    ]
}
