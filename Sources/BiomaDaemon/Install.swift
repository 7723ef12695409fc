import Foundation

/// `biomatimer install`: the binary, the D-Bus activation file and the systemd user unit, so
/// the first call from any D-Bus client starts the daemon. The templates are the files in the
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

    /// Installs under `prefix` (`bin/biomatimer`, `libexec/biomatimer/biomatimer-tool`,
    /// `share/dbus-1/services/`, `share/systemd/user/`) and returns the paths written.
    /// `front` and `tool` are the two built executables.
    public static func install(prefix: URL, front: URL, tool: URL) throws -> [URL] {
        let fm = FileManager.default
        let bin = prefix.appendingPathComponent("bin")
        let libexec = prefix.appendingPathComponent("libexec/biomatimer")
        let services = prefix.appendingPathComponent("share/dbus-1/services")
        let units = prefix.appendingPathComponent("share/systemd/user")
        for dir in [bin, libexec, services, units] { try fm.createDirectory(at: dir, withIntermediateDirectories: true) }

        let frontTarget = bin.appendingPathComponent("biomatimer")
        let toolTarget = libexec.appendingPathComponent("biomatimer-tool")
        try copyExecutable(tool, to: toolTarget)
        try copyExecutable(front, to: frontTarget)
        let activation = services.appendingPathComponent("org.biomatimer.Timer1.service")
        let unit = units.appendingPathComponent("biomatimer.service")
        try activationTemplate.replacingOccurrences(of: "@BINDIR@", with: bin.path)
            .write(to: activation, atomically: true, encoding: .utf8)
        try unitTemplate.replacingOccurrences(of: "@BINDIR@", with: bin.path)
            .write(to: unit, atomically: true, encoding: .utf8)
        return [frontTarget, toolTarget, activation, unit]
    }

    /// Copies to a temporary name and renames, so a running daemon keeps its old file.
    private static func copyExecutable(_ source: URL, to target: URL) throws {
        guard source.standardizedFileURL.path != target.standardizedFileURL.path else { return }
        let fm = FileManager.default
        let temporary = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).new")
        try? fm.removeItem(at: temporary)
        try fm.copyItem(at: source, to: temporary)
        chmod(temporary.path, 0o755)
        guard rename(temporary.path, target.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
        }
    }

    /// The front binary that belongs with this tool: beside it in a build folder, or in
    /// `../../bin` when installed under `libexec/biomatimer/`.
    public static func frontExecutable(besides tool: URL) -> URL? {
        let directory = tool.deletingLastPathComponent()
        for candidate in [
            directory.appendingPathComponent("biomatimer"),
            directory.appendingPathComponent("../../bin/biomatimer").standardizedFileURL,
        ] where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        return nil
    }

    /// The running executable's real path.
    public static func currentExecutable() -> URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    }
}
