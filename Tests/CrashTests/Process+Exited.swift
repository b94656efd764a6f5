import Foundation
import LogbookTesting

extension Process {
    /// `waitUntilExit()` on a thread of its own, for the reason `onOwnThread` gives.
    func exited() async {
        _ = try? await onOwnThread { [self] in waitUntilExit() }
    }
}
