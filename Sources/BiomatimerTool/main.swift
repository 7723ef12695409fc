import BiomaCommands
import BiomaSystem

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
exit(CommandRunner.run(Array(processArguments().dropFirst()), in: context))
