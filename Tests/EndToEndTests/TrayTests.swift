import BiomaInstall
import BiomaClient
import DBusKit
import Foundation
import TestSupport
import Testing

/// The stand-in watcher and host (Tests/peers/sni_watcher.py, python3-dbus): its JSON lines
/// and its commands.
final class TrayHost: @unchecked Sendable {
    let process: ChildProcess
    private let store = Store()
    private var condition: NSCondition { store.condition }
    private var lines: [[String: Any]] { store.lines }

    /// The lines read, shared with the reading thread (which must not keep the host alive).
    private final class Store: @unchecked Sendable {
        let condition = NSCondition()
        var lines: [[String: Any]] = []
    }

    init(environment: [String: String]) throws {
        process = try ChildProcess(
            "/usr/bin/python3", [repositoryRoot.appendingPathComponent("Tests/peers/sni_watcher.py").path],
            environment: environment, pipeInput: true)
        Thread.detachNewThread { [process, store] in
            while let line = process.readLine() {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
                store.condition.lock()
                store.lines.append(object)
                store.condition.broadcast()
                store.condition.unlock()
            }
        }
        guard wait(for: { $0["ready"] != nil }) != nil else {
            process.terminate(grace: 1)
            let why = String(decoding: process.stderr?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            throw TestSupportError("the stand-in watcher did not start: \(why)")
        }
    }

    deinit { process.terminate(grace: 1) }

    var all: [[String: Any]] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// The first line from `start` on that matches, waiting up to `timeout` seconds.
    func wait(from start: Int = 0, timeout: TimeInterval = 10, for match: ([String: Any]) -> Bool) -> [String: Any]? {
        let end = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        var index = start
        while true {
            while index < lines.count {
                if match(lines[index]) { return lines[index] }
                index += 1
            }
            if !condition.wait(until: end) { return nil }
        }
    }

    /// Sends a command; its reply (`reply`) or failure (`error`).
    @discardableResult
    func command(_ text: String) throws -> [String: Any] {
        let start = all.count
        let name = String(text.split(separator: " ").first ?? "")
        try process.stdin!.write(contentsOf: Data((text + "\n").utf8))
        guard let answer = wait(from: start, for: { ($0["reply"] as? String) == name || ($0["error"] as? String) == name }) else {
            throw TestSupportError("no answer to \(text)")
        }
        return answer
    }

    func signals(from start: Int, _ member: String) -> Int {
        all.dropFirst(start).filter { ($0["signal"] as? String) == member }.count
    }

    var registrations: [[String: Any]] { all.filter { $0["registered"] != nil } }

    /// The item's properties (`GetAll`).
    func properties() throws -> [String: Any] { try command("getall")["properties"] as? [String: Any] ?? [:] }

    /// The menu's rows, depth first, from `GetLayout(0, -1, [])`.
    func rows() throws -> (revision: Int, rows: [[String: Any]]) {
        let reply = try command("layout")
        var out: [[String: Any]] = []
        func walk(_ row: [String: Any]) {
            out.append(row)
            for child in row["children"] as? [[String: Any]] ?? [] { walk(child) }
        }
        walk(reply["root"] as? [String: Any] ?? [:])
        return (reply["revision"] as? Int ?? -1, out)
    }
}

extension [String: Any] {
    var label: String { (self["props"] as? [String: Any])?["label"] as? String ?? "" }
    var id: Int { self["id"] as? Int ?? -1 }
}

@Suite(.ownThreadLong, .serialized) struct TrayTests {
    static let binary = DaemonFixture.binary

    /// A daemon with two projects, Client A running; the tray started on the same bus, with
    /// `environment` changed by `adjust`, by a shell that ignores `ignoring` first when given.
    static func setUp(
        ignoring: String? = nil, _ adjust: (inout [String: String]) -> Void = { _ in }
    ) throws -> (DaemonFixture, ChildProcess, [String: String]) {
        let f = try DaemonFixture()
        try f.cliOK(["project", "add", "Client A", "--color", "#12AB9F"])
        try f.cliOK(["project", "add", "R&D_2 <b>", "--color", "#E04010"])
        try f.cliOK(["project", "start", "Client A"])
        var environment = f.environment
        adjust(&environment)
        let tray = try ignoring.map {
            try ChildProcess("/bin/sh", ["-c", "trap '' \($0); exec \"$0\" tray", binary], environment: environment)
        } ?? ChildProcess(binary, ["tray"], environment: environment)
        return (f, tray, environment)
    }

