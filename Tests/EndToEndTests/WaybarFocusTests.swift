import BiomaDaemon
import Foundation
import Testing

import TestSupport

/// Debian's waybar in a headless sway running Widgets/waybar/config.jsonc and style.css
/// while a countdown runs: the module's text and classes, the focus CSS in the screenshot,
/// and a middle click that pauses the countdown.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct WaybarFocusTests {
    /// Runs the harness on one output; the module's lines and the screenshot's pixel counts
    /// of [running countdown #fab387, paused #f9e2af, idle work #9399b2, background #1e1e2e].
    func run(_ session: UserSession, name: String, clicks: [String], thenExpect: String? = nil) throws
        -> (lines: [String], pixels: [Int])
    {
        let out = repositoryRoot.appendingPathComponent(".build/artefacts/\(name)")
        try? FileManager.default.removeItem(at: out)
        var arguments = [
            repositoryRoot.appendingPathComponent("Tests/harness/headless-waybar.sh").path,
            "--config", repositoryRoot.appendingPathComponent("Widgets/waybar/config.jsonc").path,
            "--style", repositoryRoot.appendingPathComponent("Widgets/waybar/style.css").path,
            "--exec", "\(DaemonFixture.binary) watch --format waybar",
            "--env", "PATH=\(productsDirectory.path):/usr/bin:/bin",
            "--env", "DBUS_SESSION_BUS_ADDRESS=\(session.address)",
            "--expect", "Countdown · Tea", "--wait", "1.5", "--after", "1", "--out", out.path,
        ]
        for click in clicks { arguments += ["--click", click] }
        if let thenExpect { arguments += ["--expect-after", thenExpect] }
        if let user = session.user { arguments += ["--user", user] }
        let run = try runProcess("/bin/sh", arguments, timeout: 40)
        print("waybar artefacts (screenshot.png, waybar.log, module-output.log): \(out.path)")
        #expect(run.status == 0, "headless-waybar.sh failed:\n\(run.stderr)\(run.stdout)")
        let lines = ((try? String(contentsOf: out.appendingPathComponent("module-output.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
        let counts = try runProcess(
            "/usr/bin/python3",
            pngColourCounter + [
                out.appendingPathComponent("screenshot.png").path, "0", "30", "fab387", "f9e2af", "9399b2", "1e1e2e",
            ])
        let pixels = counts.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(pixels.count == 4, "pixel count failed: \(counts.stderr)")
        print("waybar \(name) screenshot, pixels [countdown orange, paused yellow, idle grey, background]: \(pixels)")
        return (lines, pixels)
    }

    @Test func realWaybarShowsACountdownAndPausesItOnAMiddleClick() throws {
        let missing = ["/usr/bin/sway", "/usr/bin/swaymsg", "/usr/bin/waybar", "/usr/bin/grim", "/usr/bin/python3"]
            .filter { !FileManager.default.isExecutableFile(atPath: $0) }
        try #require(missing.isEmpty, "cannot run waybar in a headless sway: missing \(missing) (`make deps`)")
        let session = try UserSession()
        defer { session.stop() }
        #expect(try session.cli(["focus", "countdown", "10m", "--label", "Tea"]).status == 0)

        // Running: the countdown leads, in the focus CSS's orange, counting down.
        let running = try run(session, name: "waybar-focus", clicks: [])
        let line = #/\{"text":"◷ (10:00|9:[0-5]\d) Countdown · Tea","alt":"focus-running","tooltip":"Focus: Countdown, (10:00|9:[0-5]\d) left · Tea\\nCompleted today: 0\\nWork: 0:00:00 session, 0:00:00 today\\nNo project running","class":\["idle","focus","focus-running","kind-countdown","phase-countdown"\],"percentage":(\d{1,2})\}/#
        #expect(running.lines.count >= 2 && running.lines.allSatisfy { $0.wholeMatch(of: line) != nil }, "lines: \(running.lines)")
        let left = running.lines.compactMap(focusSeconds)
        // The progress is the share of the ten minutes gone, in whole percent rounded down.
        let percentages = running.lines.compactMap { $0.wholeMatch(of: line).flatMap { Int($0.3) } }
        #expect(
            percentages.count == left.count && zip(percentages, left).allSatisfy { abs($0 - (600 - $1) / 6) <= 1 },
            "percentages \(percentages) for time left \(left)")
        #expect(zip(left, left.dropFirst()).allSatisfy { $0 - $1 == 1 }, "time left \(left)")
        if running.pixels.count == 4 {
            #expect(running.pixels[0] > 100, "the countdown is not drawn in the focus-running colour")
            #expect(running.pixels[1] == 0 && running.pixels[2] == 0)
            #expect(running.pixels[3] > 10_000)
        }

        // A middle click (the sample's `on-click-middle: biomatimer focus toggle`): paused,
        // the time left frozen, drawn in the paused colour.
        let paused = try run(session, name: "waybar-focus-paused", clicks: ["950,15,2"], thenExpect: "focus-paused")
        let last = try #require(paused.lines.last.flatMap(jsonObject), "lines: \(paused.lines)")
        #expect((last["text"] as? String)?.wholeMatch(of: #/‖ 9:[0-5]\d Countdown · Tea/#) != nil, "\(last)")
        #expect(last["class"] as? [String] == ["idle", "focus", "focus-paused", "kind-countdown", "phase-countdown"])
        #expect(last["alt"] as? String == "focus-paused")
        let status = try session.cli(["status", "--json"]).stdout
        #expect((jsonObject(status)?["focus"] as? [String: Any])?["state"] as? String == "paused", "\(status)")
        if paused.pixels.count == 4 {
            #expect(paused.pixels[1] > 100, "the paused countdown is not drawn in the focus-paused colour")
            #expect(paused.pixels[0] == 0)
        }
    }
}
