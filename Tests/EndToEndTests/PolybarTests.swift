import BiomaDaemon
import Foundation
import Testing

import TestSupport

/// Debian's polybar in Xvfb running Widgets/polybar/config.ini with the real
/// `biomatimer watch --format polybar`: the work line, then a countdown paused by a middle
/// click (xdotool), screenshots kept.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct PolybarTests {
    static let tools = ["/usr/bin/polybar", "/usr/bin/Xvfb", "/usr/bin/xwd", "/usr/bin/xwdtopnm", "/usr/bin/pnmtopng", "/usr/bin/xdotool"]

    /// Runs the harness; the module's lines and the screenshot's pixel counts of
    /// [foreground #cdd6f4, red #ff0000, background #1e1e2e] in the bar's rows.
    func run(_ f: DaemonFixture, expect: String, name: String, clicks: [String] = [], thenExpect: String? = nil) throws
        -> (lines: [String], pixels: [Int])
    {
        let out = repositoryRoot.appendingPathComponent(".build/artefacts/\(name)")
        try? FileManager.default.removeItem(at: out)
        var environment = f.environment
        environment["PATH"] = "\(productsDirectory.path):/usr/bin:/bin"
        let run = try runProcess(
            "/bin/sh",
            [
                repositoryRoot.appendingPathComponent("Tests/harness/xvfb-polybar.sh").path,
                "--config", repositoryRoot.appendingPathComponent("Widgets/polybar/config.ini").path,
                "--exec", "\(DaemonFixture.binary) watch --format polybar",
                "--expect", expect, "--wait", "2", "--out", out.path,
            ] + clicks.flatMap { ["--click", $0] } + (thenExpect.map { ["--expect-after", $0] } ?? []),
            environment: environment, timeout: 40)
        print("polybar artefacts (screenshot.png, polybar.log, module-output.log): \(out.path)")
        #expect(run.status == 0, "xvfb-polybar.sh failed:\n\(run.stderr)\(run.stdout)")
        let lines = ((try? String(contentsOf: out.appendingPathComponent("module-output.log"), encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)
        let counts = try runProcess(
            "/usr/bin/python3",
            pngColourCounter + [out.appendingPathComponent("screenshot.png").path, "0", "30", "cdd6f4", "ff0000", "1e1e2e"])
        let pixels = counts.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(pixels.count == 3, "pixel count failed: \(counts.stderr)")
        print("polybar \(name) screenshot, pixels [text, red, background]: \(pixels)")
        return (lines, pixels)
    }

    @Test func realPolybarShowsTheWorkLineThenACountdown() throws {
        let missing = Self.tools.filter { !FileManager.default.isExecutableFile(atPath: $0) }
        try #require(
            missing.isEmpty, "cannot run polybar in Xvfb: missing \(missing) (Debian packages polybar xvfb x11-apps netpbm xdotool; `make deps`)")
        let f = try DaemonFixture()

        // No focus timer: the work line exactly, drawn in the bar.
        let idle = try run(f, expect: "○ 0:00:00 (0:00:00)", name: "polybar")
        #expect(idle.lines == ["○ 0:00:00 (0:00:00)"], "lines: \(idle.lines)")
        if idle.pixels.count == 3 {
            #expect(idle.pixels[0] > 50, "no text in the screenshot")
            #expect(idle.pixels[1] == 0 && idle.pixels[2] > 10_000)
        }

        // A countdown whose label is a polybar tag: it leads the line, counts down once a
        // second, and the label shows as written (no red). Then a middle click on the module
        // (the sample's `click-middle = biomatimer focus toggle`) pauses it; work, which
        // the countdown does not drive, runs on and leads.
        _ = try f.method("Start")
        #expect(try f.cli(["focus", "countdown", "10m", "--label", "Tea %{F#f00}!"]).status == 0)
        let focus = try run(f, expect: "Countdown · Tea", name: "polybar-focus", clicks: ["700,15,2"], thenExpect: "‖")
        let running = #/^◷ (\d+:\d\d) Countdown · Tea %\u{200B}\{F#f00\}! │ ▶ 0:00:\d\d$/#
        let paused = #/^▶ 0:00:\d\d \(0:00:\d\d\) │ ‖ (\d+:\d\d) Countdown · Tea %\u{200B}\{F#f00\}!$/#
        let before = Array(focus.lines.prefix { $0.wholeMatch(of: running) != nil })
        let after = focus.lines.dropFirst(before.count)
        #expect(before.count >= 2 && !after.isEmpty && after.allSatisfy { $0.wholeMatch(of: paused) != nil }, "lines: \(focus.lines)")
        let status = try f.cli(["status", "--json"]).stdout
        #expect((jsonObject(status)?["focus"] as? [String: Any])?["state"] as? String == "paused", "\(status)")
        // The paused time left is frozen at (about) the last one shown while running.
        let frozen = after.compactMap(focusSeconds), shown = before.compactMap(focusSeconds)
        #expect(Set(frozen).count == 1, "the paused time left moved: \(frozen)")
        if let held = frozen.first, let last = shown.last { #expect(held == last || held == last - 1, "\(held) after \(last)") }
        let left = focus.lines.compactMap(focusSeconds)
        #expect(left.count == focus.lines.count && left.allSatisfy { $0 <= 600 && $0 > 540 }, "time left \(left)")
        #expect(zip(left, left.dropFirst()).allSatisfy { $0 >= $1 && $0 - $1 <= 1 }, "time left \(left)")
        #expect(Set(left).count >= 2, "the countdown did not move: \(left)")
        if focus.pixels.count == 3 {
            #expect(focus.pixels[0] > idle.pixels[0], "the longer focus line drew no more text")
            #expect(focus.pixels[1] == 0, "the label's %{F#f00} turned text red")
        }
    }
}
