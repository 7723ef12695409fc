import BiomaText
import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

extension DaemonFixture {
    /// `busctl call` on `org.biomatimer.Focus1` (the same object as the timer).
    @discardableResult
    func focusCall(_ member: String, _ signatureAndArguments: [String] = []) throws -> ProcessResult {
        let result = try busctl(
            ["call", ContractNames.busName, ContractNames.objectPath, ContractNames.focusInterface, member] + signatureAndArguments)
        #expect(result.status == 0, "Focus1.\(member): \(result.stderr)")
        return result
    }

    /// Starts a countdown of `seconds` with `label` through busctl.
    func startCountdown(seconds: Int64, label: String) throws {
        try focusCall("StartCountdown", ["xa{sv}", "\(seconds * 1_000_000)", "1", "Label", "s", label])
    }
}

/// The time left (`M:SS` or `H:MM:SS`) after a focus mark in a line, in seconds.
func focusSeconds(_ line: String) -> Int? {
    guard let match = line.firstMatch(of: #/[◷‖] (?:(\d+):)?(\d+):(\d\d)/#) else { return nil }
    let hours = match.1.flatMap { Int($0) } ?? 0
    guard let minutes = Int(match.2), let seconds = Int(match.3) else { return nil }
    return hours * 3600 + minutes * 60 + seconds
}

/// `biomatimer watch` following a real daemon's focus timer: one line per displayed second
/// while a countdown runs, none while it is paused or done.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct FocusWatchTests {
    @Test func aCountdownTicksDownPausesStillAndEndsDone() throws {
        let f = try DaemonFixture()
        let watch = try watch(f, ["--format", "island"])
        defer { watch.stop() }
        #expect(watch.lines.next(timeout: 5)?.text == "○ 0:00:00 (0:00:00)")

        // Running: the countdown leads, one line per second, each one second less.
        try f.startCountdown(seconds: 600, label: "Tea")
        let first = try #require(watch.lines.next(timeout: 3), "no line after StartCountdown: \(watch.errors)")
        #expect(first.text == "◷ 10:00 Countdown · Tea" || first.text == "◷ 9:59 Countdown · Tea", "\(first.text)")
        let tick1 = try #require(watch.lines.next(timeout: 2.5), "no tick of the countdown")
        let tick2 = try #require(watch.lines.next(timeout: 2.5), "no second tick of the countdown")
        let s0 = try #require(focusSeconds(first.text)), s1 = try #require(focusSeconds(tick1.text))
        let s2 = try #require(focusSeconds(tick2.text))
        #expect(s1 == s0 - 1 && s2 == s1 - 1, "seconds \(s0), \(s1), \(s2)")
        let gap = tick2.at.timeIntervalSince(tick1.at)
        #expect(gap > 0.6 && gap < 1.4, "ticks \(gap) s apart")

        // Paused: the time left frozen with the pause mark, and the watch sleeps.
        try f.focusCall("TogglePause")
        let paused = try #require(watch.lines.next(timeout: 3) { $0.hasPrefix("‖") }, "no paused line")
        #expect(paused.text.hasSuffix(" Countdown · Tea"), "\(paused.text)")
        #expect(watch.lines.collect(for: 0.3).map(\.text) == [])
        let pausedSwitches = try #require(quietContextSwitches(of: watch.process.pid))
        #expect(watch.lines.collect(for: 1.2).map(\.text) == [], "lines while paused")
        #expect(contextSwitches(of: watch.process.pid) == pausedSwitches, "the watch woke while paused")

        // Done: a short countdown ends; "Tea done" stays and nothing ticks.
        try f.startCountdown(seconds: 1, label: "Tea")
        let done = try #require(watch.lines.next(timeout: 4) { $0 == "✓ Tea done" }, "no done line: \(watch.errors)")
        #expect(done.text == "✓ Tea done")
        #expect(watch.lines.collect(for: 1.2).map(\.text) == [], "lines while done")

        // Stopped: exactly the line without a focus timer.
        try f.focusCall("StopFocus")
        #expect(watch.lines.next(timeout: 3)?.text == "○ 0:00:00 (0:00:00)")
    }

    /// Every format the C front and the tool print shows the focus timer (the daemon renders
    /// `status --format`), the same as a watch.
    @Test func statusShowsTheFocusTimerInEveryFormat() throws {
        let f = try DaemonFixture()
        try f.startCountdown(seconds: 3600, label: "Tea")
        _ = try f.focusCall("TogglePause")
        // Paused a moment after the start (how long a moment depends on the machine's load):
        // the time left is frozen just under an hour, and every format shows it as the
        // seconds begun.
        let first = try #require(jsonObject(try f.cli(["status", "--json"]).stdout)?["focus"] as? [String: Any])
        let remaining = try #require(first["remaining"] as? Int)
        #expect(remaining > 3_540_000_000 && remaining <= 3_600_000_000, "\(remaining)")
        let left = DurationFormat.clock(seconds: (Int64(remaining) + 999_999) / 1_000_000)
        let plain = try f.cli(["status"])
        #expect(plain.stdout == "0:00:00 (0:00:00)\nFocus paused: Countdown, \(left) left · Tea\n", "\(plain.stderr)")
        #expect(try f.cli(["status", "--format", "island"]).stdout == "‖ \(left) Countdown · Tea\n")
        #expect(try f.cli(["status", "--format", "tmux"]).stdout == "‖ \(left) Countdown · Tea\n")
        #expect(try f.cli(["status", "--format", "polybar"]).stdout == "‖ \(left) Countdown · Tea\n")
        #expect(
            try f.cli(["status", "--format", "{focus_state} {focus_kind} {focus_remaining} {focus_label}"]).stdout
                == "paused countdown \(left) Tea\n")
        let waybar = try #require(jsonObject(try f.cli(["status", "--format", "waybar"]).stdout))
        #expect(waybar["class"] as? [String] == ["idle", "focus", "focus-paused", "kind-countdown", "phase-countdown"])
        #expect(waybar["alt"] as? String == "focus-paused" && waybar["percentage"] as? Int == 0)
        let i3blocks = try #require(jsonObject(try f.cli(["status", "--format", "i3blocks"]).stdout))
        #expect(i3blocks["full_text"] as? String == "‖ \(left) Countdown · Tea")
        let json = try #require(jsonObject(try f.cli(["status", "--json"]).stdout))
        let focus = try #require(json["focus"] as? [String: Any])
        #expect(focus["state"] as? String == "paused" && focus["kind"] as? String == "countdown")
        #expect(focus["remaining_text"] as? String == left)
        let again = try #require(jsonObject(try f.cli(["status", "--json"]).stdout)?["focus"] as? [String: Any])
        #expect(again["remaining"] as? Int == remaining, "the paused time left moved")
    }

    /// A label that is markup, a format string and an escape in every bar's syntax shows
    /// literally in every format the daemon and a watch print.
    @Test func hostileLabelShowsLiterallyInEveryFormat() throws {
        let f = try DaemonFixture()
        try f.startCountdown(seconds: 600, label: hostileName)
        try f.focusCall("TogglePause")
        let short = ##"R&D <b>"x"</b> %{F#f00}…"##
        func status(_ format: String) throws -> String {
            let result = try f.cli(["status", "--format", format])
            #expect(result.status == 0, "\(format): \(result.stderr)")
            return String(result.stdout.dropLast())
        }
        #expect(try status("island").wholeMatch(of: #/‖ (10:00|9:[0-5]\d) Countdown · (.*)/#)?.2 == Substring(short))
        let waybar = try #require(jsonObject(try status("waybar")))
        let text = try #require((waybar["text"] as? String).flatMap(Markup.init), "waybar text is not Pango markup")
        #expect(text.text.hasSuffix("Countdown · \(short)") && text.elements == [], "\(text)")
        let tooltip = try #require((waybar["tooltip"] as? String).flatMap(Markup.init), "waybar tooltip is not Pango markup")
        #expect(tooltip.text.hasPrefix("Focus paused: Countdown, ") && tooltip.text.contains(" left · \(hostileName)\n"))
        #expect(tooltip.elements == [])
        let i3blocks = try #require(jsonObject(try status("i3blocks")))
        let full = try #require((i3blocks["full_text"] as? String).flatMap(Markup.init))
        #expect(full.text.hasSuffix("Countdown · \(short)") && full.elements == [])
        #expect(try status("polybar").hasSuffix("Countdown · R&D <b>\"x\"</b> %\u{200B}{F#f00}…"))
        #expect(try status("tmux").hasSuffix(##"Countdown · R&D <b>"x"</b> %{F##f00}…"##))
        let focus = try #require(jsonObject(try status("json"))?["focus"] as? [String: Any])
        #expect(focus["label"] as? String == hostileName)
        #expect(try status("{focus_label}") == short)
        // The watch prints the same line as the daemon's status.
        let watch = try watch(f, ["--format", "tmux"])
        defer { watch.stop() }
        #expect(watch.lines.next(timeout: 5)?.text == (try status("tmux")))
    }
}
