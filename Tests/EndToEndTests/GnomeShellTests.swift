import BiomaInstall
import Foundation
import Testing

import TestSupport

/// Debian's GNOME Shell 43 (X11, on Xvfb) as an unprivileged user, with the extension that
/// `biomatimer install` wrote and the daemon its activation file starts, on the session's
/// own bus (Tests/harness/xvfb-gnome-shell.sh). Screenshots are read for the dot's solid
/// colour (text pixels come out a step off; fills are exact); clicks go through xdotool.
@Suite(.ownThreadLong, .timeLimit(.minutes(3)))
struct GnomeShellTests {
    static let tools = [
        "/usr/bin/gnome-shell", "/usr/bin/Xvfb", "/usr/bin/xwd", "/usr/bin/xwdtopnm", "/usr/bin/pnmtopng", "/usr/bin/xdotool",
        "/usr/bin/gjs", "/usr/bin/gsettings", "/usr/bin/gdbus", "/usr/bin/dbus-run-session",
    ]
    /// The top bar's rows.
    static let panel = 0..<28
    static let clientA: UInt32 = 0xff8800
    static let clientB: UInt32 = 0x2ec27e
    static let hostileColour: UInt32 = 0xc061cb
    /// The hollow dot's ring (stylesheet.css) while stopped, and while the daemon is away.
    static let stoppedRing: UInt32 = 0x9a9996
    static let offlineRing: UInt32 = 0x5e5c64

    /// One run of the harness: its folder, the user's home, and commands in its session.
    struct Session {
        let root: URL
        var dir: String { root.appendingPathComponent("run").path }
        var home: String { root.appendingPathComponent("home").path }
        let harness = repositoryRoot.appendingPathComponent("Tests/harness/xvfb-gnome-shell.sh").path

        func harness(_ arguments: [String], timeout: TimeInterval = 20) throws -> ProcessResult {
            try runProcess("/bin/sh", [harness] + arguments, timeout: timeout)
        }

        /// COMMAND as the session's user, in its environment.
        func run(_ command: [String], timeout: TimeInterval = 20) throws -> ProcessResult {
            try harness(["run", "--dir", dir, "--"] + command, timeout: timeout)
        }

        /// `biomatimer ARGS` as installed for the user (its activation file names that copy).
        @discardableResult
        func cli(_ arguments: [String]) throws -> ProcessResult {
            try run(["\(home)/.local/bin/biomatimer"] + arguments)
        }

        /// The state as `status --json` reports it.
        func status() throws -> [String: Any] {
            let r = try cli(["status", "--json"])
            return (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
        }

        var daemonOnBus: Bool {
            let r = try? run([
                "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                "--method", "org.freedesktop.DBus.NameHasOwner", "org.biomatimer.Timer1",
            ])
            return r?.stdout.contains("true") ?? false
        }

        func screen() throws -> Screen {
            let file = root.appendingPathComponent("screen.ppm").path
            let r = try harness(["shot", "--dir", dir, "--out", file])
            guard r.status == 0 else { throw TestSupportError("screenshot: \(r.stderr)") }
            return try Screen(ppm: file)
        }

        /// Waits (at most `timeout` seconds) for a screenshot that satisfies `condition`; the
        /// seconds it took and the last screenshot.
        func waitForScreen(timeout: TimeInterval = 10, _ condition: (Screen) -> Bool) throws -> (seconds: Double, screen: Screen, met: Bool) {
            let start = Date()
            var screen = try self.screen()
            while !condition(screen) {
                if Date().timeIntervalSince(start) > timeout { return (Date().timeIntervalSince(start), screen, false) }
                screen = try self.screen()
            }
            return (Date().timeIntervalSince(start), screen, true)
        }

        func click(_ point: (x: Int, y: Int), button: Int = 1) throws {
            let r = try harness(["click", "--dir", dir, "--at", "\(point.x),\(point.y),\(button)"])
            guard r.status == 0 else { throw TestSupportError("click: \(r.stderr)") }
        }

        /// Waits until `status --json` satisfies `condition`.
        func waitForStatus(timeout: TimeInterval = 10, _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
            let end = Date().addingTimeInterval(timeout)
            var last = try status()
            while !condition(last) && Date() < end {
                Thread.sleep(forTimeInterval: 0.05)
                last = try status()
            }
            return last
        }
    }

