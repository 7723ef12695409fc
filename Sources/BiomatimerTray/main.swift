import BiomaSystem
import BiomaTray
import Glibc

// `biomatimer tray`, the front's hand-over when the command is exactly that: the tray alone,
// without the command tree, ArgumentParser or Foundation, so its process stays small.
let arguments = processArguments()
guard arguments.count == 2, arguments[1] == "tray" else {
    writeError("usage: biomatimer tray (biomatimer-tray is started by biomatimer)\n")
    exit(2)
}
TrayService.run { line in writeError(line + "\n") }

@Sendable func writeError(_ text: String) { writeAll(text, to: 2) }
