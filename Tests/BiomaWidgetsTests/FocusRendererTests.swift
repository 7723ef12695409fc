import BiomaReports
import BiomaText
import BiomaWidgets
import DBusCore
import Foundation
import Testing
import BiomaContract

/// Focus timer states on top of the work fixtures. At `Fixture.now` (half a second after
/// `t0`) the time left shows `12:34` unless a test says otherwise.
enum FocusFixture {
    /// 12:34 shown at `now`: 753.7 s left (seconds begun, rounded up).
    static let left: Int64 = 754_200_000

    static func focus(
        _ state: String, kind: String = "pomodoro", phase: String = "work", label: String = "",
        round: UInt32 = 0, rounds: UInt32 = 0, duration: Int64 = 1_500_000_000, left: Int64 = left,
        completed: UInt32 = 0
    ) -> FocusStatus {
        var focus = FocusStatus()
        focus.state = FocusRunState(rawValue: state)!
        focus.kind = kind
        focus.phase = phase
        focus.label = label
        focus.round = round
        focus.rounds = rounds
        focus.phaseDuration = duration
        focus.remaining = left
        focus.updatedAt = Fixture.t0
        focus.phaseEndsAt = state == "running" ? Fixture.t0 + left : 0
        focus.completedToday = completed
        return focus
    }

    static func with(_ work: WidgetState, _ focus: FocusStatus) -> WidgetState {
        var state = work
        state.focus = focus
        return state
    }

    /// A pomodoro's work phase, round 2 of 4, labelled, driving the Client A fixture.
    static let pomodoro = with(Fixture.project(), focus("running", label: "Deep work", round: 2, rounds: 4, completed: 1))
    /// A countdown "Tea", 5 min, 4:59 shown; work idle.
    static let tea = with(
        Fixture.idle, focus("running", kind: "countdown", phase: "countdown", label: "Tea", duration: 300_000_000, left: 299_100_000))
}

@Suite struct FocusIslandTests {
    func island(_ state: WidgetState, ascii: Bool = false, now: Int64 = Fixture.now) -> String {
        IslandRenderer(options: RenderOptions(ascii: ascii)).render(state, now: now)
    }

    @Test func aRunningFocusTimerLeadsAndWorkFollowsCompactly() {
        #expect(island(FocusFixture.pomodoro) == "◷ 12:34 Work 2/4 · Deep work │ ● 0:05:30 · Client A")
        #expect(island(FocusFixture.pomodoro, ascii: true) == "~ 12:34 Work 2/4 - Deep work | * 0:05:30 - Client A")
        // Work idle at zero: nothing of it is shown.
        #expect(island(FocusFixture.tea) == "◷ 4:59 Countdown · Tea")
        // Work stopped with time on the stopwatch: its pause mark and session follow.
        let hours = FocusFixture.with(
            Fixture.paused, FocusFixture.focus("running", kind: "countdown", phase: "countdown", duration: 7_200_000_000, left: 3_722_600_000))
        #expect(island(hours) == "◷ 1:02:03 Countdown │ ‖ 0:05:30")
    }

    @Test func everyPhaseInWords() {
        let cases: [(String, String, UInt32, UInt32, String)] = [
            ("pomodoro", "short-break", 2, 4, "◷ 12:34 Short break 2/4"),
            ("pomodoro", "long-break", 4, 4, "◷ 12:34 Long break 4/4"),
            ("pomodoro", "work", 7, 0, "◷ 12:34 Work 7"),  // endless: just the round
            ("intervals", "active", 3, 10, "◷ 12:34 Active 3/10"),
            ("intervals", "rest", 3, 0, "◷ 12:34 Rest 3"),
            ("countdown", "countdown", 1, 1, "◷ 12:34 Countdown"),  // a countdown has no rounds
        ]
        for (kind, phase, round, rounds, line) in cases {
            let state = FocusFixture.with(
                Fixture.idle, FocusFixture.focus("running", kind: kind, phase: phase, round: round, rounds: rounds))
            #expect(island(state) == line)
        }
    }

