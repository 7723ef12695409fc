import BiomaSystem
import DBusCore

#if canImport(Glibc)
import Glibc
#endif

/// `biomatimer install` and `uninstall`: the programs, the D-Bus activation file and the
/// systemd user unit (so the first call from any D-Bus client starts the daemon), the manual
/// page and the shell completions. The templates are the files in the
/// repository's `dbus/` folder (a test keeps the two identical).
public enum Installer {
    public static let activationTemplate = """
        [D-BUS Service]
        Name=org.biomatimer.Timer1
        Exec=@BINDIR@/biomatimer daemon
        SystemdService=biomatimer.service

        """

    public static let unitTemplate = """
        [Unit]
        Description=biomatimer time tracker daemon
        Documentation=man:biomatimer(1)
        PartOf=graphical-session.target

        [Service]
        Type=dbus
        BusName=org.biomatimer.Timer1
        ExecStart=@BINDIR@/biomatimer daemon
        Restart=on-failure

        [Install]
        WantedBy=default.target

        """

    /// The tray's user unit (`biomatimer-tray.service`), for sessions started by systemd
    /// (`systemctl --user enable --now biomatimer-tray.service` in sway, for instance).
    public static let trayUnitTemplate = """
        [Unit]
        Description=biomatimer in the system tray (StatusNotifierItem)
        Documentation=man:biomatimer(1)
        PartOf=graphical-session.target
        After=graphical-session.target

        [Service]
        ExecStart=@BINDIR@/biomatimer tray
        Restart=on-failure

        [Install]
        WantedBy=graphical-session.target

        """

    /// The tray's XDG autostart entry, for desktops that start `~/.config/autostart`
    /// (GNOME, KDE, xfce). The tray runs once per session: a second one exits at once.
    public static let trayAutostartTemplate = """
        [Desktop Entry]
        Type=Application
        Name=biomatimer tray
        Comment=biomatimer's timers and projects in the system tray
        TryExec=@BINDIR@/biomatimer
        Exec=@BINDIR@/biomatimer tray
        Terminal=false
        NoDisplay=true
        X-GNOME-Autostart-enabled=true

        """

    /// Taskwarrior's on-modify hook, `taskwarrior/on-modify.biomatimer` beside this file
    /// (compiled in); installed by `taskwarriorHook(front:)` naming the installed front.
    public static let taskwarriorHookTemplate = String(decoding: PackageResources.on_modify_biomatimer, as: UTF8.self)

