import Foundation
import TestSupport
import Testing

/// The tray in the real waybar `tray` module, in a headless sway (Tests/harness): waybar
/// starts its own StatusNotifierWatcher, the tray registers with it, the bar draws the pixmap.
/// A right click opens its menu (a GTK popup): the popup shows in a headless sway with the
/// virtual pointer of wl-click.py; it once seemed not to because the stopped tray was `Passive`,
/// which waybar hides, so the click hit no icon.
@Suite(.ownThreadLong, .serialized) struct TrayWaybarTests {
    /// `icon`: the colour the tray icon is drawn in (RRGGBB); the harness waits until the bar
    /// shows it before its screenshot or clicks.
    static func harness(
        _ session: UserSession, out name: String, icon: String, clicks: [String], after: String = "1", gap: String = "0.2"
    ) throws -> (ProcessResult, URL) {
        let out = repositoryRoot.appendingPathComponent(".build/artefacts/\(name)")
        try? FileManager.default.removeItem(at: out)
        var arguments = [
            repositoryRoot.appendingPathComponent("Tests/harness/headless-waybar.sh").path,
            "--config", repositoryRoot.appendingPathComponent("Tests/harness/tray/config.jsonc").path,
            "--style", repositoryRoot.appendingPathComponent("Tests/harness/tray/style.css").path,
            "--env", "DBUS_SESSION_BUS_ADDRESS=\(session.address)",
            "--size", "400x300", "--wait", "0.5", "--after", after, "--click-gap", gap, "--expect-colour", icon,
            "--out", out.path,
        ]
        for click in clicks { arguments += ["--click", click] }
        if let user = session.user { arguments += ["--user", user] }
        let run = try runProcess("/bin/sh", arguments, timeout: 60)
        return (run, out)
    }

    /// Pixels of the screenshot's rows TOP..<TOP+ROWS near each colour.
    static func count(_ screenshot: URL, top: Int, rows: Int, _ colours: [String]) throws -> [Int] {
        let pixels = try runProcess("/usr/bin/python3", pngColourCounter + [screenshot.path, "\(top)", "\(rows)"] + colours)
        return pixels.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// A session with Client A (orange) and Errands (blue), `starting` one of them, and the
    /// tray running in it (waybar comes with each harness run).
    static func trayInWaybar(starting project: String?) throws -> (UserSession, ChildProcess) {
        let missing = ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/waybar", "/usr/bin/grim", "/usr/bin/python3"]
            .filter { !FileManager.default.isExecutableFile(atPath: $0) }
        try #require(missing.isEmpty, "cannot run waybar in a headless sway: missing \(missing) (`make deps`)")
        let session = try UserSession()
        do {
            #expect(try session.cli(["project", "add", "Client A", "--color", "#ff8800"]).status == 0)
            #expect(try session.cli(["project", "add", "Errands", "--color", "#00c0ff"]).status == 0)
            if let project { #expect(try session.cli(["project", "start", project]).status == 0) }
            return (session, try session.spawn(["tray"]))
        } catch {
            session.stop()
            throw error
        }
    }

    @Test func waybarShowsTheIconInTheProjectsColourAndALeftClickStopsWork() throws {
        let (session, tray) = try Self.trayInWaybar(starting: "Client A")
        defer { session.stop() }
        defer { tray.terminate() }

        // The icon in the bar (y 0–30) in the running project's colour.
        let (shown, out) = try Self.harness(session, out: "tray-waybar", icon: "ff8800", clicks: [])
        #expect(shown.status == 0, "headless-waybar.sh failed:\n\(shown.stderr)\(shown.stdout)")
        let bar = try Self.count(out.appendingPathComponent("screenshot.png"), top: 0, rows: 30, ["ff8800", "1e1e2e"])
        print("tray in waybar, pixels [project orange, background]: \(bar) — \(out.path)")
        #expect(bar.count == 2 && bar[0] > 30, "the project's colour is not in the bar")
        #expect(bar.count == 2 && bar[1] > 5_000, "the bar's background is not in the screenshot")

        // A left click on the icon (the bar's right end) stops work.
        let (clicked, clickOut) = try Self.harness(session, out: "tray-waybar-click", icon: "ff8800", clicks: ["387,15,1"])
        #expect(clicked.status == 0, "\(clicked.stderr)")
        #expect(
            waitUntil { (try? session.cli(["status", "--format", "json"]).stdout.contains(#""running":false"#)) == true },
            "work still runs after the click: \(clickOut.path)")
    }

    /// With work stopped (the item once was `Passive`, which waybar hides: the icon was not in
    /// the bar and a right click hit nothing), a right click on the icon opens waybar's menu (a
    /// GTK popup made by dbusmenu-gtk from GetLayout): its rows, with the projects' colour
    /// dots, are in the screenshot below the bar. A left click on a project's row starts it.
    @Test func waybarsMenuOpensOnARightClickAndARowStartsAProject() throws {
        let (session, tray) = try Self.trayInWaybar(starting: nil)
        defer { session.stop() }
        defer { tray.terminate() }

        // The menu opens below the bar (400 px wide: it ends at the icon, rows about 25 px apart
        // from y 32: the work row, Client A, Errands).
        let (opened, out) = try Self.harness(session, out: "tray-waybar-menu", icon: "8a8a8a", clicks: ["387,15,3"], after: "1.5")
        #expect(opened.status == 0, "headless-waybar.sh failed:\n\(opened.stderr)\(opened.stdout)")
        let below = try Self.count(out.appendingPathComponent("screenshot.png"), top: 30, rows: 270, ["ff8800", "00c0ff"])
        print("waybar's menu below the bar, pixels [Client A orange, Errands blue]: \(below) — \(out.path)")
        #expect(below.count == 2 && below[0] > 20, "no Client A dot below the bar: the menu did not open (\(out.path))")
        #expect(below.count == 2 && below[1] > 20, "no Errands dot below the bar: the menu did not open (\(out.path))")

        // A right click, then (once the menu had a second to open) a left click on the Errands
        // row: Errands runs.
        let (started, startOut) = try Self.harness(
            session, out: "tray-waybar-menu-click", icon: "8a8a8a", clicks: ["387,15,3", "230,83,1"], gap: "1")
        #expect(started.status == 0, "\(started.stderr)")
        #expect(
            waitUntil { (try? session.cli(["status"]).stdout.contains("Errands")) == true },
            "Errands did not start: \((try? session.cli(["status"]).stdout) ?? "") \(startOut.path)")
    }
}