    @Test func pausedHoldsTheTimeLeftWithAPauseMark() {
        // Paused holds `Remaining` as published: 754 s reads 12:34.
        let focus = FocusFixture.focus("paused", label: "Deep work", round: 2, rounds: 4, left: 754_000_000)
        // Work stopped with it (a focus timer with a project stops work when paused).
        let paused = FocusFixture.with(Fixture.paused, focus)
        #expect(island(paused) == "‖ 12:34 Work 2/4 · Deep work │ ‖ 0:05:30")
        #expect(island(paused, now: Fixture.now + 3_600_000_000) == "‖ 12:34 Work 2/4 · Deep work │ ‖ 0:05:30")
        #expect(island(paused, ascii: true) == "|| 12:34 Work 2/4 - Deep work | || 0:05:30")
        // Work runs (a focus timer without a project leaves work alone): work leads.
        let working = FocusFixture.with(Fixture.running, focus)
        #expect(island(working) == "▶ 0:05:30 (2:45:15) │ ‖ 12:34 Work 2/4 · Deep work")
    }

    @Test func waitingSaysWhatComesNextAndThatItWaits() {
        let waiting = FocusFixture.with(
            Fixture.paused, FocusFixture.focus("waiting", phase: "work", label: "Deep work", round: 3, rounds: 4))
        #expect(island(waiting) == "◌ Next: Work 3/4, waiting · Deep work │ ‖ 0:05:30")
        #expect(island(waiting, ascii: true) == ".. Next: Work 3/4, waiting - Deep work | || 0:05:30")
    }

    @Test func doneStaysUntilStopped() {
        let tea = FocusFixture.with(
            Fixture.idle, FocusFixture.focus("done", kind: "countdown", phase: "countdown", label: "Tea", left: 0))
        #expect(island(tea) == "✓ Tea done")
        #expect(island(tea, now: Fixture.now + 86_400_000_000) == "✓ Tea done")
        #expect(island(tea, ascii: true) == "!! Tea done")
        let rounds = FocusFixture.with(
            Fixture.paused, FocusFixture.focus("done", kind: "intervals", phase: "active", round: 8, rounds: 8, left: 0))
        #expect(island(rounds) == "✓ Intervals done │ ‖ 0:05:30")
    }

    @Test func theTimeCountsDownAndStopsAtZero() {
        let state = FocusFixture.tea  // 299.1 s left at t0
        #expect(island(state, now: Fixture.t0) == "◷ 5:00 Countdown · Tea")
        #expect(island(state, now: Fixture.t0 + 100_000) == "◷ 4:59 Countdown · Tea")
        #expect(island(state, now: Fixture.t0 + 298_100_000) == "◷ 0:01 Countdown · Tea")
        #expect(island(state, now: Fixture.t0 + 299_100_000) == "◷ 0:00 Countdown · Tea")
        #expect(island(state, now: Fixture.t0 + 999_000_000) == "◷ 0:00 Countdown · Tea")
    }

    @Test func offAndOfflineAreExactlyTheLinesWithoutFocus() {
        for work in [Fixture.idle, Fixture.paused, Fixture.running, Fixture.project()] {
            var off = work
            off.focus = FocusFixture.focus("off", kind: "", phase: "", left: 0)
            for (_, renderer) in Fixture.renderers() {
                #expect(renderer.render(off, now: Fixture.now) == renderer.render(work, now: Fixture.now))
            }
        }
        var offline = WidgetState.offline
        offline.focus = FocusFixture.pomodoro.focus
        #expect(island(offline) == "⊘ offline")
        #expect(FocusDisplay(offline, now: Fixture.now, options: RenderOptions()).active == false)
    }

    @Test func tasksDueStillEndTheLine() {
        var state = FocusFixture.pomodoro
        state.tasks.dueTasks = 2
        state.tasks.openTasks = 5
        #expect(island(state) == "◷ 12:34 Work 2/4 · Deep work │ ● 0:05:30 · Client A ⚑2")
    }

