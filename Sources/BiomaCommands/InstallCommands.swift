import ArgumentParser
import BiomaSystem

struct DaemonCommand: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        commandName: "daemon", abstract: "Run the daemon on the session bus (normally started by D-Bus activation).",
        discussion: """
            The daemon is its own program, biomatimerd, beside this one or in libexec/biomatimer; \
            `biomatimer daemon --help` lists its options (--data-dir, --replace, --day-start, --week-start).
            """)
    @Argument(parsing: .captureForPassthrough, help: "The daemon's options.") var options: [String] = []

    func run() throws { try localBodies().daemon(options: options) }
}

struct Install: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        abstract: "Install the programs, D-Bus activation, the systemd user unit, the manual and completions.",
        discussion: """
            For you alone by default: programs under ~/.local (bin/biomatimer, libexec/biomatimer/), \
            and under $XDG_DATA_HOME (default ~/.local/share) the activation file (dbus-1/services), \
            the units (systemd/user: the daemon's and biomatimer-tray.service), the tray's autostart \
            entry ($XDG_CONFIG_HOME/autostart, default ~/.config/autostart), the manual (man/man1) and completions for bash \
            (bash-completion/completions), zsh (zsh/site-functions: add it to fpath) and fish \
            (fish/vendor_completions.d), and the GNOME Shell top bar extension (gnome-shell/extensions, \
            enabled when GNOME runs; otherwise it says how). With --prefix, the same under PREFIX/bin, PREFIX/libexec \
            and PREFIX/share (the autostart entry under PREFIX/etc/xdg/autostart), for packagers. Running it again is harmless; `biomatimer uninstall` \
            removes it all and never the data. With --taskwarrior, also Taskwarrior's on-modify hook \
            (`task N start` tracks the task) in the folder `task` reads hooks from: rc.hooks.location, \
            else hooks/ in $TASKDATA or rc.data.location, else ~/.task/hooks.
            """)
    @Option(help: "Install under this prefix (e.g. /usr/local) instead of for the current user.") var prefix: String?
    @Flag(help: "Also install Taskwarrior's hook: `task N start` and `stop` drive the timer.") var taskwarrior = false

    func run() throws {
        let texts = GrammarTexts(
            manual: Manual.page(version: Biomatimer.configuration.version, date: Manual.date(environment: processEnvironment())),
            bash: Biomatimer.completionScript(for: .bash),
            zsh: Biomatimer.completionScript(for: .zsh), fish: Biomatimer.fishCompatible(Biomatimer.completionScript(for: .fish)))
        try localBodies().install(prefix: prefix, taskwarrior: taskwarrior, texts: texts)
    }
}

struct Uninstall: ParsableCommand, RunsLocally {
    static let configuration = CommandConfiguration(
        abstract: "Remove what `biomatimer install` wrote; the data stays.",
        discussion: "Give the same --prefix as to install, if any. Recorded time and settings are never touched.")
    @Option(help: "The prefix given to install.") var prefix: String?

    func run() throws { try localBodies().uninstall(prefix: prefix) }
}
