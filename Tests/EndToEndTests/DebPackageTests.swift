import Foundation
import Testing

import TestSupport

/// The Debian package `make deb` builds (`.build/deb/`, before `make test` runs the suite):
/// installed with apt-get, its programs need no Swift toolchain (none on their library path or
/// RUNPATH; run with /opt/swift hidden under an empty tmpfs in a private mount namespace, as an
/// unprivileged user in a fresh dbus-run-session, through the system's activation file), their
/// private memory stays within the goals, and `apt-get remove` takes every file it installed but
/// its conffile (`purge` that too) and none of the user's data.
@Suite(.ownThreadLong, .timeLimit(.minutes(3)))
struct DebPackageTests {
    static let folder = repositoryRoot.appendingPathComponent(".build/deb")
    static let programs = [
        "/usr/bin/biomatimer", "/usr/libexec/biomatimer/biomatimer-tool", "/usr/libexec/biomatimer/biomatimerd",
        "/usr/libexec/biomatimer/biomatimer-tray",
    ]
    static let toolchain = "/opt/swift"

    static func apt(_ arguments: [String]) throws -> ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["DEBIAN_FRONTEND"] = "noninteractive"
        return try runProcess("/usr/bin/apt-get", ["-y", "-q"] + arguments, environment: environment, timeout: 120)
    }

    @Test func theInstalledPackageRunsWithoutTheToolchainAndLeavesNothingBehind() throws {
        let debs = (try? FileManager.default.contentsOfDirectory(atPath: Self.folder.path))?.filter { $0.hasSuffix(".deb") } ?? []
        let deb = try #require(debs.sorted().last.map { Self.folder.appendingPathComponent($0).path }, "no package in \(Self.folder.path): run `make deb` (make test does)")
        try #require(getuid() == 0, "installing the package needs root (make test runs as root in CI)")
        let lintian = (try? String(contentsOf: Self.folder.appendingPathComponent("lintian.txt"), encoding: .utf8)) ?? "missing"
        #expect(!lintian.split(separator: "\n").contains { $0.hasPrefix("E: ") }, "lintian: \(lintian)")

        systemWideInstall.lock()
        defer { systemWideInstall.unlock() }
        _ = try Self.apt(["purge", "biomatimer"])
        let installed = try Self.apt(["install", "--no-install-recommends", deb])
        try #require(installed.status == 0, "apt-get install \(deb): \(installed.stderr)\(installed.stdout)")
        var removed = false
        defer { if !removed { _ = try? Self.apt(["purge", "biomatimer"]) } }
        let listed = try runProcess("/usr/bin/dpkg", ["-L", "biomatimer"]).stdout.split(separator: "\n").map(String.init)
        let files = listed.filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        for expected in Self.programs + [
            "/usr/share/dbus-1/services/org.biomatimer.Timer1.service", "/usr/lib/systemd/user/biomatimer.service",
            "/usr/lib/systemd/user/biomatimer-tray.service", "/etc/xdg/autostart/biomatimer-tray.desktop",
            "/usr/share/man/man1/biomatimer.1.gz", "/usr/share/bash-completion/completions/biomatimer",
            "/usr/share/zsh/vendor-completions/_biomatimer", "/usr/share/fish/vendor_completions.d/biomatimer.fish",
            "/usr/share/gnome-shell/extensions/biomatimer@biomatimer.org/extension.js",
            "/usr/share/doc/biomatimer/examples/waybar/config.jsonc", "/usr/share/doc/biomatimer/examples/polybar/config.ini",
        ] {
            #expect(files.contains(expected), "the package has no \(expected)")
        }
        #expect(try String(contentsOfFile: "/usr/share/dbus-1/services/org.biomatimer.Timer1.service", encoding: .utf8)
            .contains("Exec=/usr/bin/biomatimer daemon\n"))

        // Nothing of the toolchain is named by the programs.
        for program in Self.programs {
            let ldd = try runProcess("/usr/bin/ldd", [program])
            #expect(ldd.status == 0 && !ldd.stdout.contains(Self.toolchain) && !ldd.stdout.contains("not found"), "ldd \(program):\n\(ldd.stdout)")
            let dynamic = try runProcess("/usr/bin/readelf", ["-d", program])
            #expect(!dynamic.stdout.contains(Self.toolchain) && !dynamic.stdout.contains("RUNPATH") && !dynamic.stdout.contains("RPATH"), "readelf -d \(program):\n\(dynamic.stdout)")
        }

        // The commands as a user runs them, the toolchain hidden.
        let user = UserSession.userName
        if getpwnam(user) == nil { try runProcess("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", user]).requireSuccess("useradd") }
        let entry = try #require(getpwnam(user))
        let home = try makeTemporaryDirectory("biomatimer-deb-home")
        defer { try? FileManager.default.removeItem(at: home) }
        chmod(home.path, 0o755)
        chown(home.path, entry.pointee.pw_uid, entry.pointee.pw_gid)
        let script = home.appendingPathComponent("session.sh")
        try Self.session.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        let h = home.path
        let run = try runProcess(
            "/usr/bin/unshare",
            [
                "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount -t tmpfs -o size=1m,mode=0755 empty \(Self.toolchain) && exec /usr/bin/setpriv --reuid=\(entry.pointee.pw_uid) "
                    + "--regid=\(entry.pointee.pw_gid) --clear-groups /usr/bin/env -i HOME=\(h) XDG_DATA_HOME=\(h)/data "
                    + "XDG_CONFIG_HOME=\(h)/config XDG_RUNTIME_DIR=\(h)/runtime PATH=/usr/bin:/bin LANG=C.UTF-8 "
                    + "/usr/bin/dbus-run-session -- /bin/sh \(script.path)",
            ], timeout: 60)
        let said = Dictionary(
            run.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                guard let eq = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<eq]), String(line[line.index(after: eq)...]))
            }, uniquingKeysWith: { $1 })
        #expect(run.status == 0, "the session failed:\n\(run.stdout)\n\(run.stderr)")
        #expect(said["toolchain"] == "0", "the toolchain was not hidden: \(run.stdout)")
        #expect(said["toggle"] == "0", "biomatimer toggle: \(run.stdout)\n\(run.stderr)")
        #expect(said["status"]?.hasPrefix("0:00:0") == true, "biomatimer status: \(run.stdout)")
        #expect(said["watch"]?.contains(#""class":["running"]"#) == true, "biomatimer watch --format waybar: \(run.stdout)")
        #expect(said["tray"] == "on the bus", "biomatimer tray: \(run.stdout)\n\(run.stderr)")
        let daemonKB = Int(said["daemon_private_kb"] ?? "") ?? Int.max
        let trayKB = Int(said["tray_private_kb"] ?? "") ?? Int.max
        #expect(daemonKB <= 4000, "the packaged daemon's private memory: \(daemonKB) kB")
        #expect(said["import"] == "0" && said["reports"] == "0" && said["pdf"] == "%PDF-", "\(said)")
        let reportsKB = Int(said["daemon_after_reports_kb"] ?? "") ?? Int.max
        #expect(reportsKB <= 4000, "the packaged daemon's private memory after a year's report, HTML and PDF: \(reportsKB) kB")
        #expect(trayKB <= 4096, "the packaged tray's private memory: \(trayKB) kB")
        print("packaged programs, private dirty memory: daemon \(daemonKB) kB (\(reportsKB) kB after the reports), tray \(trayKB) kB")

        // Removing the package takes every file it installed but its one conffile, the tray's
        // autostart entry (dpkg keeps conffiles until purge; its TryExec makes it inert once
        // the program is gone), and none of the user's data; purging takes the entry too.
        let data = home.appendingPathComponent("data/biomatimer")
        let before = try FileManager.default.contentsOfDirectory(atPath: data.path).sorted()
        #expect(before.contains { $0.hasSuffix(".sqlite") }, "no database in \(data.path): \(before)")
        let autostart = "/etc/xdg/autostart/biomatimer-tray.desktop"
        #expect(try String(contentsOfFile: autostart, encoding: .utf8).contains("TryExec=/usr/bin/biomatimer\n"))
        let gone = try Self.apt(["remove", "biomatimer"])
        #expect(gone.status == 0, "apt-get remove: \(gone.stderr)")
        for file in files where file != autostart {
            #expect(!FileManager.default.fileExists(atPath: file), "apt-get remove left \(file)")
        }
        let purged = try Self.apt(["purge", "biomatimer"])
        removed = purged.status == 0
        #expect(purged.status == 0, "apt-get purge: \(purged.stderr)")
        for file in files { #expect(!FileManager.default.fileExists(atPath: file), "apt-get purge left \(file)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == before)
    }

    /// Run inside the namespace as the user, in dbus-run-session; prints `key=value` lines.
    static let session = #"""
        cd "$HOME"
        mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
        echo "toolchain=$(ls -A /opt/swift | wc -l)"
        biomatimer toggle >/dev/null; echo "toggle=$?"
        echo "status=$(biomatimer status | head -n 1)"
        timeout 2 biomatimer watch --format waybar >watch.txt 2>&1
        printf 'watch=%s\n' "$(head -n 1 watch.txt)"
        pid=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.GetConnectionUnixProcessID org.biomatimer.Timer1 | tr -dc '0-9 ' | awk '{print $NF}')
        private_kb() { awk '/^Private_Dirty:/ {print $2}' "/proc/$1/smaps_rollup"; }
        echo "daemon_private_kb=$(private_kb "$pid")"
        # A year of history, its report and its timesheet as HTML and as PDF: the daemon keeps
        # nothing of them.
        /usr/bin/python3 -c 'import datetime as d
        t = d.datetime(2025, 1, 1, 8, tzinfo=d.timezone.utc)
        print("project,color,start,end,duration")
        for i in range(1500):
            a = t + d.timedelta(hours=6 * i)
            print(f"Client {i % 4},#FF8800,{a.isoformat()},{(a + d.timedelta(minutes=90)).isoformat()},")' >year.csv
        biomatimer import year.csv >/dev/null; echo "import=$?"
        { biomatimer report --year --date 2025-06-01 >/dev/null && biomatimer report --year --date 2025-06-01 --html year.html &&
            biomatimer report --year --date 2025-06-01 --pdf year.pdf; }; echo "reports=$?"
        printf 'pdf=%s\n' "$(head -c 5 year.pdf)"
        sleep 1
        echo "daemon_after_reports_kb=$(private_kb "$pid")"
        biomatimer tray >tray.log 2>&1 &
        tray=$!
        i=0
        until gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.NameHasOwner org.biomatimer.Tray | grep -q true; do
            [ $i -ge 100 ] && break
            sleep 0.1; i=$((i + 1))
        done
        [ $i -lt 100 ] && echo "tray=on the bus"
        sleep 0.5
        echo "tray_private_kb=$(private_kb "$tray")"
        kill "$tray" 2>/dev/null
        biomatimer stop >/dev/null
        kill "$pid"
        exit 0
        """#
}
