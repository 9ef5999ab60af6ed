/// What a watch is doing, as `watch-status.json` and the heartbeat name it.
public enum WatchState: String, Codable, Sendable {
    /// Taking files.
    case running
    /// A SIGHUP is waiting for the files in flight to finish before the recipe is read again.
    case reloading
    /// SIGTERM/SIGINT (or an error): finishing the files in flight, taking no more.
    case stopping
    /// The watch ended (its last status).
    case stopped
    /// Not written by a watch: `watch --status --json` reports this for a watch whose process is gone
    /// without having written `stopped` (killed, or crashed).
    case notRunning = "not running"
}