    @Test func longLabelsAreShortened() {
        let state = FocusFixture.with(Fixture.idle, FocusFixture.focus("running", label: Fixture.longName, round: 1, rounds: 4))
        #expect(island(state) == "◷ 12:34 Work 1/4 · A very long project nam…")
    }
}

@Suite struct FocusFormatTests {
    static let hostile = FocusFixture.with(
        Fixture.project(Fixture.hostileName),
        FocusFixture.focus("running", kind: "intervals", phase: "active", label: Fixture.hostileName, round: 3, rounds: 0))

    @Test func waybarClassesPercentageAndTooltip() {
        let line = WaybarRenderer().render(FocusFixture.pomodoro, now: Fixture.now)
        #expect(
            line
                == ##"{"text":"◷ 12:34 Work 2/4 · Deep work │ ● 0:05:30 · <span foreground=\"#007aff\">Client A</span>","alt":"focus-running","tooltip":"Focus: Work 2/4, 12:34 left · Deep work\nCompleted today: 1\nWork: 0:05:30 session, 2:45:15 today\nClient A: 0:02:15 session, 1:30:45 today","class":["running","project","focus","focus-running","kind-pomodoro","phase-work"],"percentage":49}"##
        )
        // 1500 s, 754 s shown left: 746 / 1500 = 49.7 %, floored.
        let tea = WaybarRenderer().render(FocusFixture.tea, now: Fixture.now)
        #expect(
            tea
                == #"{"text":"◷ 4:59 Countdown · Tea","alt":"focus-running","tooltip":"Focus: Countdown, 4:59 left · Tea\nCompleted today: 0\nWork: 0:00:00 session, 2:45:15 today\nNo project running","class":["idle","focus","focus-running","kind-countdown","phase-countdown"],"percentage":0}"#
        )
    }

    @Test func waybarForEachState() throws {
        let cases: [(String, String, [String], Int, String)] = [
            ("paused", "short-break", ["paused", "focus", "focus-paused", "kind-pomodoro", "phase-short-break"], 49, "Focus paused: Short break 2/4, 12:34 left · Deep work"),
            ("waiting", "long-break", ["paused", "focus", "focus-waiting", "kind-pomodoro", "phase-long-break"], 0, "Focus: next Long break 2/4, waiting to start · Deep work"),
            ("done", "work", ["paused", "focus", "focus-done", "kind-pomodoro", "phase-work"], 100, "Focus: Deep work done"),
        ]
        for (focusState, phase, classes, percentage, sentence) in cases {
            let state = FocusFixture.with(
                Fixture.paused, FocusFixture.focus(focusState, phase: phase, label: "Deep work", round: 2, rounds: 4, left: 754_000_000))
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(WaybarRenderer().render(state, now: Fixture.now).utf8))
                    as? [String: Any])
            #expect(object["class"] as? [String] == classes)
            #expect(object["percentage"] as? Int == percentage)
            #expect(object["alt"] as? String == "focus-\(focusState)")
            #expect((object["tooltip"] as? String)?.hasPrefix(sentence + "\nCompleted today: 0\nWork: ") == true)
        }
    }

    @Test func unknownWordsNeverBecomeClasses() {
        let state = FocusFixture.with(Fixture.idle, FocusFixture.focus("running", kind: "Po mo", phase: "<b>"))
        let line = WaybarRenderer().render(state, now: Fixture.now)
        #expect(line.contains(#""class":["idle","focus","focus-running"]"#))
        #expect(line.contains(#""text":"◷ 12:34 &lt;b&gt;""#))
    }

    @Test func i3blocksShortTextIsTheFocusTimer() {
        #expect(
            I3blocksRenderer().render(FocusFixture.pomodoro, now: Fixture.now)
                == ##"{"full_text":"◷ 12:34 Work 2/4 · Deep work │ ● 0:05:30 · Client A","short_text":"◷ 12:34","color":"#007aff","markup":"pango"}"##
        )
        let done = FocusFixture.with(Fixture.idle, FocusFixture.focus("done", kind: "countdown", phase: "countdown", label: "Tea"))
        #expect(
            I3blocksRenderer().render(done, now: Fixture.now)
                == #"{"full_text":"✓ Tea done","short_text":"✓ Tea done","markup":"pango"}"#)
    }

    @Test func polybarAndTmux() {
        #expect(
            PolybarRenderer().render(FocusFixture.pomodoro, now: Fixture.now)
                == "◷ 12:34 Work 2/4 · Deep work │ ● 0:05:30 · %{F#007aff}Client A%{F-}")
        #expect(
            TmuxRenderer().render(FocusFixture.pomodoro, now: Fixture.now)
                == "◷ 12:34 Work 2/4 · Deep work │ ● 0:05:30 · #[fg=#007aff]Client A#[default]")
    }

    @Test func jsonHasTheFocusObject() {
        let line = JSONStateRenderer().render(FocusFixture.pomodoro, now: Fixture.now)
        let left = FocusFixture.left - 500_000
        #expect(
            line.hasSuffix(
                #","open_tasks":0,"due_tasks":0,"focus":{"state":"running","kind":"pomodoro","phase":"work","label":"Deep work","round":2,"rounds":4,"phase_duration":1500000000,"remaining":\#(left),"phase_ends_at":\#(Fixture.t0 + FocusFixture.left),"updated_at":\#(Fixture.t0),"project":"","completed_today":1,"remaining_text":"12:34","phase_name":"Work","round_text":"2/4","progress":49}}"#
            ))
        // Without a focus timer the object has no focus key at all.
        #expect(!JSONStateRenderer().render(Fixture.project(), now: Fixture.now).contains("focus"))
    }

    @Test func templateFields() throws {
        let template = try TemplateRenderer(
            template:
                "{focus_state}|{focus_kind}|{focus_phase}|{focus_phase_name}|{focus_remaining}|{focus_round}|{focus_rounds}|{focus_round_text}|{focus_label}|{focus_progress}|{focus_completed}|{focus_mark}|{focus}"
        )
        #expect(
            template.render(FocusFixture.pomodoro, now: Fixture.now)
                == "running|pomodoro|work|Work|12:34|2|4|2/4|Deep work|49|1|◷|◷ 12:34 Work 2/4 · Deep work")
        let endless = FocusFixture.with(Fixture.idle, FocusFixture.focus("paused", kind: "intervals", phase: "rest", round: 5, left: 754_000_000))
        #expect(template.render(endless, now: Fixture.now) == "paused|intervals|rest|Rest|12:34|5||5||49|0|‖|‖ 12:34 Rest 5")
        #expect(template.render(Fixture.running, now: Fixture.now) == "off|||||||||0|0||")
        #expect(try TemplateRenderer(template: "{focus_remaining}").displayedTimes == .focus)
        #expect(try TemplateRenderer(template: "{focus_label} {focus_state}").displayedTimes == [])
    }

    @Test func statusTextHasAFocusLine() throws {
        #expect(
            try StatusText.render(FocusFixture.pomodoro, now: Fixture.now, format: nil, ascii: false)
                == "0:05:30 (2:45:15)\nClient A 0:02:15 (1:30:45)\nFocus: Work 2/4, 12:34 left · Deep work\n")
        let done = FocusFixture.with(Fixture.idle, FocusFixture.focus("done", kind: "countdown", phase: "countdown", label: "Tea"))
        #expect(try StatusText.render(done, now: Fixture.now, format: nil, ascii: true) == "0:00:00 (2:45:15)\nFocus: Tea done\n")
        #expect(
            try StatusText.render(Fixture.running, now: Fixture.now, format: nil, ascii: false) == "0:05:30 (2:45:15)\n")
    }

    /// The hostile label is plain text in every format: escaped for each bar's markup, and
    /// shortened to 24 columns in lines (tooltips and JSON have it whole).
    @Test func hostileLabelInEveryFormat() {
        let now = Fixture.now
        let s = Self.hostile
        #expect(
            IslandRenderer().render(s, now: now)
                == ##"◷ 12:34 Active 3 · R&D <b>"x"</b> %{F#f00}… │ ● 0:05:30 · R&D <b>"x"</b> %{F#f00}…"##)
        #expect(
            WaybarRenderer().render(s, now: now)
                == ##"{"text":"◷ 12:34 Active 3 · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}… │ ● 0:05:30 · <span foreground=\"#007aff\">R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…</span>","alt":"focus-running","tooltip":"Focus: Active 3, 12:34 left · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00} #[fg=red]\nCompleted today: 0\nWork: 0:05:30 session, 2:45:15 today\nR&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00} #[fg=red]: 0:02:15 session, 1:30:45 today","class":["running","project","focus","focus-running","kind-intervals","phase-active"],"percentage":49}"##
        )
        #expect(
            I3blocksRenderer().render(s, now: now)
                == ##"{"full_text":"◷ 12:34 Active 3 · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}… │ ● 0:05:30 · R&amp;D &lt;b&gt;&quot;x&quot;&lt;/b&gt; %{F#f00}…","short_text":"◷ 12:34","color":"#007aff","markup":"pango"}"##
        )
        #expect(
            PolybarRenderer().render(s, now: now)
                == "◷ 12:34 Active 3 · R&D <b>\"x\"</b> %\u{200B}{F#f00}… │ ● 0:05:30 · %{F#007aff}R&D <b>\"x\"</b> %\u{200B}{F#f00}…%{F-}"
        )
        #expect(
            TmuxRenderer().render(s, now: now)
                == ##"◷ 12:34 Active 3 · R&D <b>"x"</b> %{F##f00}… │ ● 0:05:30 · #[fg=#007aff]R&D <b>"x"</b> %{F##f00}…#[default]"##
        )
        let json = JSONStateRenderer().render(s, now: now)
        #expect(json.contains(##""label":"R&D <b>\"x\"</b> %{F#f00} #[fg=red]""##))
        let template = try? TemplateRenderer(template: "{focus_label}")
        #expect(template?.render(s, now: now) == ##"R&D <b>"x"</b> %{F#f00}…"##)
        let unshortened = try? TemplateRenderer(template: "{focus_label}", options: RenderOptions(maxNameWidth: nil))
        #expect(unshortened?.render(s, now: now) == ##"R&D <b>"x"</b> %{F#f00} #[fg=red]"##)
        // Control characters in a label never split a line.
        var newline = Self.hostile
        newline.focus.label = "a\nb\u{1B}[31mc"
        for (name, renderer) in Fixture.renderers() {
            let line = renderer.render(newline, now: now)
            #expect(!line.contains("\n") && !line.contains("\u{1B}"), "\(name): \(line)")
        }
    }
}