    @Test func theTopBarShowsTheTimerFollowsTheDaemonAndTakesClicks() throws {
        // Not while the package is installed system-wide (DebPackageTests): GNOME would find
        // the extension in /usr/share too, and say so in the log this test reads.
        systemWideInstall.lock()
        defer { systemWideInstall.unlock() }
        let missing = Self.tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        try #require(
            missing.isEmpty,
            "cannot run GNOME Shell on Xvfb: missing \(missing) (Debian packages gnome-shell gjs xvfb x11-apps netpbm xdotool; `make deps`)")
        let root = try makeTemporaryDirectory("gnome-shell")
        chmod(root.path, 0o755)
        let s = Session(root: root)
        let artefacts = repositoryRoot.appendingPathComponent(".build/artefacts/gnome-shell")
        try? FileManager.default.removeItem(at: artefacts)
        try FileManager.default.createDirectory(at: artefacts, withIntermediateDirectories: true)
        defer {
            // The last screen and the logs stay for a look (screenshot.png, shell.log, start.log).
            _ = try? s.harness(["shot", "--dir", s.dir, "--out", artefacts.appendingPathComponent("screenshot.png").path])
            _ = try? s.harness(["stop", "--dir", s.dir])
            for log in ["shell.log", "start.log"] {
                try? FileManager.default.copyItem(
                    at: URL(fileURLWithPath: s.dir).appendingPathComponent(log), to: artefacts.appendingPathComponent(log))
            }
            print("GNOME Shell artefacts (screenshot.png, shell.log, start.log): \(artefacts.path)")
            try? FileManager.default.removeItem(at: root)
        }
        let setup = try s.harness(["setup", "--dir", s.dir, "--home", s.home])
        try #require(setup.status == 0, "\(setup.stderr)")

        // The user installs biomatimer; no GNOME runs yet, so it says how to turn it on.
        let install = try s.run([DaemonFixture.binary, "install"], timeout: 60)
        try #require(install.status == 0, "\(install.stderr)")
        let folder = "\(s.home)/.local/share/gnome-shell/extensions/\(GnomeShellExtension.uuid)"
        for file in ["extension.js", "metadata.json", "stylesheet.css"] {
            #expect(install.stdout.contains("installed \(folder)/\(file)\n"), "\(install.stdout)")
        }
        #expect(install.stdout.contains("GNOME Shell 43.9: to show biomatimer in the top bar, log in to GNOME again and run `gnome-extensions enable \(GnomeShellExtension.uuid)`"), "\(install.stdout)")
        #expect(try String(contentsOfFile: "\(folder)/metadata.json", encoding: .utf8).contains(#""shell-version": ["43", "44"]"#))

        let started = try s.harness(["start", "--dir", s.dir, "--enable", GnomeShellExtension.uuid], timeout: 90)
        let shellLog = { (try? String(contentsOfFile: "\(s.dir)/shell.log", encoding: .utf8)) ?? "" }
        try #require(started.status == 0, "\(started.stderr)\n\(shellLog())")

        // Shown, the extension does not start the daemon: a quiet offline mark in the bar.
        let offline = try s.waitForScreen { $0.count(Self.offlineRing, rows: Self.panel) > 4 }
        #expect(offline.met, "no offline ring in the top bar")
        #expect(!s.daemonOnBus, "showing the extension started the daemon")

