import BiomaDaemon
import BiomaInstall
import Foundation
import Testing

import TestSupport

/// `biomatimer install` and `uninstall`, as a new user runs them: into the places the session
/// bus, systemd, man and the shells look, honouring $HOME and $XDG_DATA_HOME; `--prefix` for
/// packagers.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct InstallTests {
    /// A user's home and data folder, fresh for the test.
    struct Home {
        let root: URL
        var home: String { root.appendingPathComponent("home").path }
        var data: String { root.appendingPathComponent("xdg-data").path }
        var environment: [String: String] {
            var env = ProcessInfo.processInfo.environment
            env["HOME"] = home
            env["XDG_DATA_HOME"] = data
            env["XDG_CONFIG_HOME"] = root.appendingPathComponent("xdg-config").path
            env["DBUS_SESSION_BUS_ADDRESS"] = nil
            env["XDG_RUNTIME_DIR"] = nil
            return env
        }
        init() throws {
            root = try makeTemporaryDirectory("biomatimer-home")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        }
    }

    @Test func aUserInstallIsWhereTheBusAndTheShellsLookAndActivationStartsIt() throws {
        let h = try Home()
        defer { try? FileManager.default.removeItem(at: h.root) }
        let r = try runProcess(DaemonFixture.binary, ["install"], environment: h.environment)
        #expect(r.status == 0, "\(r.stderr)")
        let expected = [
            "\(h.home)/.local/libexec/biomatimer/biomatimer-tool", "\(h.home)/.local/libexec/biomatimer/biomatimerd",
            "\(h.home)/.local/bin/biomatimer", "\(h.data)/dbus-1/services/org.biomatimer.Timer1.service",
            "\(h.data)/systemd/user/biomatimer.service", "\(h.data)/man/man1/biomatimer.1",
            "\(h.data)/bash-completion/completions/biomatimer", "\(h.data)/zsh/site-functions/_biomatimer",
            "\(h.data)/fish/vendor_completions.d/biomatimer.fish",
            "\(h.data)/gnome-shell/extensions/biomatimer@biomatimer.org/extension.js",
            "\(h.data)/gnome-shell/extensions/biomatimer@biomatimer.org/metadata.json",
            "\(h.data)/gnome-shell/extensions/biomatimer@biomatimer.org/stylesheet.css",
            "\(h.data)/systemd/user/biomatimer-tray.service", "\(h.root.path)/xdg-config/autostart/biomatimer-tray.desktop",
            "\(h.home)/.local/libexec/biomatimer/biomatimer-tray",
        ]
        // It says what it wrote, and wrote exactly that; with GNOME Shell installed (not
        // running here), how to turn the top bar extension on.
        let gnome = GnomeShellExtension.installedVersion().map {
            "\($0): to show biomatimer in the top bar, log in to GNOME again and run "
                + "`gnome-extensions enable biomatimer@biomatimer.org` (or turn it on in the Extensions app).\n"
        }
        #expect(gnome != nil, "gnome-shell is not installed (`make deps`)")
        #expect(r.stdout == expected.map { "installed \($0)\n" }.joined()
            + "The session bus now starts the daemon on the first call (run `biomatimer status` to try).\n" + (gnome ?? ""))
        for path in expected { #expect(FileManager.default.fileExists(atPath: path), "\(path)") }
        #expect(try String(contentsOfFile: expected[5], encoding: .utf8).contains("reset-history"))
        #expect(try String(contentsOfFile: expected[7], encoding: .utf8).contains("reset-history"))
        #expect(try String(contentsOfFile: expected[8], encoding: .utf8).contains("reset-history"))
        // Twice is harmless: the same files, the same answer.
        let again = try runProcess(DaemonFixture.binary, ["install"], environment: h.environment)
        #expect(again.status == 0 && again.stdout == r.stdout, "\(again.stderr)")

        // A real session bus (dbus-run-session's standard service folders include
        // $XDG_DATA_HOME/dbus-1/services): the installed front's first call starts the installed
        // daemon, which keeps its data in $XDG_DATA_HOME/biomatimer.
        let script = """
            set -e
            "$HOME/.local/bin/biomatimer" toggle --print
            pid=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                org.freedesktop.DBus.GetConnectionUnixProcessID string:org.biomatimer.Timer1 | awk '{print $2}')
            readlink "/proc/$pid/exe"
            "$HOME/.local/bin/biomatimer" status --format '{state}'
            echo "$pid"
            """
        let session = try runProcess("/usr/bin/dbus-run-session", ["--", "/bin/sh", "-c", script], environment: h.environment)
        #expect(session.status == 0, "\(session.stderr)")
        let said = session.stdout.split(separator: "\n").map(String.init)
        #expect(said.prefix(3) == ["running", "\(h.home)/.local/libexec/biomatimer/biomatimerd", "running"], "\(session.stderr)")
        // The daemon ends with its bus; its last write (the heartbeat of a running timer) is
        // done once the process is gone.
        let pid = try #require(said.last.flatMap { Int32($0) })
        #expect(waitUntil(timeout: 10) { kill(pid, 0) != 0 }, "the daemon outlived its bus")
        #expect(FileManager.default.fileExists(atPath: "\(h.data)/biomatimer/biomatimer.sqlite"))

        // man renders the page; bash loads the completion.
        var manEnv = h.environment
        manEnv["MANWIDTH"] = "80"
        let man = try runProcess("/usr/bin/man", ["-l", expected[5]], environment: manEnv)
        #expect(man.status == 0, "\(man.stderr)")
        #expect(man.stdout.contains("biomatimer reset-history") && man.stdout.contains("EXIT STATUS"), "\(man.stdout.prefix(400))")
        let bash = try runProcess("/bin/bash", ["-c", "source \"$1\" && complete -p biomatimer", "bash", expected[6]])
        #expect(bash.stdout == "complete -o filenames -F _biomatimer biomatimer\n", "\(bash.stderr)")
        // The unit's Documentation= line names that page.
        #expect(try String(contentsOfFile: expected[4], encoding: .utf8).contains("Documentation=man:biomatimer(1)\n"))

        // Uninstall removes all of it, and not one byte of the data.
        let before = try snapshot(of: "\(h.data)/biomatimer")
        #expect(!before.isEmpty)
        let u = try runProcess("\(h.home)/.local/bin/biomatimer", ["uninstall"], environment: h.environment)
        #expect(u.status == 0, "\(u.stderr)")
        #expect(u.stdout == expected.map { "removed \($0)\n" }.joined() + "Recorded time and settings were left as they were.\n")
        for path in expected { #expect(!FileManager.default.fileExists(atPath: path), "\(path) is still there") }
        #expect(!FileManager.default.fileExists(atPath: "\(h.home)/.local"), "the folders install made are gone")
        #expect(try snapshot(of: "\(h.data)/biomatimer") == before)
        // Nothing left to remove: said so, exit 1.
        let twice = try runProcess(DaemonFixture.binary, ["uninstall"], environment: h.environment)
        #expect(twice.status == 1 && twice.stderr.hasPrefix("biomatimer: nothing to uninstall: "), "\(twice.stderr)")
    }

    @Test func aPrefixIsForPackagersAndTildeIsHome() throws {
        let h = try Home()
        defer { try? FileManager.default.removeItem(at: h.root) }
        // With --taskwarrior, Taskwarrior's hook too, in $TASKDATA/hooks, naming the installed front.
        var env = h.environment
        env["TASKDATA"] = "\(h.home)/taskdata"
        let r = try runProcess(DaemonFixture.binary, ["install", "--prefix", "~/pkg", "--taskwarrior"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let hook = "\(h.home)/taskdata/hooks/on-modify.biomatimer"
        #expect(try String(contentsOfFile: hook, encoding: .utf8) == Installer.taskwarriorHook(front: "\(h.home)/pkg/bin/biomatimer"))
        #expect(access(hook, X_OK) == 0 && r.stdout.contains("installed \(hook)"))
        for path in [
            "bin/biomatimer", "libexec/biomatimer/biomatimer-tool", "libexec/biomatimer/biomatimerd",
            "libexec/biomatimer/biomatimer-tray",
            "share/dbus-1/services/org.biomatimer.Timer1.service", "share/systemd/user/biomatimer.service",
            "share/man/man1/biomatimer.1", "share/bash-completion/completions/biomatimer",
            "share/gnome-shell/extensions/biomatimer@biomatimer.org/extension.js",
        ] {
            #expect(FileManager.default.fileExists(atPath: "\(h.home)/pkg/\(path)"), "\(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(h.data)/dbus-1"), "a prefix install leaves the user's folders alone")
        let u = try runProcess(DaemonFixture.binary, ["uninstall", "--prefix", "~/pkg"], environment: h.environment)
        #expect(u.status == 0, "\(u.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(h.home)/pkg"))
        #expect(!FileManager.default.fileExists(atPath: hook))
    }

    /// Every file below `path` with its bytes.
    private func snapshot(of path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in FileManager.default.subpaths(atPath: path) ?? [] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(path)/\(name)", isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = FileManager.default.contents(atPath: "\(path)/\(name)")
            }
        }
        return files
    }

    @Test func thePrefixInstallStartsFromAPrivateBusAndCarriesTheTemplates() throws {
        let prefix = try makeTemporaryDirectory("biomatimer-prefix")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let r = try runProcess(DaemonFixture.binary, ["install", "--prefix", prefix.path])
        #expect(r.status == 0, "\(r.stderr)")
        let bin = prefix.appendingPathComponent("bin/biomatimer").path
        #expect(FileManager.default.isExecutableFile(atPath: bin))
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("libexec/biomatimer/biomatimer-tool").path))
        #expect(FileManager.default.isExecutableFile(atPath: prefix.appendingPathComponent("libexec/biomatimer/biomatimerd").path))
        // The installed front finds the installed tool (help is the tool's).
        let help = try runProcess(bin, ["--help"])
        #expect(help.status == 0 && help.stdout.contains("Exit codes"), "\(help.stderr)")
        let activation = try String(
            contentsOf: prefix.appendingPathComponent("share/dbus-1/services/org.biomatimer.Timer1.service"), encoding: .utf8)
        #expect(activation.contains("Exec=\(prefix.path)/bin/biomatimer daemon\n"))
        let unit = try String(contentsOf: prefix.appendingPathComponent("share/systemd/user/biomatimer.service"), encoding: .utf8)
        #expect(unit.contains("Type=dbus\n"))
        #expect(unit.contains("BusName=org.biomatimer.Timer1\n"))
        // The templates in dbus/ are the ones the binary carries.
        for (file, template) in [
            ("dbus/org.biomatimer.Timer1.service.in", Installer.activationTemplate),
            ("dbus/biomatimer.service.in", Installer.unitTemplate),
        ] {
            #expect(try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8) == template, "\(file)")
        }
        // A bus whose service folder holds the installed file starts the installed binary.
        let bus = try PrivateBus()
        let data = try makeTemporaryDirectory("biomatimer-data")
        defer { try? FileManager.default.removeItem(at: data) }
        try activation.replacingOccurrences(of: "biomatimer daemon", with: "biomatimer daemon --data-dir \(data.path)")
            .write(to: bus.serviceDirectory.appendingPathComponent("org.biomatimer.Timer1.service"), atomically: true, encoding: .utf8)
        let status = try runProcess(bin, ["status"], environment: bus.environment)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout == "0:00:00 (0:00:00)\n")
        if let pid = try? DaemonFixture.daemonPID(onBus: bus.address) { kill(pid, SIGTERM) }
    }
}