@Suite struct FocusSchedulingTests {
    @Test func aRunningPhaseWakesOncePerDisplayedSecond() {
        // Work idle, the countdown alone moves: 299.1 s left at t0.
        let tea = FocusFixture.tea
        #expect(nextRedraw(after: Fixture.t0, state: tea) == Fixture.t0 + 100_000)
        #expect(nextRedraw(after: Fixture.t0 + 100_000, state: tea) == Fixture.t0 + 1_100_000)
        // Its last second, then nothing: the end is the daemon's to announce.
        #expect(nextRedraw(after: Fixture.t0 + 298_100_000, state: tea) == Fixture.t0 + 299_100_000)
        #expect(nextRedraw(after: Fixture.t0 + 299_100_000, state: tea) == nil)
        // Every line format shows it.
        for (_, renderer) in Fixture.renderers() {
            #expect(nextRedraw(after: Fixture.t0, state: tea, showing: renderer.displayedTimes) == Fixture.t0 + 100_000)
        }
    }

    @Test func pausedWaitingAndDoneNeverWakeUnlessWorkTicks() {
        for focusState in ["paused", "waiting", "done"] {
            let still = FocusFixture.with(Fixture.paused, FocusFixture.focus(focusState))
            #expect(nextRedraw(after: Fixture.now, state: still) == nil, "\(focusState)")
            // Work running: its own second, as without a focus timer.
            let working = FocusFixture.with(Fixture.running, FocusFixture.focus(focusState))
            #expect(nextRedraw(after: Fixture.now, state: working) == nextRedraw(after: Fixture.now, state: Fixture.running))
        }
        var offline = WidgetState.offline
        offline.focus = FocusFixture.tea.focus
        #expect(nextRedraw(after: Fixture.now, state: offline) == nil)
    }

