import CThreadNames
import Foundation

extension Thread {
    /// Starts a thread that runs `body` under `name`, set from the thread itself so that
    /// the operating system shows it (`top -H`, `ps -L`, `perf`, debuggers): on Linux,
    /// `Thread.name` alone names nothing there. Keep names within 15 bytes, Linux's limit;
    /// longer ones are cut.
    package static func startNamed(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            _ = logbook_name_current_thread(name)
            body()
        }
        thread.name = name
        thread.start()
    }
}
