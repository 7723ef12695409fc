/// The names the D-Bus specification fixes, spelled once: the bus's own name and object, the
/// standard interfaces every object has, and the errors of the specification and of libdbus.
public enum StandardNames {
    /// The message bus itself, as a peer (`NameOwnerChanged`, `AddMatch`, `NameHasOwner`).
    public static let bus = "org.freedesktop.DBus"
    public static let busPath = "/org/freedesktop/DBus"
    public static let properties = "org.freedesktop.DBus.Properties"
    public static let introspectable = "org.freedesktop.DBus.Introspectable"
    public static let peer = "org.freedesktop.DBus.Peer"
    /// What libdbus itself says to its connection (`Disconnected`), never sent on a bus.
    public static let local = "org.freedesktop.DBus.Local"
}

/// The errors of the D-Bus specification and of libdbus, by the last part of their name:
/// `StandardError.unknownMethod.name` is `org.freedesktop.DBus.Error.UnknownMethod`.
public enum StandardError: Sendable {
    case failed, invalidArgs, unknownMethod, unknownObject, unknownInterface, unknownProperty, propertyReadOnly
    case noReply, noMemory, disconnected, timeout, timedOut, serviceUnknown, nameHasNoOwner

    public var name: String {
        let word = String(describing: self)
        return Self.prefix + word.prefix(1).uppercased() + word.dropFirst()
    }

    public static let prefix = "org.freedesktop.DBus.Error."
    /// The start of the errors of a failed activation (`Spawn.ExecFailed`, …).
    public static let spawnPrefix = prefix + "Spawn"
}
