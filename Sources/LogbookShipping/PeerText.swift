import Logbook
import NIOCore

/// A peer's answer body as text for an error message, a log line or `peers.json`: at most
/// its first 300 characters, controls escaped (`terminalSafe`), since the peer chose every
/// byte of it.
func peerText(_ body: ByteBuffer) -> String {
    terminalSafe(String(buffer: body).prefix(300))
}
