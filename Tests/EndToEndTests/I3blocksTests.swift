import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// i3blocks: clicks on a persistent block's standard input (as i3blocks ≥ 1.5 sends them), and
/// Debian's i3blocks running Widgets/i3blocks/i3blocks.conf with its click block.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct I3blocksTests {
    /// i3blocks 1.5 and later write a persistent block's clicks to its stdin and export
    /// `BLOCK_INTERVAL=persist`. Debian has 1.4, so this plays i3blocks 1.5 (its format=json
    /// click line); the real i3blocks 1.4 is in the next test.
    @Test func persistentBlockClicksOnStdinDriveTheTimer() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("")])
        var env = f.environment
        env["BLOCK_INTERVAL"] = "persist"
        let watch = try watch(f, ["--format", "i3blocks"], environment: env, pipeInput: true)
        defer { watch.stop() }
        #expect(watch.lines.next()?.text.contains("○ 0:00:00 (0:00:00)") == true)
        func click(_ button: Int) {
            let line = #"{"":"","name":"biomatimer","instance":"","full_text":"x","button":\#(button),"x":3,"y":4}"#
            watch.process.stdin?.write(Data((line + "\n").utf8))
        }
        click(1)
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Running"]) == .boolean(true) }, "left click toggles")
        click(3)
        #expect(waitUntil(timeout: 5) { (try? f.properties()["ActiveProjectName"]) == .string("Client A") })
        // A second on the stopwatch, so the stop shows paused (under one second reads idle).
        #expect(watch.lines.next(timeout: 3) { $0.contains("0:00:01 (0:00:01)") } != nil)
        click(1)
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Running"]) == .boolean(false) })
        #expect(watch.lines.next(timeout: 3) { $0.hasPrefix(#"{"full_text":"‖"#) } != nil)
    }


    @Test func realI3blocksRunsTheSampleConfigAndItsClickBlock() throws {
        let i3blocks = "/usr/bin/i3blocks"
        try #require(
            FileManager.default.isExecutableFile(atPath: i3blocks),
            "i3blocks is not installed (Debian package i3blocks; `make deps`): the real-bar test cannot run")
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("#ff8800")])
        _ = try f.method("AddProject", [.string("Internal"), .string("")])
        _ = try f.method("AddProject", [.string(hostileName), .string("")])

        // The sample configuration as shipped; `biomatimer` is found on PATH, as for a user.
        let config = repositoryRoot.appendingPathComponent("Widgets/i3blocks/i3blocks.conf").path
        let tag = "i3blocks-\(getpid())-\(UInt64(Date().timeIntervalSince1970 * 1e6))"
        var env = f.environment
        env["PATH"] = productsDirectory.path + ":/usr/bin:/bin"
        env[tagVariable] = tag
        // -vvv: its debug log says when a block's process has exited (see `click`).
        let bar = try ChildProcess(i3blocks, ["-vvv", "-c", config], environment: env, pipeInput: true)
        let errors = Drain(bar.stderr)
        let lines = LineReader(bar)
        defer {
            bar.terminate(grace: 2)
            stopTagged(tag)  // the blocks i3blocks started
        }
        // i3bar's side of the protocol: the click stream is one endless JSON array.
        bar.stdin?.write(Data("[\n".utf8))
        #expect(lines.next()?.text == #"{"version":1,"click_events":true}"#, "i3bar header; stderr: \(errors.text)")

        /// Waits for a status line whose biomatimer block satisfies `match`.
        func block(_ what: String, timeout: TimeInterval = 5, _ match: ([String: Any]) -> Bool) -> [String: Any]? {
            var found: [String: Any]?
            _ = lines.next(timeout: timeout) { text in
                guard let block = statusLineBlocks(text)?.first(where: { $0["name"] as? String == "biomatimer" }),
                    match(block)
                else { return false }
                found = block
                return true
            }
            if found == nil { Issue.record("i3blocks never showed \(what); stderr: \(errors.text)") }
            return found
        }
        func fullText(_ block: [String: Any]?) -> String { normalized(block?["full_text"] as? String ?? "") }
        /// One click on the button block, then a bounded wait until i3blocks has reaped the
        /// command it ran: i3blocks 1.4 drops a click on a block whose process still runs.
        var clicks = 0
        func click(_ button: Int) {
            clicks += 1
            let event =
                #",{"name":"biomatimer-click","instance":"","button":\#(button),"modifiers":[],"x":10,"y":5,"relative_x":10,"relative_y":5,"width":20,"height":22}"#
            bar.stdin?.write(Data((event + "\n").utf8))
            let runs = clicks + 1  // and the run at start
            #expect(
                waitUntil(timeout: 5) {
                    errors.text.components(separatedBy: "[biomatimer-click] process ").count - 1 >= runs
                }, "i3blocks did not run the click block for click \(clicks)")
        }

        // Idle, exactly; the click block shows its button.
        let idle = block("the idle line") { $0["full_text"] as? String == "○ 0:00:00 (0:00:00)" }
        #expect(idle?["markup"] as? String == "pango" && idle?["color"] == nil)

        // The test starts, switches and stops; i3blocks shows each.
        _ = try f.method("Start")
        #expect(fullText(block("running") { fullText($0) == "▶ T (T)" }) == "▶ T (T)")
        #expect(try f.cli(["project", "next"]).status == 0)
        let clientA = block("Client A") { fullText($0) == "● T (T) · Client A" }
        #expect(clientA?["color"] as? String == "#ff8800")
        // A second on the stopwatch, so the stop shows paused (under one second reads idle).
        // (At least one: on a loaded machine the Client A line may already have shown it.)
        #expect(
            block("a tick") { fullText($0) == "● T (T) · Client A" && (($0["full_text"] as? String).flatMap(seconds) ?? 0) >= 1 }
                != nil)
        #expect(try f.cli(["stop"]).status == 0)
        let paused = block("paused") { fullText($0) == "‖ T (T)" }
        #expect(paused != nil && paused?["color"] == nil)

        // Clicks on the [biomatimer-click] block run the real CLI.
        click(1)  // toggle: work starts again, with the project that stopped with it
        #expect(
            waitUntil(timeout: 5) { (try? f.properties()["Running"]) == .boolean(true) },
            "left click did not start the timer; stderr: \(errors.text)")
        #expect(try f.properties()["ActiveProjectName"] == .string("Client A"))
        #expect(block("Client A after the click") { fullText($0) == "● T (T) · Client A" } != nil)
        click(3)  // next project
        #expect(waitUntil(timeout: 5) { (try? f.properties()["ActiveProjectName"]) == .string("Internal") })
        #expect(block("Internal") { fullText($0) == "● T (T) · Internal" }?["color"] as? String == "#007aff")
        click(5)  // scroll down: next, the hostile name, escaped for Pango by the watch
        #expect(waitUntil(timeout: 5) { (try? f.properties()["ActiveProjectName"]) == .string(hostileName) })
        let hostile = block("the hostile name") { ($0["full_text"] as? String)?.contains("R&amp;D") == true }
        #expect(fullText(hostile) == "● T (T) · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…")
        #expect(hostile?["markup"] as? String == "pango")
        click(4)  // scroll up: previous
        #expect(waitUntil(timeout: 5) { (try? f.properties()["ActiveProjectName"]) == .string("Internal") })
        click(1)  // toggle: stop
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Running"]) == .boolean(false) })
        let last = try #require(
            lines.next(timeout: 5) { text in
                statusLineBlocks(text)?.contains { $0["name"] as? String == "biomatimer" && fullText($0) == "‖ T (T)" }
                    == true
            }, "the stop by click never showed")
        // The button block keeps its label after running its command.
        let button = statusLineBlocks(last.text)?.first { $0["name"] as? String == "biomatimer-click" }
        #expect(button?["full_text"] as? String == "⏯")

        // A countdown leads the line; a middle click (the click block's
        // `2) biomatimer focus toggle`) pauses it.
        #expect(try f.cli(["focus", "countdown", "10m", "--label", "Tea"]).status == 0)
        let countdown = block("the countdown") { ($0["full_text"] as? String)?.hasPrefix("◷ ") == true }
        #expect(
            (countdown?["full_text"] as? String)?.wholeMatch(of: #/◷ (10:00|9:[0-5]\d) Countdown · Tea │ ‖ \d+:\d\d:\d\d/#) != nil,
            "\(countdown ?? [:])")
        #expect((countdown?["short_text"] as? String)?.hasPrefix("◷ ") == true)
        click(2)
        #expect(
            waitUntil(timeout: 5) {
                (try? jsonObject(f.cli(["status", "--json"]).stdout)?["focus"] as? [String: Any])??["state"] as? String == "paused"
            }, "middle click did not pause the focus timer; stderr: \(errors.text)")
        let pausedFocus = block("the paused countdown") { ($0["full_text"] as? String)?.hasPrefix("‖ ") == true }
        #expect(
            (pausedFocus?["full_text"] as? String)?.wholeMatch(of: #/‖ (10:00|9:[0-5]\d) Countdown · Tea │ ‖ \d+:\d\d:\d\d/#) != nil,
            "\(pausedFocus ?? [:])")
        #expect(bar.status == nil, "i3blocks still runs")
    }
}
