import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Issue 5 end to end: `biomatimer watch` against a real daemon on a private bus, then the
/// real bars (Debian's i3blocks and waybar in a headless sway) running the sample
/// configurations in `Widgets/`. Times in expected lines are written `T` (see `normalized`);
/// the seconds themselves are checked separately where they matter.
@Suite(.timeLimit(.minutes(1)))
struct WidgetTests {
    static let hostileName = ##"R&D <b>"x"</b> %{F#f00} #[fg=red]"##

    // MARK: - 1. watch: exact lines for start, stop and project switches; ticking

    @Test func watchPrintsExactLinesForStartStopAndProjectSwitches() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("#ff8800")])
        _ = try f.method("AddProject", [.string("Internal"), .string("")])

        let watch = try Watch(f, ["--format", "waybar"])
        defer { watch.stop() }

        // The first line is the daemon's state: no `offline` flash before the first read.
        let first = try #require(watch.lines.next(), "no first line from watch: \(watch.errors)")
        #expect(first.text == Waybar.idle)
        // Idle: nothing moves, so nothing is printed, and (once the start-up replies are
        // handled) no thread of the watch even wakes.
        #expect(watch.lines.collect(for: 0.3).map(\.text) == [])
        let idleSwitches = try #require(contextSwitches(of: watch.process.pid))
        #expect(watch.lines.collect(for: 1.0).map(\.text) == [])
        #expect(contextSwitches(of: watch.process.pid) == idleSwitches, "the idle watch woke up")

        // Start: the new line comes at once (flushed through a pipe, not a terminal).
        let before = Date()
        _ = try f.method("Start")
        let started = try #require(watch.lines.next(timeout: 3), "no line after Start")
        #expect(normalized(started.text) == Waybar.running)
        #expect(started.at.timeIntervalSince(before) < 0.5, "the Start line took \(started.at.timeIntervalSince(before)) s")

        // Running: a new line exactly when the displayed second changes, one second apart,
        // each one second more.
        let tick1 = try #require(watch.lines.next(timeout: 2.5), "no tick while running")
        let tick2 = try #require(watch.lines.next(timeout: 2.5), "no second tick while running")
        for tick in [tick1, tick2] { #expect(normalized(tick.text) == Waybar.running) }
        let s0 = try #require(seconds(started.text)), s1 = try #require(seconds(tick1.text))
        let s2 = try #require(seconds(tick2.text))
        #expect(s1 == s0 + 1 && s2 == s1 + 1, "seconds \(s0), \(s1), \(s2)")
        let gap = tick2.at.timeIntervalSince(tick1.at)
        #expect(gap > 0.6 && gap < 1.4, "ticks \(gap) s apart")

        // Switching projects: each operation's line, possibly after ticks of the old state.
        var last = Waybar.running
        func expectTransition(_ operation: () throws -> Void, to template: String, _ what: String) throws -> Line {
            try operation()
            let line = try #require(
                watch.lines.next(timeout: 3) { normalized($0) != last }, "no line after \(what)")
            #expect(normalized(line.text) == template, "after \(what)")
            last = template
            return line
        }
        _ = try expectTransition({ try f.cli(["project", "next"]) }, to: Waybar.project("Client A", "#ff8800"), "project next")
        _ = try expectTransition({ try f.cli(["project", "next"]) }, to: Waybar.project("Internal", "#007aff"), "project next")
        _ = try expectTransition({ try f.cli(["project", "prev"]) }, to: Waybar.project("Client A", "#ff8800"), "project prev")
        let stopped = try expectTransition({ try f.cli(["stop"]) }, to: Waybar.paused, "stop")

        // Stopped: the watch does not wake up (no context switch in any of its threads), so
        // it prints nothing more.
        #expect(watch.lines.collect(for: 0.3).map(\.text) == [])
        let stoppedSwitches = try #require(contextSwitches(of: watch.process.pid))
        #expect(watch.lines.collect(for: 1.5).map(\.text) == [])
        #expect(contextSwitches(of: watch.process.pid) == stoppedSwitches, "the stopped watch woke up")
        // And the paused line shows the stopwatch as the daemon holds it.
        let session = try #require(try f.properties()["SessionTime"]?.int64)
        #expect(seconds(stopped.text) == Int(session / 1_000_000), "daemon says \(session) µs")
        #expect(watch.process.status == nil, "watch still runs")
    }

    // MARK: - 2. A daemon restart during a watch

    @Test func watchGoesOfflineWhenTheDaemonGoesAndComesBackWithTheRightState() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("#ff8800")])
        _ = try f.method("StartProject", [.string("Client A")])
        let watch = try Watch(f, ["--format", "waybar"])
        defer { watch.stop() }
        let first = try #require(watch.lines.next(), "no first line: \(watch.errors)")
        #expect(normalized(first.text) == Waybar.project("Client A", "#ff8800"))

        for (sig, name) in [(SIGTERM, "SIGTERM"), (SIGKILL, "SIGKILL")] {
            let pid = try #require(try f.daemonPID())
            kill(pid, sig)
            let offline = try #require(
                watch.lines.next(timeout: 5) { $0.contains("offline") }, "no offline line after \(name)")
            #expect(offline.text == Waybar.offline, "after \(name)")
            // Offline never ticks.
            #expect(watch.lines.collect(for: 1.0).map(\.text) == [], "after \(name)")

            // Any call starts the daemon again by activation; the watch follows it by itself.
            if sig == SIGTERM {
                let state = try f.properties()
                let back = try #require(watch.lines.next(timeout: 5), "the line did not come back after \(name)")
                #expect(try f.daemonPID() != pid)
                // The line shows what the new daemon says (today: still running Client A,
                // as the open interval survives a clean exit).
                let running = state["Running"] == .boolean(true)
                let expected =
                    running && state["ActiveProjectName"] == .string("Client A")
                    ? Waybar.project("Client A", "#ff8800") : running ? Waybar.running : Waybar.paused
                #expect(normalized(back.text) == expected, "after \(name); daemon: \(state)")
                let shown = try #require(seconds(back.text))
                let session = Int((state["SessionTime"]?.int64 ?? 0) / 1_000_000)
                #expect(shown >= session && shown <= session + 2, "shows \(shown) s, daemon had \(session) s")
            } else {
                #expect(try f.cli(["stop"]).status == 0)
                let back = try #require(
                    watch.lines.next(timeout: 5) { normalized($0) == Waybar.paused },
                    "the line did not come back paused after \(name)")
                let state = try f.properties()
                #expect(state["Running"] == .boolean(false))
                let session = try #require(state["SessionTime"]?.int64)
                #expect(seconds(back.text) == Int(session / 1_000_000))
            }
        }
        #expect(watch.process.status == nil, "watch survives the daemon's restarts")
    }

    // MARK: - 3. The hostile name through every format

    @Test func hostileNameShowsLiterallyInEveryFormat() throws {
        let f = try DaemonFixture()
        let id = try #require(try f.method("AddProject", [.string(Self.hostileName), .string("")]).first?.string)
        _ = try f.method("StartProject", [.string(id)])
        let formats = ["waybar", "i3blocks", "polybar", "tmux", "island", "json"]
        var watches: [String: Watch] = [:]
        defer { watches.values.forEach { $0.stop() } }
        for format in formats { watches[format] = try Watch(f, ["--format", format]) }
        var line: [String: String] = [:]
        for format in formats { line[format] = watches[format]?.lines.next()?.text }

        // What a person must see: the name as typed (shortened to 24 columns in the line).
        let shortName = ##"R&D <b>"x"</b> %{F#f00}…"##
        let seen = "● T (T) · \(shortName)"

        // waybar: Pango-escaped, then JSON-escaped; one span (ours) with the colour.
        let waybar = try #require(line["waybar"].flatMap(jsonObject), "waybar: \(line["waybar"] ?? "nothing")")
        let text = try #require(waybar["text"] as? String)
        #expect(
            normalized(text)
                == ##"● T (T) · <span foreground="#007aff">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…</span>"##)
        let markup = try #require(Markup(text), "waybar text is not valid Pango markup: \(text)")
        #expect(normalized(markup.text) == seen)
        #expect(markup.elements == ["span foreground=#007aff"], "only our span, no <b> from the name")
        let tooltip = try #require((waybar["tooltip"] as? String).flatMap(Markup.init), "waybar tooltip markup")
        #expect(normalized(tooltip.text) == "Work: T session, T today\n\(Self.hostileName): T session, T today")
        #expect(tooltip.elements == [])
        #expect(waybar["class"] as? [String] == ["running", "project"])

        // i3blocks: Pango-escaped full_text, declared as Pango, the project colour on the block.
        let i3 = try #require(line["i3blocks"].flatMap(jsonObject), "i3blocks: \(line["i3blocks"] ?? "nothing")")
        let full = try #require(i3["full_text"] as? String)
        #expect(normalized(full) == "● T (T) · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…")
        let fullMarkup = try #require(Markup(full), "i3blocks full_text is not valid Pango markup")
        #expect(normalized(fullMarkup.text) == seen && fullMarkup.elements == [])
        #expect(i3["markup"] as? String == "pango" && i3["color"] as? String == "#007aff")

        // polybar: `%{` broken by a zero width space; tmux: `#` doubled.
        #expect(normalized(line["polybar"] ?? "") == "● T (T) · %{F#007aff}R&D <b>\"x\"</b> %\u{200B}{F#f00}…%{F-}")
        #expect(normalized(line["tmux"] ?? "") == ##"● T (T) · #[fg=#007aff]R&D <b>"x"</b> %{F##f00}…#[default]"##)
        #expect(normalized(line["island"] ?? "") == seen)
        // json: the whole name, unshortened.
        let json = try #require(line["json"].flatMap(jsonObject), "json: \(line["json"] ?? "nothing")")
        #expect(json["active_project_name"] as? String == Self.hostileName)
        #expect(json["state"] as? String == "running")

        // A name short enough to show whole, so its tail (`#[fg=red]`, quotes) is in every
        // line too. Switching to it is one more change each watch follows.
        let short = ##"#[fg=red]%{F#f00}<i>&"'"##
        _ = try f.method("AddProject", [.string(short), .string("#FF8800")])
        _ = try f.method("StartProject", [.string(short)])
        for format in formats {
            line[format] = watches[format]?.lines.next(timeout: 5) { $0.contains("[fg=red]%") }?.text
        }
        let seenShort = "● T (T) · \(short)"
        let waybarShort = try #require(line["waybar"].flatMap(jsonObject)?["text"] as? String)
        #expect(normalized(waybarShort) == ##"● T (T) · <span foreground="#ff8800">#[fg=red]%{F#f00}&lt;i&gt;&amp;&quot;&#39;</span>"##)
        #expect(Markup(waybarShort).map { normalized($0.text) } == seenShort)
        let i3Short = try #require(line["i3blocks"].flatMap(jsonObject))
        #expect(normalized(i3Short["full_text"] as? String ?? "") == "● T (T) · #[fg=red]%{F#f00}&lt;i&gt;&amp;&quot;&#39;")
        #expect((i3Short["full_text"] as? String).flatMap(Markup.init).map { normalized($0.text) } == seenShort)
        #expect(i3Short["color"] as? String == "#ff8800")
        #expect(normalized(line["polybar"] ?? "") == "● T (T) · %{F#ff8800}#[fg=red]%\u{200B}{F#f00}<i>&\"'%{F-}")
        #expect(normalized(line["tmux"] ?? "") == ##"● T (T) · #[fg=#ff8800]##[fg=red]%{F##f00}<i>&"'#[default]"##)
        #expect(normalized(line["island"] ?? "") == seenShort)
        #expect(line["json"].flatMap(jsonObject)?["active_project_name"] as? String == short)
    }

    /// i3blocks 1.5 and later write a persistent block's clicks to its stdin and export
    /// `BLOCK_INTERVAL=persist`. Debian has 1.4, so this plays i3blocks 1.5 (its format=json
    /// click line); the real i3blocks 1.4 is in the next test.
    @Test func persistentBlockClicksOnStdinDriveTheTimer() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("")])
        var env = f.environment
        env["BLOCK_INTERVAL"] = "persist"
        let watch = try Watch(f, ["--format", "i3blocks"], environment: env, pipeInput: true)
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

    // MARK: - 4. Debian's i3blocks running Widgets/i3blocks/i3blocks.conf

    @Test func realI3blocksRunsTheSampleConfigAndItsClickBlock() throws {
        let i3blocks = "/usr/bin/i3blocks"
        try #require(
            FileManager.default.isExecutableFile(atPath: i3blocks),
            "i3blocks is not installed (Debian package i3blocks; `make deps`): the real-bar test cannot run")
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("#ff8800")])
        _ = try f.method("AddProject", [.string("Internal"), .string("")])
        _ = try f.method("AddProject", [.string(Self.hostileName), .string("")])

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
        #expect(block("a tick") { ($0["full_text"] as? String)?.hasPrefix("● 0:00:01 (0:00:01)") == true } != nil)
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
        #expect(waitUntil(timeout: 5) { (try? f.properties()["ActiveProjectName"]) == .string(Self.hostileName) })
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
        #expect(bar.status == nil, "i3blocks still runs")
    }

    // MARK: - 5. Debian's waybar in a headless sway, as an unprivileged user

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
            try session.cli(["project", "add", Self.hostileName]).stdout.split(separator: "\n").first.map(String.init))
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
        #expect(final["running"] as? Bool == true && final["active_project_name"] as? String == Self.hostileName)

        // The screenshot: each bar drawn with the `running project` CSS (green text and
        // underline) and the name in its colour, the same on both; nothing in the offline
        // colour or in the red the name's `%{F#f00}` and `#[fg=red]` ask other bars for.
        let screenshot = out.appendingPathComponent("screenshot.png")
        var bars: [[Int]] = []
        for top in [0, 200] {
            let pixels = try runProcess(
                "/usr/bin/python3",
                ["-c", pngColourCounter, screenshot.path, "\(top)", "30", "a6e3a1", "007aff", "f38ba8", "ff0000", "1e1e2e"])
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

// MARK: - Expected waybar lines

/// The watch's waybar lines, with every `H:MM:SS` written `T`.
private enum Waybar {
    static let idle =
        #"{"text":"○ 0:00:00 (0:00:00)","alt":"idle","tooltip":"Work: 0:00:00 session, 0:00:00 today\nNo project running","class":["idle"],"percentage":0}"#
    static let running =
        #"{"text":"▶ T (T)","alt":"running","tooltip":"Work: T session, T today\nNo project running","class":["running"],"percentage":0}"#
    static let paused =
        #"{"text":"‖ T (T)","alt":"paused","tooltip":"Work: T session, T today\nNo project running","class":["paused"],"percentage":0}"#
    static let offline =
        #"{"text":"⊘ offline","alt":"offline","tooltip":"biomatimer: the daemon is not running","class":["offline"],"percentage":0}"#
    /// A running project (its percentage written `P`).
    static func project(_ name: String, _ color: String, tooltipName: String? = nil) -> String {
        #"{"text":"● T (T) · <span foreground=\"\#(color)\">\#(name)</span>","alt":"running","tooltip":"Work: T session, T today\n\#(tooltipName ?? name): T session, T today","class":["running","project"],"percentage":P}"#
    }
}

/// Every `H:MM:SS` as `T`, and a waybar percentage as `P` (after checking it is 0–100).
private func normalized(_ line: String) -> String {
    var text = line.replacing(#/\d+:\d\d:\d\d/#, with: "T")
    if text.contains(#""class":["running","project"]"#) {
        text = text.replacing(#/"percentage":(100|[1-9]?\d)}$/#, with: #""percentage":P}"#)
    }
    return text
}

/// The first `H:MM:SS` in a line, in seconds.
private func seconds(_ line: String) -> Int? {
    guard let match = line.firstMatch(of: #/(\d+):(\d\d):(\d\d)/#),
        let h = Int(match.1), let m = Int(match.2), let s = Int(match.3)
    else { return nil }
    return h * 3600 + m * 60 + s
}

private func jsonObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// The blocks of one i3bar status line as i3blocks writes it (`[[]`, then `,[…]` lines).
private func statusLineBlocks(_ line: String) -> [[String: Any]]? {
    var text = Substring(line)
    if text.hasPrefix(",") { text = text.dropFirst() }
    guard text.hasPrefix("[{") else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]]
}

/// Pango markup read as GMarkup reads it (XML without a root): the text a person sees and
/// the elements with their attributes.
private struct Markup {
    var text: String
    var elements: [String]

    init?(_ markup: String) {
        let reader = MarkupReader()
        let parser = XMLParser(data: Data("<markup>\(markup)</markup>".utf8))
        parser.delegate = reader
        guard parser.parse() else { return nil }
        text = reader.text
        elements = reader.elements.filter { $0 != "markup" }
    }
}

private final class MarkupReader: NSObject, XMLParserDelegate {
    var text = ""
    var elements: [String] = []
    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(([elementName] + attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " "))
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}

// MARK: - Processes

private struct Line: Sendable {
    var text: String
    var at: Date
}

/// The lines a child prints, each with the instant it arrived, read on a thread of its own
/// so every wait can be bounded.
private final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [Line] = []
    private var ended = false

    init(_ child: ChildProcess) {
        Thread.detachNewThread { [self] in
            while let text = child.readLine() {
                condition.lock()
                lines.append(Line(text: text, at: Date()))
                condition.broadcast()
                condition.unlock()
            }
            condition.lock()
            ended = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The next unread line, waiting at most `timeout` seconds.
    func next(timeout: TimeInterval = 5) -> Line? {
        let end = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty && !ended {
            if !condition.wait(until: end) { break }
        }
        return lines.isEmpty ? nil : lines.removeFirst()
    }

    /// Reads lines until one satisfies `match` (the others are dropped), within `timeout`.
    func next(timeout: TimeInterval = 5, where match: (String) -> Bool) -> Line? {
        let end = Date().addingTimeInterval(timeout)
        while let line = next(timeout: max(0, end.timeIntervalSinceNow)) {
            if match(line.text) { return line }
        }
        return nil
    }

    /// Every line that arrives within the next `seconds`.
    func collect(for seconds: TimeInterval) -> [Line] {
        Thread.sleep(forTimeInterval: seconds)
        condition.lock()
        defer { condition.unlock() }
        let taken = lines
        lines.removeAll()
        return taken
    }
}

/// Reads a pipe to its end on a thread, so a chatty child never blocks on it.
private final class Drain: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    init(_ handle: FileHandle?) {
        guard let handle else { return }
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(handle.fileDescriptor, &buffer, buffer.count)
                if n <= 0 { break }
                lock.lock()
                data.append(contentsOf: buffer[0..<n])
                lock.unlock()
            }
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

/// `biomatimer watch ARGS` against a fixture's bus, its lines read as they come.
private final class Watch: @unchecked Sendable {
    let process: ChildProcess
    let lines: LineReader
    private let stderr: Drain

    init(_ f: DaemonFixture, _ arguments: [String], environment: [String: String]? = nil, pipeInput: Bool = false) throws {
        process = try ChildProcess(
            DaemonFixture.binary, ["watch"] + arguments, environment: environment ?? f.environment, pipeInput: pipeInput)
        lines = LineReader(process)
        stderr = Drain(process.stderr)
    }

    var errors: String { stderr.text }

    func stop() { process.terminate(grace: 2) }
}

/// The environment variable that marks every process a test starts through a bar, so the
/// test can stop exactly those (bars do not always stop their blocks).
private let tagVariable = "BIOMATIMER_TEST_TAG"

/// SIGTERM, then SIGKILL after 2 s, to every process whose environment carries `tag`.
private func stopTagged(_ tag: String) {
    func tagged() -> [pid_t] {
        let marker = Data("\(tagVariable)=\(tag)".utf8)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), pid != getpid(),
                let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ")
            else { return nil }
            return environ.split(separator: 0).contains { Data($0) == marker } ? pid : nil
        }
    }
    for pid in tagged() { kill(pid, SIGTERM) }
    if !waitUntil(timeout: 2, { tagged().isEmpty }) {
        for pid in tagged() { kill(pid, SIGKILL) }
    }
}

/// A bus, the daemon it activates and the CLI, all as one unprivileged user: `biomatest`
/// when the tests run as root (sway refuses root, and a bus admits only its own uid),
/// otherwise the current user. Uses `setpriv` to switch.
private final class UserSession: @unchecked Sendable {
    static let userName = "biomatest"
    /// The user to run as, nil when that is the current one.
    let user: String?
    let address: String
    private let directory: URL
    private let bus: ChildProcess
    private let prefix: [String]
    private let environment: [String: String]

    init() throws {
        var env = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        if getuid() == 0 {
            if getpwnam(Self.userName) == nil {
                let made = try runProcess("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", Self.userName])
                guard made.status == 0 else { throw TestSupportError("useradd \(Self.userName): \(made.stderr)") }
            }
            guard let entry = getpwnam(Self.userName) else { throw TestSupportError("no user \(Self.userName)") }
            let uid = entry.pointee.pw_uid, gid = entry.pointee.pw_gid
            user = Self.userName
            env["HOME"] = String(cString: entry.pointee.pw_dir)
            prefix = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups"]
            directory = try makeTemporaryDirectory("biomatimer-usersession")
            chmod(directory.path, 0o755)
            for sub in ["socket", "services", "data"] {
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
                chown(directory.appendingPathComponent(sub).path, uid, gid)
            }
        } else {
            user = nil
            env["HOME"] = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
            prefix = []
            directory = try makeTemporaryDirectory("biomatimer-usersession")
            for sub in ["socket", "services", "data"] {
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
        }
        // The binary must be usable by that user (a build folder under a private home is not).
        let check = try runProcess(
            (prefix + ["/usr/bin/test"])[0], Array((prefix + ["/usr/bin/test", "-x", DaemonFixture.binary]).dropFirst()))
        guard check.status == 0 else {
            throw TestSupportError("\(DaemonFixture.binary) is not executable by \(user ?? "this user"): \(check.stderr)")
        }
        let template = try String(
            contentsOf: repositoryRoot.appendingPathComponent("dbus/private-bus.conf.in"), encoding: .utf8)
        let config = directory.appendingPathComponent("bus.conf")
        try template.replacingOccurrences(of: "@LISTEN_DIR@", with: directory.appendingPathComponent("socket").path)
            .replacingOccurrences(of: "@SERVICE_DIR@", with: directory.appendingPathComponent("services").path)
            .write(to: config, atomically: true, encoding: .utf8)
        try "[D-BUS Service]\nName=\(TimerAPI.busName)\nExec=\(DaemonFixture.binary) daemon --data-dir \(directory.appendingPathComponent("data").path)\n"
            .write(
                to: directory.appendingPathComponent("services/\(TimerAPI.busName).service"), atomically: true,
                encoding: .utf8)
        chmod(config.path, 0o644)
        chmod(directory.appendingPathComponent("services/\(TimerAPI.busName).service").path, 0o644)
        let command = ["/usr/bin/dbus-daemon", "--config-file=\(config.path)", "--nofork", "--nopidfile", "--print-address=1"]
        bus = try ChildProcess((prefix + command)[0], Array((prefix + command).dropFirst()), environment: env)
        guard let line = bus.readLine(), !line.isEmpty else {
            bus.terminate()
            throw TestSupportError("dbus-daemon as \(user ?? "this user") did not start")
        }
        address = line.trimmingCharacters(in: .whitespacesAndNewlines)
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        environment = env
    }

    /// `biomatimer ARGS` as the session's user.
    @discardableResult
    func cli(_ arguments: [String]) throws -> ProcessResult {
        let command = prefix + [DaemonFixture.binary] + arguments
        return try runProcess(command[0], Array(command.dropFirst()), environment: environment, timeout: 10)
    }

    /// Stops the bus (the daemon it started exits with it) and removes the folder.
    func stop() {
        bus.terminate(grace: 2)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Python (no modules beyond the standard library): counts the pixels of a PNG's rows
/// TOP..<TOP+ROWS within 8 per channel of each given colour. argv: file top rows colour…
private let pngColourCounter = #"""
import struct, sys, zlib
path, top, rows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
colours = [tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)) for c in sys.argv[4:]]
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    pos += 12 + length
    if kind == b"IHDR":
        width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
assert depth == 8 and interlace == 0 and ctype in (2, 6), (depth, ctype, interlace)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
prev = bytearray(stride)
counts = [0] * len(colours)
i = 0
for y in range(min(top + rows, height)):
    kind = raw[i]
    line = bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if kind == 1: line[x] = (line[x] + a) & 255
        elif kind == 2: line[x] = (line[x] + b) & 255
        elif kind == 3: line[x] = (line[x] + ((a + b) >> 1)) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(width if y >= top else 0):
        pixel = line[x * bpp:x * bpp + 3]
        for k, colour in enumerate(colours):
            if all(abs(pixel[j] - colour[j]) <= 8 for j in range(3)):
                counts[k] += 1
    prev = line
print(" ".join(map(str, counts)))
"""#
