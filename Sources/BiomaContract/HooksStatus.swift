import DBusCore

/// The state `org.biomatimer.Hooks1` publishes; `table` is that interface's list of properties.
public struct HooksStatus: PublishedState {
    /// `Folder`: the hooks folder the daemon reads (`$XDG_CONFIG_HOME/biomatimer/hooks` as its
    /// environment had it at start, else `~/.config/biomatimer/hooks`); it never changes while
    /// the daemon runs.
    public var folder = ""

    public init() {}

    public init(folder: String) { self.folder = folder }

    public static let table = PropertyTable<HooksStatus>(interface: ContractNames.hooksInterface, [.init("Folder", \.folder)])
}