        // The first command starts the daemon; the bar follows the change and shows the
        // project's colour (0.07–0.2 s alone; each look is a screenshot). The bound only tells a
        // bar that follows the signal from one that polls every few seconds: a loaded machine
        // has taken over a second.
        try s.cli(["project", "add", "Client A", "--color", "#ff8800"]).requireSuccess("project add")
        try s.cli(["project", "add", "Client B", "--color", "#2ec27e"]).requireSuccess("project add")
        try s.cli(["project", "start", "Client A"]).requireSuccess("project start")
        let running = try s.waitForScreen { $0.count(Self.clientA, rows: Self.panel) > 20 }
        #expect(running.met, "the running project's colour never showed in the top bar")
        #expect(running.seconds < 3, "the change took \(running.seconds) s to reach the bar")
        print("GNOME Shell: Client A's colour reached the top bar \(running.seconds) s after `project start`")
        let dot = try #require(running.screen.centre(of: Self.clientA, rows: Self.panel))
        // The times tick: the label's pixels change while the project runs.
        let line = dot.x..<min(dot.x + 300, running.screen.width)
        let ticking = try s.waitForScreen(timeout: 3) { $0.digest(rows: Self.panel, columns: line) != running.screen.digest(rows: Self.panel, columns: line) }
        #expect(ticking.met, "the line did not move in 3 s while the project runs")

        // A click opens the menu; Client B's row has its dot; a click on the row starts it.
        try s.click(dot)
        let menu = try s.waitForScreen { $0.count(Self.clientB, rows: 40..<$0.height) > 20 }
        try #require(menu.met, "the menu with Client B's row did not open")
        let row = try #require(menu.screen.centre(of: Self.clientB, rows: 40..<menu.screen.height))
        try s.click((row.x + 60, row.y))
        let afterRow = try s.waitForStatus { $0["active_project_name"] as? String == "Client B" }
        #expect(afterRow["active_project_name"] as? String == "Client B", "\(afterRow)")
        #expect(try s.waitForScreen { $0.count(Self.clientB, rows: Self.panel) > 20 }.met, "Client B's colour is not in the bar")

        // Scrolling down over the indicator goes to the next project (wrapping to Client A).
        try s.click(dot, button: 5)
        let scrolled = try s.waitForStatus { $0["active_project_name"] as? String == "Client A" }
        #expect(scrolled["active_project_name"] as? String == "Client A", "\(scrolled)")

        // The middle button pauses the focus timer.
        try s.cli(["focus", "countdown", "10m", "--label", "Tea"]).requireSuccess("focus countdown")
        try s.click(dot, button: 2)
        let paused = try s.waitForStatus { ($0["focus"] as? [String: Any])?["state"] as? String == "paused" }
        #expect((paused["focus"] as? [String: Any])?["state"] as? String == "paused", "\(paused)")
        try s.cli(["focus", "stop"]).requireSuccess("focus stop")

        // A hostile name (markup, right-to-left text, 500 characters pass through the
        // properties only up to the daemon's 64) is shown, in its colour, with no JS error.
        let hostile = ##"R&D <b>"x"</b> עבודה %{F#f00} &amp; <span>"##
        try s.cli(["project", "add", hostile, "--color", "#c061cb"]).requireSuccess("project add hostile")
        try s.cli(["project", "start", hostile]).requireSuccess("project start hostile")
        #expect(try s.waitForScreen { $0.count(Self.hostileColour, rows: Self.panel) > 20 }.met, "the hostile project's colour is not in the bar")

        // Stopped: hollow and grey.
        try s.cli(["stop"]).requireSuccess("stop")  // work and the project
        let stopped = try s.waitForScreen {
            $0.count(Self.hostileColour, rows: Self.panel) == 0 && $0.count(Self.stoppedRing, rows: Self.panel) > 4
        }
        #expect(stopped.met, "the stopped timer's hollow grey dot did not show")

        // The daemon goes away: offline. It comes back with the next command: followed again.
        let pid = try #require(try Self.daemonPID(s))
        kill(pid, SIGTERM)
        #expect(try s.waitForScreen { $0.count(Self.offlineRing, rows: Self.panel) > 4 }.met, "the daemon's absence was not shown")
        try s.cli(["project", "start", "Client B"]).requireSuccess("project start after the restart")
        #expect(try s.waitForScreen { $0.count(Self.clientB, rows: Self.panel) > 20 }.met, "the daemon's return was not followed")

