import DBusCore

/// The state one of the daemon's interfaces publishes as its properties (`WorkStatus`,
/// `FocusStatus`, `TasksStatus`, `SyncStatus`): `table` lists the properties and names the
/// interface, so a client reads a state by its type alone (`DaemonAccess.state`).
public protocol PublishedState: Sendable, Equatable {
    static var table: PropertyTable<Self> { get }
    /// Every property at its default: what a property missing from an answer keeps.
    init()
}