    /// The hook as installed: `biomatimer=` names `front`, since Taskwarrior's hooks run with
    /// whatever `PATH` the shell that runs `task` has.
    public static func taskwarriorHook(front: String) -> String {
        let quoted = "'" + front.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
        return taskwarriorHookTemplate.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0 == "biomatimer=biomatimer" ? "biomatimer=" + quoted : String($0) }
            .joined(separator: "\n")
    }

    /// Where `task` looks for hooks, as Taskwarrior resolves it: `hooks.location` in its rc
    /// file, else `hooks/` in its data folder (`$TASKDATA`, else `data.location` in the rc file,
    /// else `~/.task`). The rc file is `$TASKRC`, else `~/.taskrc`; its `include`s are not read.
    public static func taskwarriorHooksFolder(environment: [String: String] = processEnvironment()) -> String {
        let rc = environment["TASKRC"].flatMap { $0.isEmpty ? nil : $0 } ?? "~/.taskrc"
        var settings: [String: String] = [:]
        if let bytes = try? readWholeFile(expandingTilde(rc, environment: environment)) {
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                guard let equals = text.firstIndex(of: "=") else { continue }
                let key = text[..<equals].trimmingSpaces()
                if key == "hooks.location" || key == "data.location" {
                    settings[key] = text[text.index(after: equals)...].trimmingSpaces()
                }
            }
        }
        if let hooks = settings["hooks.location"], !hooks.isEmpty { return expandingTilde(hooks, environment: environment) }
        let data = environment["TASKDATA"].flatMap { $0.isEmpty ? nil : $0 } ?? settings["data.location"] ?? "~/.task"
        return expandingTilde(data, environment: environment) + "/hooks"
    }

    /// Installs into `layout`: the three programs (and `tray`, the tray alone, when given), the
    /// activation file, the unit, the manual page and the completion scripts (`extras`: the
    /// page and scripts, by destination path).
    /// Every file is written whole and renamed into place, so running it again is harmless.
    /// Returns the paths written, which are also listed in the layout's manifest for
    /// `uninstall`.
    public static func install(
        _ layout: InstallLayout, front: String, tool: String, daemon: String, tray: String? = nil,
        extras: [(path: String, text: String)], scripts: [(path: String, text: String)] = []
    ) throws(InstallError) -> [String] {
        var written: [String] = []
        var created: [String] = []
        func put(_ path: String, _ bytes: [UInt8], mode: mode_t) throws(InstallError) {
            created += try makeDirectories(parent(of: path))
            try AtomicFile.write(bytes, to: path, mode: mode)
            written.append(path)
        }
        func copy(_ source: String, to target: String) throws(InstallError) {
            created += try makeDirectories(parent(of: target))
            try copyExecutable(source, to: target)
            written.append(target)
        }
        // The programs first: the activation file must never name a program not yet there.
        try copy(tool, to: layout.libexec + "/biomatimer-tool")
        try copy(daemon, to: layout.libexec + "/biomatimerd")
        try copy(front, to: layout.bin + "/biomatimer")
        try put(layout.activationFile, Array(fill(activationTemplate, bindir: layout.bin).utf8), mode: 0o644)
        try put(layout.unitFile, Array(fill(unitTemplate, bindir: layout.bin).utf8), mode: 0o644)
        for extra in extras { try put(extra.path, Array(extra.text.utf8), mode: 0o644) }
        for script in scripts { try put(script.path, Array(script.text.utf8), mode: 0o755) }
        try put(layout.trayUnitFile, Array(fill(trayUnitTemplate, bindir: layout.bin).utf8), mode: 0o644)
        try put(layout.trayAutostartFile, Array(fill(trayAutostartTemplate, bindir: layout.bin).utf8), mode: 0o644)
        // The tray alone, last: until it is there `biomatimer tray` runs in the tool.
        if let tray { try copy(tray, to: layout.libexec + "/biomatimer-tray") }
        // A second install keeps the folders the first one made on the list.
        let earlier = (try? readWholeFile(layout.manifest)).map { Manifest(String(decoding: $0, as: UTF8.self)) }
        let manifest = Manifest(files: written, folders: (earlier?.folders ?? []) + created)
        try AtomicFile.write(Array(manifest.text.utf8), to: layout.manifest, mode: 0o644)
        return written
    }

    /// Removes what `install` wrote into `layout` (the files its manifest lists, then the
    /// manifest and the emptied libexec folder) and nothing else: never the data. Returns the
    /// paths removed.
    public static func uninstall(_ layout: InstallLayout) throws(InstallError) -> [String] {
        let listed: [UInt8]
        do {
            listed = try readWholeFile(layout.manifest)
        } catch {
            throw InstallError("nothing to uninstall: \(layout.manifest) is missing (\(error))")
        }
        let manifest = Manifest(String(decoding: listed, as: UTF8.self))
        var removed: [String] = []
        for path in manifest.files {
            if unlink(path) == 0 {
                removed.append(path)
            } else if errno != ENOENT {
                throw InstallError("cannot remove \(path): \(String(cString: strerror(errno)))")
            }
        }
        unlink(layout.manifest)
        // The folders install made, deepest first, where nothing else has been put since.
        for folder in Set(manifest.folders + [layout.libexec]).sorted(by: { $0.count > $1.count }) { rmdir(folder) }
        return removed
    }

    /// A template with `@BINDIR@` replaced.
    public static func fill(_ template: String, bindir: String) -> String {
        template.split(separator: "@BINDIR@", omittingEmptySubsequences: false).joined(separator: bindir)
    }

    /// `mkdir -p`; returns the folders it made.
    static func makeDirectories(_ path: String) throws(InstallError) -> [String] {
        var built = path.hasPrefix("/") ? "" : "."
        var made: [String] = []
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) == 0 {
                made.append(built)
            } else if errno != EEXIST {
                throw InstallError("cannot create \(built): \(String(cString: strerror(errno)))")
            }
        }
        return made
    }

    /// Copies to a temporary name and renames, so a running daemon keeps its old file.
    private static func copyExecutable(_ source: String, to target: String) throws(InstallError) {
        guard realPath(source) != realPath(target) else { return }
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(source)
        } catch {
            throw InstallError("cannot read \(source): \(error)")
        }
        try AtomicFile.write(bytes, to: target, mode: 0o755)
    }

    /// The front binary that belongs with this tool: beside it in a build folder, or in
    /// `../../bin` when installed under `libexec/biomatimer/`.
    public static func frontExecutable(besides tool: String) -> String? {
        let directory = parent(of: tool)
        for candidate in [directory + "/biomatimer", directory + "/../../bin/biomatimer"] where access(candidate, X_OK) == 0 {
            return realPath(candidate) ?? candidate
        }
        return nil
    }

    /// The running executable's real path.
    public static func currentExecutable() -> String {
        realPath("/proc/self/exe") ?? "/proc/self/exe"
    }

    /// Another of biomatimer's executables: beside the running one (a build folder, or
    /// libexec/biomatimer when installed).
    public static func siblingExecutable(_ name: String) -> String? {
        let candidate = parent(of: currentExecutable()) + "/" + name
        return access(candidate, X_OK) == 0 ? candidate : nil
    }

    /// Replaces this process with `executable`; returns only by throwing.
    public static func exec(_ executable: String, arguments: [String]) throws(InstallError) -> Never {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv(executable, &argv)
        throw InstallError("cannot run \(executable): \(String(cString: strerror(errno)))")
    }

    /// `~` and `~/…` with `$HOME`.
    public static func expandingTilde(_ path: String, environment: [String: String] = processEnvironment()) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        var home = environment["HOME"] ?? ""
        if home.isEmpty, let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { home = String(cString: dir) }
        return home + path.dropFirst()
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// A failed installation step, in a sentence.
public typealias InstallError = FileError

