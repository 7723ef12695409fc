import ArgumentParser
import CContract
import DBusCore
import BiomaContract

/// The command tree's root: `biomatimer` and its groups of commands, each in its own file.
public struct Biomatimer: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "biomatimer",
        abstract: "A work timer with named, coloured project timers, on the D-Bus session bus.",
        discussion: """
            The daemon keeps the time; every other command asks it over D-Bus (it is started on \
            demand once `biomatimer install` has run). Status bars follow it with `biomatimer watch`.

            Exit codes: 0 done, 1 the daemon refused (its reason on stderr), 2 usage error, \
            3 no session bus or no daemon.
            """,
        version: "0.1.0",
        subcommands: [
            Start.self, Stop.self, Toggle.self, Reset.self, Status.self, Watch.self, Tray.self, ProjectCommand.self, FocusCommand.self,
            TaskCommand.self, AwayCommand.self, TargetCommand.self, SyncCommand.self, HooksCommand.self, TaskwarriorCommand.self, Log.self, AddInterval.self, EditInterval.self,
            SplitInterval.self, DeleteInterval.self, Undo.self, NoteCommand.self, TagCommand.self, ClientCommand.self,
            ReportCommand.self, Export.self, Import.self, ResetHistory.self, BackupsCommand.self, RestoreCommand.self, ConfigCommand.self, DaemonCommand.self, Install.self,
            Uninstall.self,
        ])

    public init() {}
}

/// Runs one daemon method and prints nothing: the keybinding path, kept to parse + one call.
func callDaemon(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
    try daemonClient().call(member, arguments)
}

extension Biomatimer {
    /// The fish script with the cursor's place in the word it completes read in a way fish 3
    /// (Debian's) answers too: ArgumentParser's `commandline -o -tC` prints nothing there, so
    /// no value (a project's name) was ever completed.
    static func fishCompatible(_ text: String) -> String {
        text.replacing("(__biomatimer_tokens -tC)", with: "(string length -- \"$(commandline -ct)\")")
    }
}