    /// Waits until the host sees what the tray read from the daemon (the work row says "Stop
    /// work" or "Start work"), and the item's properties then. The status cannot say it: the
    /// item stays `Active` while stopped, since waybar hides `Passive` items.
    static func itemShows(_ host: TrayHost, working: Bool) throws -> [String: Any] {
        let prefix = working ? "Stop work · " : "Start work · "
        _ = try waitUntil { try host.rows().rows.dropFirst().first?.label.hasPrefix(prefix) == true }
        return try host.properties()
    }

    /// The menu's rows once one of them matches (the last read when none does in time).
    static func rows(of host: TrayHost, containing match: @escaping ([String: Any]) -> Bool) throws -> [[String: Any]] {
        var rows: [[String: Any]] = []
        _ = try waitUntil {
            rows = try host.rows().rows
            return rows.contains(where: match)
        }
        return rows
    }

    @Test func registersAndShowsTheRunningProject() throws {
        let (f, tray, env) = try Self.setUp()
        defer { tray.terminate() }
        let host = try TrayHost(environment: env)
        let registered = try #require(host.wait { $0["registered"] != nil })
        #expect(registered["registered"] as? String == registered["sender"] as? String)
        let p = try Self.itemShows(host, working: true)
        #expect(p["Id"] as? String == "biomatimer")
        #expect(p["Category"] as? String == "ApplicationStatus")
        #expect(p["IconName"] as? String == "")
        #expect(p["ItemIsMenu"] as? Bool == false)
        #expect(p["Menu"] as? String == "/MenuBar")
        let pixmaps = try #require(p["IconPixmap"] as? [[String: Any]])
        #expect(pixmaps.map { $0["w"] as? Int } == [16, 22, 24, 32, 48])
        #expect(pixmaps.map { $0["h"] as? Int } == [16, 22, 24, 32, 48])
        #expect(pixmaps.map { $0["len"] as? Int } == [16, 22, 24, 32, 48].map { $0 * $0 * 4 })
        // Network byte order: A, R, G, B; the running project's colour at the centre.
        for image in pixmaps { #expect(image["centre"] as? [Int] == [255, 0x12, 0xAB, 0x9F]) }
        let tip = try #require(p["ToolTip"] as? [Any])
        #expect((tip[2] as? String)?.hasSuffix(" · Client A") == true)
        // One registration for one watcher.
        #expect(host.registrations.count == 1)
        _ = f
    }

    @Test func menuLayoutGroupPropertiesAndClicksReachTheDaemon() throws {
        let (f, tray, env) = try Self.setUp()
        defer { tray.terminate() }
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        let rows = try Self.rows(of: host) { $0.label.hasPrefix("R&D__2 <b> · ") }
        let rd = try #require(rows.first { $0.label.hasPrefix("R&D__2 <b> · ") })
        let client = try #require(rows.first { $0.label.hasPrefix("Client A · ") })
        // GetGroupProperties carries the radio state and the PNG dot.
        let group = try host.command("group \(client.id),\(rd.id)")["rows"] as? [[String: Any]] ?? []
        let props = group.map { $0["props"] as? [String: Any] ?? [:] }
        #expect(props.map { $0["toggle-type"] as? String } == ["radio", "radio"])
        #expect(props.map { $0["toggle-state"] as? Int } == [1, 0])
        #expect(props.allSatisfy { ($0["icon-data"] as? [Int])?.prefix(4) == [0x89, 0x50, 0x4E, 0x47] })

        // A click on a project row (EventGroup, as waybar sends it) starts that project.
        let start = host.all.count
        #expect(try host.command("eventgroup \(rd.id) clicked")["idErrors"] as? [Int] == [])
        #expect(try waitUntil { try f.properties()["ActiveProjectName"]?.string == "R&D_2 <b>" })
        #expect(host.wait(from: start) { ($0["signal"] as? String) == "NewIcon" } != nil)
        _ = try waitUntil { (try host.properties()["IconPixmap"] as? [[String: Any]])?.first?["centre"] as? [Int] == [255, 0xE0, 0x40, 0x10] }
        #expect((try host.properties()["IconPixmap"] as? [[String: Any]])?.last?["centre"] as? [Int] == [255, 0xE0, 0x40, 0x10])
        // The menu's revision is the one announced.
        let beforeAdd = host.all.count
        try f.cliOK(["project", "add", "Errands"])
        let updated = try #require(host.wait(from: beforeAdd) { ($0["signal"] as? String) == "LayoutUpdated" })
        let announced = try #require((updated["args"] as? [Int])?.first)
        #expect(try host.rows().revision == announced)
        #expect(try host.rows().rows.contains { $0.label == "Errands · 0:00:00" })

        // A left click (Activate) toggles work.
        #expect(try f.properties()["Running"]?.bool == true)
        try host.command("activate")
        #expect(try waitUntil { try f.properties()["Running"]?.bool == false })
        _ = try Self.itemShows(host, working: false)

        // Event (the older form) on the work row starts work again.
        try host.command("event 1 clicked")
        #expect(try waitUntil { try f.properties()["Running"]?.bool == true })
    }

    /// The lists the menu reads beside the published state (`ListProjects`, `ListTasks`,
    /// `ListPresets`) reach it through the contract's result tables: a budget's use, a due
    /// task, a preset. Presets have no change signal: the tray reads them when the menu is
    /// opened (`AboutToShow` on the root, which every host calls first), so one added while
    /// the tray runs is in the menu the next time it opens.
    @Test func theDaemonsListsReachTheMenu() throws {
        let (f, tray, env) = try Self.setUp()
        defer { tray.terminate() }
        try f.cliOK(["project", "edit", "Client A", "--budget", "10h", "--per", "total"])
        try f.cliOK(["focus", "preset", "add", "Tea", "countdown", "--duration", "4m"])
        try f.cliOK(["task", "add", "Pay rent", "--due=-10m", "--no-remind"])
        try f.cliOK(["task", "add", "Later", "--due", "+2h", "--no-remind"])
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        // The menu opens. The three lists are three calls, and each answer rebuilds the menu:
        // wait for the last.
        _ = try host.command("abouttoshow 0")
        var rows = try host.rows().rows
        _ = try waitUntil {
            rows = try host.rows().rows
            return rows.contains { $0.label == "Tasks due (1)" } && rows.contains { $0.label == "Preset: Tea" }
        }
        #expect(rows.contains { $0.label == "Tasks due (1)" }, "\(rows.map(\.label))")
        #expect(rows.contains { $0.label.hasPrefix("⚑ Pay rent  ") })
        #expect(!rows.contains { $0.label.hasPrefix("⚑ Later") })
        #expect(rows.contains { $0.label == "Preset: Tea" })
        let client = try #require(rows.first { $0.label.hasPrefix("Client A · ") })
        #expect(client.label.contains(" · budget 0:") && client.label.hasSuffix("/10:00"), "\(client.label)")

        // A preset added now is in the menu when it next opens.
        try f.cliOK(["focus", "preset", "add", "Coffee", "countdown", "--duration", "3m"])
        _ = try host.command("abouttoshow 0")
        let reopened = try Self.rows(of: host) { $0.label == "Preset: Coffee" }
        #expect(reopened.contains { $0.label == "Preset: Coffee" }, "\(reopened.map(\.label))")
    }

    @Test func hostileCallsAnswerErrorsAndChangeNothing() throws {
        let (f, tray, env) = try Self.setUp()
        defer { tray.terminate() }
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        let before = try f.durableState()
        let revision = try host.rows().revision
        let calls = [
            "eventgroup 99999 clicked", "eventgroup 1 explode", "event 99999 clicked", "event 1 explode", "abouttoshow 99999",
            "group 99999", "scroll 1 diagonal",
            #"raw Menu GetLayout ["dbus.String('x')"]"#,
            #"raw Menu GetLayout ["dbus.Int32(0)", "dbus.Int32(-7)", "dbus.Array([], signature='s')"]"#,
            #"raw Menu GetGroupProperties ["dbus.Array(range(100000), signature='i')", "dbus.Array([], signature='s')"]"#,
            #"raw Menu EventGroup ["dbus.Array([(1, 'clicked', dbus.String('', variant_level=1), 0)] * 5000, signature='(isvu)')"]"#,
            #"raw Item Activate ["dbus.String('x')"]"#,
            #"raw Menu GetProperty ["dbus.Int32(1)", "'no-such-property'"]"#,
        ]
        for call in calls {
            let answer = try host.command(call)
            #expect(answer["error"] != nil, "\(call) answered \(answer)")
            #expect((answer["name"] as? String)?.hasPrefix("org.freedesktop.DBus.Error.") == true, "\(call): \(answer)")
        }
        #expect(try f.durableState() == before)
        #expect(try host.rows().revision == revision)
        #expect(tray.status == nil, "the tray still runs")
    }

    @Test func signalsAfterAChangeAndNoWakeUpsWhileNothingChanges() throws {
        let (f, tray, env) = try Self.setUp()
        defer { tray.terminate() }
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        try f.cliOK(["stop"])
        _ = try Self.itemShows(host, working: false)
        // Stopped: the tray does not wake up (no context switch in any of its threads).
        let idle = try #require(quietContextSwitches(of: tray.pid))
        _ = host.wait(timeout: 0.3) { _ in false }  // what the tray sent before has arrived
        let start = host.all.count
        _ = host.wait(from: start, timeout: 1.5) { _ in false }
        #expect(contextSwitches(of: tray.pid) == idle, "the idle tray woke up")
        #expect(host.all.count == start, "signals while nothing changed")

        // One change: one of each New* signal whose value changed (the status stays Active).
        try f.cliOK(["project", "start", "R&D_2 <b>"])
        #expect(host.wait(from: start) { ($0["signal"] as? String) == "NewToolTip" } != nil)
        _ = host.wait(from: host.all.count, timeout: 0.5) { _ in false }
        #expect(host.signals(from: start, "NewIcon") == 1)
        #expect(host.signals(from: start, "NewAttentionIcon") == 1)
        #expect(host.signals(from: start, "NewStatus") == 0)
        #expect(host.signals(from: start, "NewToolTip") == 1)
    }

    @Test func registersOnceAgainForEachNewWatcher() throws {
        let (f, tray, env) = try Self.setUp()
        defer {
            tray.terminate()
            _ = f  // the bus lives as long as the test
        }
        var host: TrayHost? = try TrayHost(environment: env)
        let first = try #require(host?.wait { $0["registered"] != nil })
        host?.process.terminate(grace: 1)  // the watcher goes away (a host restarting)
        host = nil
        let again = try TrayHost(environment: env)
        let second = try #require(again.wait { $0["registered"] != nil })
        #expect(second["registered"] as? String == first["registered"] as? String)
        _ = again.wait(timeout: 1) { _ in false }
        #expect(again.registrations.count == 1)
        #expect((try again.properties())["Id"] as? String == "biomatimer")
    }

    /// A watcher that refuses the item (a panel still starting on a busy machine) is asked
    /// again a second later, and the item shows: before, the tray asked once and the icon
    /// stayed missing until the panel restarted.
    @Test func registersAgainAfterTheWatcherRefused() throws {
        let (f, tray, env) = try Self.setUp()
        defer {
            tray.terminate()
            _ = f  // the bus lives as long as the test
        }
        var refusing = env
        refusing["SNI_REFUSE"] = "2"
        let host = try TrayHost(environment: refusing)
        #expect(host.wait { $0["refused"] != nil } != nil)
        let registered = try #require(host.wait(timeout: 15) { $0["registered"] != nil })
        #expect(host.all.filter { $0["refused"] != nil }.count == 2)
        #expect(registered["registered"] as? String == host.all.first { $0["refused"] != nil }?["refused"] as? String)
        #expect((try host.properties())["Id"] as? String == "biomatimer")
    }

    @Test func survivesTheDaemonsRestartAndExitsWhenTheBusGoes() throws {
        let (f, tray, env) = try Self.setUp()
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        let pid = try #require(try f.daemonPID())
        kill(pid, SIGKILL)
        // Offline: hollow grey, the menu offers to start work and to quit.
        #expect(try waitUntil { try host.rows().rows.count == 4 })
        #expect(try host.rows().rows.dropFirst().first?.label == "Start work (the daemon is offline)")
        // A click starts the daemon by activation and the tray follows it again.
        try host.command("activate")
        #expect(try waitUntil { try host.rows().rows.contains { $0.label.hasPrefix("Client A · ") } })

        f.bus.stop()
        #expect(waitUntil { tray.status != nil })
        #expect(tray.status == 3)
        let message = String(decoding: tray.stderr?.availableData ?? Data(), as: UTF8.self)
        #expect(message.contains("the session bus is gone"))
    }

    @Test func oneTrayASession() throws {
        let (f, tray, env) = try Self.setUp()
        defer { tray.terminate() }
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        let second = try runProcess(Self.binary, ["tray"], environment: env)
        #expect(second.status == 0)
        #expect(second.stderr.contains("another tray is already running"), "\(second.stderr)")
        #expect(host.registrations.count == 1)
        #expect(tray.status == nil)
        _ = f
    }

    @Test func installAddsTheAutostartEntryAndTheUserUnitAndUninstallRemovesThem() throws {
        let home = try makeTemporaryDirectory("tray-home")
        defer { try? FileManager.default.removeItem(at: home) }
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["XDG_DATA_HOME"] = nil
        let install = try runProcess(Self.binary, ["install"], environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        let autostart = home.appendingPathComponent("config/autostart/biomatimer-tray.desktop")
        let unit = home.appendingPathComponent(".local/share/systemd/user/biomatimer-tray.service")
        let entry = try String(contentsOf: autostart, encoding: .utf8)
        #expect(entry.contains("Exec=\(home.path)/.local/bin/biomatimer tray\n"))
        #expect(entry.hasPrefix("[Desktop Entry]\nType=Application\n"))
        let service = try String(contentsOf: unit, encoding: .utf8)
        #expect(service.contains("PartOf=graphical-session.target\n"))
        #expect(service.contains("ExecStart=\(home.path)/.local/bin/biomatimer tray\n"))
        // The templates in dbus/ are the ones the binary carries.
        for (file, template) in [
            ("dbus/biomatimer-tray.service.in", Installer.trayUnitTemplate),
            ("dbus/biomatimer-tray.desktop.in", Installer.trayAutostartTemplate),
        ] {
            #expect(try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8) == template, "\(file)")
        }
        // desktop-file-validate is not required; the entry's keys are checked by GLib's parser.
        let keys = try runProcess(
            "/usr/bin/python3",
            ["-c", "import sys; from gi.repository import GLib; k = GLib.KeyFile(); k.load_from_file(sys.argv[1], 0); "
                + "print(k.get_string('Desktop Entry', 'Exec'))", autostart.path])
        #expect(keys.stdout == "\(home.path)/.local/bin/biomatimer tray\n", "\(keys.stderr)")

        let uninstall = try runProcess(Self.binary, ["uninstall"], environment: env)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(!FileManager.default.fileExists(atPath: autostart.path))
        #expect(!FileManager.default.fileExists(atPath: unit.path))
    }

    @Test func theFocusArcGrowsInStepsWhileAPhaseRuns() throws {
        let (f, tray, env) = try Self.setUp()
        defer { tray.terminate() }
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        // A 48-second countdown: the arc has 48 steps, one a second. The count starts before
        // the call: the tray's answer to it may reach the host before busctl returns.
        let start = host.all.count
        try f.busctl(["call", "org.biomatimer.Timer1", "/org/biomatimer/Timer1", "org.biomatimer.Focus1", "StartCountdown", "xa{sv}", "48000000", "0"])
        #expect(host.wait(from: start) { ($0["signal"] as? String) == "NewStatus" || ($0["signal"] as? String) == "NewToolTip" } != nil)
        // Steps come without any change of the daemon's state: NewIcon alone, again and again,
        // and nothing else moves with them. The change may draw twice (Focus1's and Timer1's
        // PropertiesChanged, work following focus), so the count starts after a third NewIcon:
        // one that is a step, a second after the change.
        #expect(waitUntil { host.signals(from: start, "NewIcon") >= 3 })
        let stepping = host.all.count
        #expect(waitUntil { host.signals(from: stepping, "NewIcon") >= 2 })
        #expect(host.signals(from: stepping, "NewToolTip") == 0)
        #expect(host.signals(from: stepping, "ItemsPropertiesUpdated") == 0)
        // Stopped: no more steps.
        try f.busctl(["call", "org.biomatimer.Timer1", "/org/biomatimer/Timer1", "org.biomatimer.Focus1", "StopFocus"])
        _ = host.wait(from: host.all.count, timeout: 0.5) { _ in false }
        let after = host.all.count
        _ = host.wait(from: after, timeout: 1.5) { _ in false }
        #expect(host.signals(from: after, "NewIcon") == 0)
    }

    @Test func aRefusedClickShowsTheDaemonsMessageAndChangesNothing() throws {
        let f = try DaemonFixture()
        let notifications = try NotificationServer(busAddress: f.bus.address)
        _ = try f.method("Stop")  // the daemon runs, with no project at all
        let tray = try ChildProcess(Self.binary, ["tray"], environment: f.environment)
        defer { tray.terminate() }
        let host = try TrayHost(environment: f.environment)
        _ = try Self.itemShows(host, working: false)
        #expect(try waitUntil { try host.rows().rows.contains { $0.label.hasPrefix("Start work · ") } })
        let before = try f.durableState()
        let revision = try host.rows().revision
        // Scrolling cycles projects; with none, the daemon refuses.
        try host.command("scroll 1 vertical")
        #expect(try waitUntil { try !notifications.notifications().isEmpty })
        let shown = try notifications.notifications()
        #expect(shown.map(\.body) == ["There are no projects to cycle through; add one first."])
        #expect(shown.map(\.appName) == ["biomatimer"])
        #expect(try f.durableState() == before)
        #expect(try host.rows().revision == revision)
    }

    /// "Report of today…" (EventGroup, as waybar sends it): today's ring is written as SVG to
    /// the runtime folder and handed to `xdg-open` (here a stand-in on PATH that records its
    /// argument, and its blocked and ignored signals: none, though the tray ignores SIGCHLD and
    /// was started with SIGINT, SIGQUIT and SIGPIPE ignored); the file renders with rsvg-convert.
    @Test func theReportRowWritesTodaysRingAndOpensIt() throws {
        let folder = try makeTemporaryDirectory("biomatimer-tray-report")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bin = folder.appendingPathComponent("bin")
        let runtime = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let record = folder.appendingPathComponent("opened")
        let signals = folder.appendingPathComponent("signals")
        let opener = bin.appendingPathComponent("xdg-open")
        try writeExecutable(
            "#!/bin/sh\ngrep -E '^(SigBlk|SigIgn)' /proc/self/status > '\(signals.path)'\n"
                + "printf '%s\\n' \"$@\" > \"\(record.path).tmp\" && mv \"\(record.path).tmp\" \"\(record.path)\"\n", to: opener)
        let (f, tray, env) = try Self.setUp(ignoring: "INT QUIT PIPE") {
            $0["PATH"] = bin.path + ":/usr/bin:/bin"
            $0["XDG_RUNTIME_DIR"] = runtime.path
        }
        defer { tray.terminate() }
        let host = try TrayHost(environment: env)
        _ = try Self.itemShows(host, working: true)
        let rows = try Self.rows(of: host) { $0.label == "Report of today…" }
        let report = try #require(rows.first { $0.label == "Report of today…" })
        let before = try f.durableState()
        #expect(try host.command("eventgroup \(report.id) clicked")["idErrors"] as? [Int] == [])
        #expect(waitUntil { FileManager.default.fileExists(atPath: record.path) })
        let opened = try String(contentsOf: record, encoding: .utf8)
        let svg = runtime.appendingPathComponent("biomatimer-today.svg")
        #expect(opened == svg.path + "\n")
        let states = try String(contentsOf: signals, encoding: .utf8)
        #expect(states == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.hasPrefix("<svg") || text.hasPrefix("<?xml"))
        #expect(text.contains("Client A"))
        // It renders: rsvg-convert makes a PNG of it.
        let png = folder.appendingPathComponent("today.png")
        let render = try ChildProcess("/usr/bin/rsvg-convert", ["-o", png.path, svg.path], captureOutput: false)
        #expect(render.wait() == 0)
        let bytes = try Data(contentsOf: png)
        #expect(bytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // Reading a report changes nothing in the store.
        #expect(try f.durableState() == before)
    }
}
