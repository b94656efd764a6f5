/// Why the demo stopped.
public enum DemoError: Error, CustomStringConvertible, Sendable {
    /// A path the demo would replace holds something that is not a Logbook; nothing there
    /// was touched.
    case notALogbook(path: String)
    /// Two states that must be equal were not: the demo's point failed.
    case diverged(String)

    /// The reason, as the command line prints it.
    public var description: String {
        switch self {
        case .notALogbook(let path):
            "\(path) exists and is not a Logbook; choose another --directory"
        case .diverged(let what): "\(what) ended with different states"
        }
    }
}
