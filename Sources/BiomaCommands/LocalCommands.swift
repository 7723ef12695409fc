import BiomaWidgets
import BiomaContract

/// The bodies of the commands that run in the caller's process: `watch`, `tray`, `install`,
/// `uninstall` and `daemon`. The command tree holds only their grammar (options, help,
/// validation); `biomatimer-tool` supplies the bodies through `CommandContext.local`, so the
/// daemon, which refuses these commands, links neither the watcher, the tray nor the installer.
public protocol LocalCommands: AnyObject {
    /// Prints a bar line on every change until the process is ended.
    func watch(_ renderer: any WidgetRenderer) throws
    /// The StatusNotifierItem, until the session bus goes.
    func tray() throws
    func install(prefix: String?, taskwarrior: Bool, texts: GrammarTexts) throws
    func uninstall(prefix: String?) throws
    /// Replaces the process with `biomatimerd` and `options`.
    func daemon(options: [String]) throws
}

/// What the command tree writes about itself for `install`: the manual page and the
/// completion scripts.
public struct GrammarTexts: Sendable {
    public var manual: String
    public var bash: String
    public var zsh: String
    public var fish: String
}

/// A command that runs in the caller's own process (`watch`, `install`, …), never in the daemon.
protocol RunsLocally {}

/// The caller's local bodies, or the refusal a caller without them (the daemon) gives.
func localBodies() throws(ClientFailure) -> any LocalCommands {
    guard let local = CommandContext.current.local else {
        throw ClientFailure(
            exitCode: BiomaContract.ExitCode.refused, "this command runs in the caller's process: run it with the biomatimer command.")
    }
    return local
}
