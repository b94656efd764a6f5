/// The version of this Logbook build, as `logbook --version` prints it. Bumped by hand with
/// each release; "-dev" until the first tagged one.
public enum LogbookVersion {
    /// Semantic version.
    public static let current = "0.2.0-dev"
}
