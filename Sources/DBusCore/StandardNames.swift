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

    /// Error names.
    public enum Error {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        public static let timedOut = "org.freedesktop.DBus.Error.TimedOut"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        /// The start of the errors of a failed activation (`Spawn.ExecFailed`, …).
        public static let spawnPrefix = "org.freedesktop.DBus.Error.Spawn"
    }
}
