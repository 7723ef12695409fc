import BiomaDaemon
import Foundation
import Testing

import TestSupport

/// A real tmux with Widgets/tmux/tmux.conf, polling the real `biomatimer status --format
/// tmux` every second: the status line a person sees, a keystroke, a countdown paused by
/// the sample's prefix F.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct TmuxTests {
    /// The right part of the status line the sample config draws (`--raw`: with escapes):
    /// the first drawn, after any keys typed, that shows `until`; the last drawn in ten
    /// seconds when none does.
    func statusRight(_ f: DaemonFixture, until: String, _ extra: [String] = []) throws -> ProcessResult {
        var environment = f.environment
        environment["PATH"] = "\(productsDirectory.path):/usr/bin:/bin"
        return try runProcess(
            "/bin/sh",
            [
                repositoryRoot.appendingPathComponent("Tests/harness/tmux-status.sh").path,
                "--config", repositoryRoot.appendingPathComponent("Widgets/tmux/tmux.conf").path, "--wait", "10", "--until", until,
            ] + extra, environment: environment, timeout: 30)
    }

    @Test func realTmuxShowsTheStatusTakesAKeyAndShowsACountdown() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") && FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
            "cannot run tmux: Debian packages tmux, util-linux; `make deps`")
        let f = try DaemonFixture()
        let keys = try makeTemporaryDirectory("biomatimer-tmux").appendingPathComponent("keys")

        // No focus timer: exactly the work line, then the sample's clock.
        let idle = try statusRight(f, until: "○", ["--keys", keys.path])
        #expect(idle.status == 0, "tmux-status.sh: \(idle.stderr)")
        #expect(idle.stdout.wholeMatch(of: #/○ 0:00:00 \(0:00:00\) \| \d\d:\d\d\n/#) != nil, "\(idle.stdout)")
        // The sample's bindings, as tmux read them.
        let bindings = (try? String(contentsOf: keys, encoding: .utf8)) ?? ""
        for (table, key, command) in [
            ("prefix", "T", "biomatimer toggle"), ("prefix", "F", "biomatimer focus toggle"),
            ("root", "MouseDown1StatusRight", "biomatimer toggle"), ("root", "MouseDown2StatusRight", "biomatimer focus toggle"),
        ] {
            let bound = bindings.split(separator: "\n").contains {
                $0.contains("-T \(table) ") && $0.split(separator: " ").contains(Substring(key)) && $0.contains("\"\(command) >/dev/null\"")
            }
            #expect(bound, "no \(table) \(key) → \(command) in:\n\(bindings)")
        }

        // prefix T, typed into the client: the sample's binding starts work.
        let typed = try statusRight(f, until: "▶", ["--type", #"\002T"#])
        #expect(typed.stdout.wholeMatch(of: #/▶ 0:00:\d\d \(0:00:\d\d\) \| \d\d:\d\d\n/#) != nil, "\(typed.stdout) \(typed.stderr)")
        #expect(try f.properties()["Running"] == .boolean(true))

        // A countdown whose label is a tmux style: it leads, counting down; the label shows
        // as written (its `#` doubled by the renderer, shown once by tmux) and styles nothing.
        try f.startCountdown(seconds: 600, label: "Tea #[fg=red]")
        let focus = try statusRight(f, until: "◷")
        #expect(
            focus.stdout.wholeMatch(of: #/◷ (?:10:00|9:[0-5]\d) Countdown · Tea #\[fg=red\] │ ▶ 0:00:\d\d \| \d\d:\d\d\n/#) != nil,
            "\(focus.stdout) \(focus.stderr)")
        let raw = try statusRight(f, until: "Countdown", ["--raw"])
        #expect(raw.stdout.contains("Countdown · Tea #[fg=red]"), "\(raw.stdout)")
        #expect(!raw.stdout.contains(#"\x1b[31m"#) && !raw.stdout.contains(#"\x1b[38;5;1m"#), "the label turned red: \(raw.stdout)")

        // prefix F (the sample's `biomatimer focus toggle`) pauses it; work runs on and leads.
        let pausedByKey = try statusRight(f, until: "‖", ["--type", #"\002F"#])
        #expect(
            pausedByKey.stdout.wholeMatch(of: #/▶ 0:00:\d\d \(0:00:\d\d\) │ ‖ (?:10:00|9:[0-5]\d) Countdown · Tea #\[fg=red\] \| \d\d:\d\d\n/#) != nil,
            "\(pausedByKey.stdout) \(pausedByKey.stderr)")
        let status = try f.cli(["status", "--json"]).stdout
        #expect((jsonObject(status)?["focus"] as? [String: Any])?["state"] as? String == "paused", "\(status)")
    }
}
