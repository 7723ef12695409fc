import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Debian's waybar in a headless sway, as an unprivileged user, running
/// Widgets/waybar/config.jsonc: two bars in step, clicks through a virtual pointer, a screenshot.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct WaybarTests {
    /// Two outputs, so two bars, each running its own `biomatimer watch`; clicks on them
    /// through a virtual pointer run the sample config's on-click commands (the real CLI).
    @Test func realWaybarInHeadlessSwayShowsTheModuleAndTakesClicks() throws {
        let missing = ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/waybar", "/usr/bin/grim", "/usr/bin/python3"]
            .filter { !FileManager.default.isExecutableFile(atPath: $0) }
        let font = FileManager.default.fileExists(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
        try #require(
            missing.isEmpty && font,
            "cannot run waybar in a headless sway: missing \(missing + (font ? [] : ["fonts-dejavu-core"])) (Debian packages sway waybar grim fonts-dejavu-core; `make deps`)"
        )
        // Everything runs as one user, as on a desktop: the bus, the daemon it activates,
        // sway, waybar, the watches and the click commands. sway refuses root, so under
        // root that user is `biomatest`.
        let session = try UserSession()
        defer { session.stop() }
        let id = try #require(
            try session.cli(["project", "add", hostileName]).stdout.split(separator: "\n").first.map(String.init))
        #expect(try session.cli(["project", "add", "Client A", "--color", "#ff8800"]).status == 0)
        #expect(try session.cli(["project", "start", id]).status == 0)

        let out = repositoryRoot.appendingPathComponent(".build/artefacts/waybar")
        try? FileManager.default.removeItem(at: out)
        let harness = repositoryRoot.appendingPathComponent("Tests/harness/headless-waybar.sh").path
        var arguments = [
            harness,
            "--config", repositoryRoot.appendingPathComponent("Widgets/waybar/config.jsonc").path,
            "--style", repositoryRoot.appendingPathComponent("Widgets/waybar/style.css").path,
            // The module's exec is the real watch; the click commands (`biomatimer toggle`…)
            // stay as the sample has them and find the built binary on PATH.
            "--exec", "\(DaemonFixture.binary) watch --format waybar",
            "--env", "PATH=\(productsDirectory.path):/usr/bin:/bin",
            "--env", "DBUS_SESSION_BUS_ADDRESS=\(session.address)",
            "--expect", #""class":["running","project"]"#,
            "--outputs", "2", "--wait", "1.5",
            // Bar 1 is at y 0–30, bar 2 at y 200–230; the module sits at the right end.
            "--click", "950,15,1",  // left on bar 1: toggle (stop)
            "--click", "950,215,3",  // right on bar 2: next project (the first: the hostile name)
            "--click", "950,15,4",  // scroll up on bar 1: previous (wraps to Client A)
            "--click", "950,215,5",  // scroll down on bar 2: next (the hostile name again)
            // Each click's command (started by waybar on its own) has taken effect before the
            // next click, and the last one's line is there before the screenshot.
            "--click-follow", "--expect-after", "R&amp;D",
            "--after", "1",
            "--out", out.path,
        ]
        if let user = session.user { arguments += ["--user", user] }
        let run = try runProcess("/bin/sh", arguments, timeout: 40)
        print("waybar artefacts (screenshot.png, waybar.log, module-output.log, actions.log): \(out.path)")
        #expect(run.status == 0, "headless-waybar.sh failed (sway, waybar or grim could not run here):\n\(run.stderr)\(run.stdout)")
        try #require(run.status == 0)

        // waybar built a bar with our module on each headless output.
        let log = (try? String(contentsOf: out.appendingPathComponent("waybar.log"), encoding: .utf8)) ?? ""
        #expect(log.components(separatedBy: "Bar configured").count - 1 == 2, "waybar.log: \(log)")
        #expect(log.contains("label#custom-biomatimer"), "waybar.log: \(log)")

        // What the two watches printed, as waybar read it: no offline flash at start, the
        // hostile name escaped, and each click's effect in order.
        let hostileLine = Waybar.project(
            "R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…", "#007aff",
            tooltipName: "R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00} #[fg=red]")
        let clientALine = Waybar.project("Client A", "#ff8800")
        let printed = try String(contentsOf: out.appendingPathComponent("module-output.log"), encoding: .utf8)
            .split(separator: "\n").map { normalized(String($0)) }
        var states: [String] = []
        for line in printed where states.last != line { states.append(line) }
        let firstSeen = states.reduce(into: [String]()) { seen, line in if !seen.contains(line) { seen.append(line) } }
        #expect(firstSeen == [hostileLine, Waybar.paused, clientALine], "states seen: \(states)")
        #expect(states.last == hostileLine, "states seen: \(states)")
        let final = try #require(jsonObject(try session.cli(["status", "--format", "json"]).stdout))
        #expect(final["running"] as? Bool == true && final["active_project_name"] as? String == hostileName)

        // The screenshot: each bar drawn with the `running project` CSS (green text and
        // underline) and the name in its colour, the same on both; nothing in the offline
        // colour or in the red the name's `%{F#f00}` and `#[fg=red]` ask other bars for.
        let screenshot = out.appendingPathComponent("screenshot.png")
        var bars: [[Int]] = []
        for top in [0, 200] {
            let pixels = try runProcess(
                "/usr/bin/python3",
                pngColourCounter + [screenshot.path, "\(top)", "30", "a6e3a1", "007aff", "f38ba8", "ff0000", "1e1e2e"])
            bars.append(pixels.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            #expect(bars.last?.count == 5, "pixel count failed: \(pixels.stderr)")
        }
        print("waybar screenshot, pixels per bar [running green, project blue, offline, red, background]: \(bars)")
        for counts in bars where counts.count == 5 {
            #expect(counts[0] > 200, "the running/project CSS (green, underline) is not in the screenshot")
            #expect(counts[1] > 20, "the project colour is not in the screenshot")
            #expect(counts[2] == 0 && counts[3] == 0)
            #expect(counts[4] > 10_000, "the bar's background is not in the screenshot")
        }
        #expect(bars.count == 2 && bars[0].count == 5 && bars[0][1] == bars[1][1], "both bars show the same name")
    }
}
