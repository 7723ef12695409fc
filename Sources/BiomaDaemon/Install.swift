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

    /// Installs under `prefix` (`bin/`, `share/dbus-1/services/`, `share/systemd/user/`) and
    /// returns the paths written.
    public static func install(prefix: URL, executable: URL) throws -> [URL] {
        let fm = FileManager.default
        let bin = prefix.appendingPathComponent("bin")
        let services = prefix.appendingPathComponent("share/dbus-1/services")
        let units = prefix.appendingPathComponent("share/systemd/user")
        for dir in [bin, services, units] { try fm.createDirectory(at: dir, withIntermediateDirectories: true) }

        let target = bin.appendingPathComponent("biomatimer")
        if executable.standardizedFileURL.path != target.standardizedFileURL.path {
            // Copy to a temporary name and rename: a running daemon keeps its old file.
            let temporary = bin.appendingPathComponent(".biomatimer.new")
            try? fm.removeItem(at: temporary)
            try fm.copyItem(at: executable, to: temporary)
            chmod(temporary.path, 0o755)
            guard rename(temporary.path, target.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
            }
        }
        let activation = services.appendingPathComponent("org.biomatimer.Timer1.service")
        let unit = units.appendingPathComponent("biomatimer.service")
        try activationTemplate.replacingOccurrences(of: "@BINDIR@", with: bin.path)
            .write(to: activation, atomically: true, encoding: .utf8)
        try unitTemplate.replacingOccurrences(of: "@BINDIR@", with: bin.path)
            .write(to: unit, atomically: true, encoding: .utf8)
        return [target, activation, unit]
    }

    /// The running executable's real path.
    public static func currentExecutable() -> URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    }
}
