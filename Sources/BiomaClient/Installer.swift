import DBusCore

#if canImport(Glibc)
import Glibc
#endif

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

    /// Installs under `prefix` (`bin/biomatimer`, `libexec/biomatimer/biomatimer-tool` and
    /// `biomatimerd`, `share/dbus-1/services/`, `share/systemd/user/`) and returns the paths
    /// written. `front`, `tool` and `daemon` are the three built executables.
    public static func install(prefix: String, front: String, tool: String, daemon: String) throws(InstallError) -> [String] {
        let bin = prefix + "/bin"
        let libexec = prefix + "/libexec/biomatimer"
        let services = prefix + "/share/dbus-1/services"
        let units = prefix + "/share/systemd/user"
        for dir in [bin, libexec, services, units] { try makeDirectories(dir) }

        let frontTarget = bin + "/biomatimer"
        let toolTarget = libexec + "/biomatimer-tool"
        let daemonTarget = libexec + "/biomatimerd"
        try copyExecutable(tool, to: toolTarget)
        try copyExecutable(daemon, to: daemonTarget)
        try copyExecutable(front, to: frontTarget)
        let activation = services + "/org.biomatimer.Timer1.service"
        let unit = units + "/biomatimer.service"
        try AtomicFile.write(Array(fill(activationTemplate, bindir: bin).utf8), to: activation)
        try AtomicFile.write(Array(fill(unitTemplate, bindir: bin).utf8), to: unit)
        return [frontTarget, toolTarget, daemonTarget, activation, unit]
    }

    /// A template with `@BINDIR@` replaced.
    public static func fill(_ template: String, bindir: String) -> String {
        template.split(separator: "@BINDIR@", omittingEmptySubsequences: false).joined(separator: bindir)
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws(InstallError) {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw InstallError("cannot create \(built): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Copies to a temporary name and renames, so a running daemon keeps its old file.
    private static func copyExecutable(_ source: String, to target: String) throws(InstallError) {
        guard realPath(source) != realPath(target) else { return }
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(source)
        } catch {
            throw InstallError("cannot read \(source): \(String(cString: strerror(error.code)))")
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
public struct InstallError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// An errno.
struct SystemError: Error {
    var code: Int32
}

/// A whole file's bytes.
func readWholeFile(_ path: String) throws(SystemError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError(code: errno) }
    defer { close(fd) }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { throw SystemError(code: errno) }
        if n == 0 { return data }
        data.append(contentsOf: buffer[..<n])
    }
}