/// What an installation wrote: `f PATH` for each file, `d PATH` for each folder it made.
struct Manifest {
    var files: [String]
    var folders: [String]

    init(files: [String], folders: [String]) {
        self.files = files
        self.folders = folders
    }

    init(_ text: String) {
        files = []
        folders = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("f ") { files.append(String(line.dropFirst(2))) }
            if line.hasPrefix("d ") { folders.append(String(line.dropFirst(2))) }
        }
    }

    var text: String {
        (files.map { "f " + $0 } + folders.map { "d " + $0 }).joined(separator: "\n") + "\n"
    }
}

/// Where an installation puts each file.
public struct InstallLayout: Sendable, Equatable {
    public var bin: String
    public var libexec: String
    public var activationFile: String
    public var unitFile: String
    /// `biomatimer-tray.service`, beside the daemon's unit.
    public var trayUnitFile: String
    /// The tray's autostart entry: `$XDG_CONFIG_HOME/autostart` for a user,
    /// `etc/xdg/autostart` for a prefix (`/etc/xdg/autostart` for `/usr`).
    public var trayAutostartFile: String
    public var manualPage: String
    public var bashCompletion: String
    public var zshCompletion: String
    public var fishCompletion: String
    /// The GNOME Shell extension's folder (`gnome-shell/extensions/UUID` in share).
    public var gnomeShellExtension: String
    /// The list of installed files, for `uninstall`.
    public var manifest: String { libexec + "/installed-files" }

    /// The files' places below three roots: the front's folder, libexec's, and share.
    init(bin: String, libexec: String, share: String, autostart: String) {
        self.bin = bin
        self.libexec = libexec + "/biomatimer"
        activationFile = share + "/dbus-1/services/org.biomatimer.Timer1.service"
        unitFile = share + "/systemd/user/biomatimer.service"
        trayUnitFile = share + "/systemd/user/biomatimer-tray.service"
        trayAutostartFile = autostart + "/biomatimer-tray.desktop"
        manualPage = share + "/man/man1/biomatimer.1"
        bashCompletion = share + "/bash-completion/completions/biomatimer"
        zshCompletion = share + "/zsh/site-functions/_biomatimer"
        fishCompletion = share + "/fish/vendor_completions.d/biomatimer.fish"
        gnomeShellExtension = share + "/gnome-shell/extensions/" + GnomeShellExtension.uuid
    }

    /// A per-user installation, where the user's session bus, systemd, man, bash, zsh and fish
    /// look: programs under `~/.local`, everything else under `$XDG_DATA_HOME` (default
    /// `~/.local/share`). `~` is `$HOME`.
    public static func user(environment: [String: String] = processEnvironment()) -> InstallLayout {
        let home = Installer.expandingTilde("~", environment: environment)
        var data = environment["XDG_DATA_HOME"] ?? ""
        if !data.hasPrefix("/") { data = home + "/.local/share" }
        var config = environment["XDG_CONFIG_HOME"] ?? ""
        if !config.hasPrefix("/") { config = home + "/.config" }
        return InstallLayout(bin: home + "/.local/bin", libexec: home + "/.local/libexec", share: data, autostart: config + "/autostart")
    }

    /// A packager's installation under `prefix` (`/usr`, `/usr/local`, a staging folder).
    public static func prefix(_ prefix: String) -> InstallLayout {
        InstallLayout(
            bin: prefix + "/bin", libexec: prefix + "/libexec", share: prefix + "/share",
            autostart: (prefix == "/usr" ? "" : prefix) + "/etc/xdg/autostart")
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
