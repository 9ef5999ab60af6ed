/// What a watcher saw happen in the hot folder, by path relative to it.
public enum InboxChange: Sendable, Equatable {
    /// A candidate file was closed after writing, moved in, or found by a look or a folder scan.
    case file(String)
    /// A file was written to (it may be tracked: its settling wait restarts).
    case modified(String)
    /// A file was removed or moved away.
    case removed(String)
    /// Events were lost (the kernel's queue overflowed): the whole tree must be looked at again.
    case rescan
    /// The hot folder itself was removed, moved or unmounted.
    case inboxGone
}
