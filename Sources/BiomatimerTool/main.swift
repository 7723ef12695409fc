import BiomaCommands
import BiomaSystem
import BiomaText
import BiomaContract

#if canImport(Glibc)
import Glibc
#endif

// The commands that run in the caller's process (watch, install, uninstall, daemon), and every
// command when no daemon can be reached: the same command tree the daemon runs for `Run`, here
// with this process as the caller (its terminals, files and the session bus).
// Exit codes are a contract for scripts: 0 done, 1 refused, 2 usage, 3 no bus or no daemon.
// The local commands' bodies (the watcher, the tray, the installer) are supplied here.
let context = CommandContext.process()
context.local = LocalBodies()
let (arguments, notUTF8) = checkedProcessArguments()
// The front hands a line that is not UTF-8 here (libdbus would abort on it): a name or note
// is text, so the line is refused, not stored with `�` where the bytes were.
if let index = notUTF8 {
    _ = writeAll(
        "biomatimer: argument \(index) (\(TextEscaping.visible(arguments[index]))) is not UTF-8 text: names, notes and "
            + "every other argument are text; nothing was done.\n", to: 2)
    exit(ExitCode.usage)
}
exit(CommandRunner.run(Array(arguments.dropFirst()), in: context))
