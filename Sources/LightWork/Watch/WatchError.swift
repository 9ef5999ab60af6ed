/// A reason the folder watch cannot start or go on (the inbox is gone, the inotify limit is reached, another
/// watch holds the output folder's journal), in words a user can act on.
public struct WatchError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