    @Test func workAndFocusTogetherWakeAtTheEarliest() {
        // Work reaches its next second at t0 + 1.3 s (daily total) / 1.1 s (project);
        // the focus timer at t0 + 0.2 s + n s (754.2 s left at t0).
        let state = FocusFixture.pomodoro
        #expect(nextRedraw(after: Fixture.now, state: state, showing: IslandRenderer().displayedTimes) == Fixture.t0 + 1_200_000)
        #expect(nextRedraw(after: Fixture.t0 + 1_200_000, state: state, showing: .work) == Fixture.t0 + 1_300_000)
        // A template without focus times does not wake for the focus timer.
        let template = try? TemplateRenderer(template: "{focus_label}")
        #expect(template.map { nextRedraw(after: Fixture.now, state: state, showing: $0.displayedTimes) } == .some(nil))
    }

    /// The promise the watch relies on, for the focus timer: the line never changes between
    /// the scheduled instants and changes at each of them.
    @Test(arguments: ["island", "waybar", "i3blocks", "polybar", "tmux", "{focus_remaining}", "{focus_progress}"])
    func outputChangesExactlyAtTheScheduledInstants(format: String) throws {
        let renderer = try WidgetFormats.renderer(for: format)
        let state = FocusFixture.tea
        var now = Fixture.now
        for _ in 0..<12 {
            let next = try #require(nextRedraw(after: now, state: state, showing: renderer.displayedTimes))
            let before = renderer.render(state, now: now)
            for probe in [now + 1, (now + next) / 2, next - 1] where probe < next {
                #expect(renderer.render(state, now: probe) == before)
            }
            if format != "{focus_progress}" { #expect(renderer.render(state, now: next) != before) }
            now = next
        }
    }
}

@Suite struct FocusPropertyTests {
    /// What the daemon publishes decodes into the same value: GetAll, and a
    /// PropertiesChanged carrying only what changed.
    @Test func focusStatusRoundTripsThroughItsTable() throws {
        let original = FocusFixture.focus("running", kind: "intervals", phase: "rest", label: Fixture.hostileName, round: 3, rounds: 8, completed: 4)
        let all = FocusStatus.table.values(of: original)
        #expect(Set(all.keys) == Set(FocusStatus.table.names))
        let state = WidgetState(properties: [ContractNames.focusInterface: all])
        #expect(state.focus == original)
        #expect(state.timer == WorkStatus())

        var paused = original
        paused.state = .paused
        paused.phaseEndsAt = 0
        paused.remaining = 100_000_000
        paused.updatedAt = Fixture.t0 + 5_000_000
        var decoded = state
        let changes = try #require(FocusStatus.table.changes(from: original, to: paused))
        decoded.apply(Dictionary(uniqueKeysWithValues: changes), interface: ContractNames.focusInterface)
        #expect(decoded.focus == paused)
        #expect(Set(changes.map(\.0)) == ["State", "PhaseEndsAt", "Remaining", "UpdatedAt"])
        // Another interface's changes leave the focus timer alone.
        decoded.apply(["State": .string("off")], interface: ContractNames.tasksInterface)
        #expect(decoded.focus == paused)
    }
}