        // Installing again while GNOME runs enables the extension (after it was turned off):
        // GNOME turns it back on at once, since it knows it already.
        _ = try s.run(["gsettings", "set", "org.gnome.shell", "enabled-extensions", "[]"])
        #expect(try s.waitForScreen { $0.count(Self.clientB, rows: Self.panel) == 0 }.met, "disabling did not remove the indicator")
        let again = try s.run([DaemonFixture.binary, "install"], timeout: 60)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("GNOME Shell 43.9: the top bar extension \(GnomeShellExtension.uuid) is enabled"), "\(again.stdout)")
        let enabled = try s.run(["gsettings", "get", "org.gnome.shell", "enabled-extensions"])
        #expect(enabled.stdout.contains("'\(GnomeShellExtension.uuid)'"), "\(enabled.stdout)")
        #expect(try s.waitForScreen { $0.count(Self.clientB, rows: Self.panel) > 20 }.met, "enabled again, the indicator did not come back")

        // Uninstall removes the extension's folder.
        let removed = try s.cli(["uninstall"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder), "uninstall left \(folder)")

        let log = shellLog()
        for problem in ["JS ERROR", "JS WARNING", "biomatimer@"] {
            #expect(!log.contains(problem), "the shell's log holds \(problem):\n\(log)")
        }
    }

    /// The pid of the process that owns the daemon's name on the session's bus.
    static func daemonPID(_ s: Session) throws -> pid_t? {
        let r = try s.run([
            "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
            "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.biomatimer.Timer1",
        ])
        // `(uint32 1234,)`
        return r.stdout.split(whereSeparator: { !$0.isNumber }).compactMap { pid_t($0) }.last
    }
}

/// A screenshot as a binary PPM (what xwdtopnm writes): exact RGB values.
struct Screen: CustomStringConvertible {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    init(ppm path: String) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // "P6", width, height, maximum, each after white space; one white space before the data.
        var fields: [String] = []
        var index = 0
        while fields.count < 4 && index < data.count {
            while index < data.count && (data[index] == 0x20 || data[index] == 0x0A || data[index] == 0x09 || data[index] == 0x0D) { index += 1 }
            var field = ""
            while index < data.count && !(data[index] == 0x20 || data[index] == 0x0A || data[index] == 0x09 || data[index] == 0x0D) {
                field.append(Character(UnicodeScalar(data[index])))
                index += 1
            }
            fields.append(field)
        }
        guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255" else {
            throw TestSupportError("not a binary PPM: \(path) \(fields)")
        }
        index += 1
        guard data.count - index >= w * h * 3 else { throw TestSupportError("short PPM: \(path)") }
        width = w
        height = h
        pixels = Array(data[index..<index + w * h * 3])
    }

    /// Its size only: a failed expectation does not print a million pixels.
    var description: String { "a \(width)×\(height) screenshot" }

    func pixel(_ x: Int, _ y: Int) -> UInt32 {
        let i = (y * width + x) * 3
        return UInt32(pixels[i]) << 16 | UInt32(pixels[i + 1]) << 8 | UInt32(pixels[i + 2])
    }

    /// Pixels of exactly `colour` in `rows`.
    func points(_ colour: UInt32, rows: Range<Int>) -> [(x: Int, y: Int)] {
        var found: [(x: Int, y: Int)] = []
        for y in rows where y < height {
            for x in 0..<width where pixel(x, y) == colour { found.append((x, y)) }
        }
        return found
    }

    func count(_ colour: UInt32, rows: Range<Int>) -> Int { points(colour, rows: rows).count }

    /// The centre of the pixels of `colour` in `rows`, nil when there are none.
    func centre(of colour: UInt32, rows: Range<Int>) -> (x: Int, y: Int)? {
        let found = points(colour, rows: rows)
        guard !found.isEmpty else { return nil }
        return (found.map(\.x).reduce(0, +) / found.count, found.map(\.y).reduce(0, +) / found.count)
    }

    /// The pixels of a rectangle, to see whether it changed.
    func digest(rows: Range<Int>, columns: Range<Int>) -> [UInt8] {
        var digest: [UInt8] = []
        for y in rows where y < height { digest += pixels[(y * width + columns.lowerBound) * 3..<(y * width + columns.upperBound) * 3] }
        return digest
    }
}
