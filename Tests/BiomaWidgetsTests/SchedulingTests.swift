import Foundation
import BiomaText
import BiomaWidgets
import Testing

@Suite struct SchedulingTests {
    @Test func stoppedStatesNeverWake() {
        #expect(nextRedraw(after: Fixture.now, state: Fixture.idle) == nil)
        #expect(nextRedraw(after: Fixture.now, state: Fixture.paused) == nil)
        #expect(nextRedraw(after: Fixture.now, state: Fixture.offline) == nil)
        // Offline with stale running values still does not wake.
        var stale = Fixture.project()
        stale.online = false
        #expect(nextRedraw(after: Fixture.now, state: stale) == nil)
    }

    @Test func runningWakesAtTheNextWholeSecondOfAnyDisplayedValue() {
        // Session 329.6 s at t0: next whole second 330 s at t0+0.4 s; daily 9914.7 s: t0+0.3 s.
        #expect(nextRedraw(after: Fixture.t0, state: Fixture.running) == Fixture.t0 + 300_000)
        // At now (t0+0.5 s) session is 330.1 s → 331 s at t0+1.4 s; daily 9915.2 s → t0+1.3 s.
        #expect(nextRedraw(after: Fixture.now, state: Fixture.running) == Fixture.t0 + 1_300_000)
        // The project's values count too: 135.3 s → t0+1.2 s, 5445.4 s → t0+1.1 s.
        #expect(nextRedraw(after: Fixture.now, state: Fixture.project()) == Fixture.t0 + 1_100_000)
    }

    @Test func exactlyOnABoundaryWakesAFullSecondLater() {
        let state = WidgetState(running: true, updatedAt: 0, sessionTime: 5_000_000, dailyTotal: 5_000_000)
        #expect(nextRedraw(after: 0, state: state) == 1_000_000)
        #expect(nextRedraw(after: 999_999, state: state) == 1_000_000)
        #expect(nextRedraw(after: 1_000_000, state: state) == 2_000_000)
    }

    @Test func projectValuesMoveWhileAProjectIsActiveEvenIfWorkIsNot() {
        // The contract advances the project values while ActiveProject is set, and the
        // work values while Running; the two are independent.
        var state = Fixture.project()
        state.running = false
        #expect(nextRedraw(after: Fixture.now, state: state) == Fixture.t0 + 1_100_000)
    }

    @Test func aClockSteppedBackWaitsForTheValuesToMoveAgain() {
        // now is before updatedAt: the values hold at their published amount until
        // updatedAt, then advance.
        #expect(nextRedraw(after: Fixture.t0 - 5_000_000, state: Fixture.running) == Fixture.t0 + 300_000)
    }

    @Test func renderersWakeOnlyForTheTimesTheyShow() throws {
        let state = Fixture.project()
        // The island shows no project times: its next change is the work daily total's.
        #expect(IslandRenderer().displayedTimes == .line)
        #expect(nextRedraw(after: Fixture.now, state: state, showing: IslandRenderer().displayedTimes) == Fixture.t0 + 1_300_000)
        #expect(nextRedraw(after: Fixture.now, state: state, showing: WaybarRenderer().displayedTimes) == Fixture.t0 + 1_100_000)
        let sessionOnly = try TemplateRenderer(template: "{mark} {session}")
        #expect(sessionOnly.displayedTimes == .session)
        #expect(nextRedraw(after: Fixture.now, state: state, showing: sessionOnly.displayedTimes) == Fixture.t0 + 1_400_000)
        // A template without times never needs to wake.
        let nameOnly = try TemplateRenderer(template: "{mark} {project}")
        #expect(nextRedraw(after: Fixture.now, state: state, showing: nameOnly.displayedTimes) == nil)
        let share = try TemplateRenderer(template: "{percentage}%")
        #expect(share.displayedTimes == [.daily, .projectDaily])
    }

    /// The promise the watcher relies on: the output never changes between the instants
    /// nextRedraw returns for it, and (when every value it shows is a time) it does
    /// change at each of them.
    @Test(arguments: [
        "island", "waybar", "i3blocks", "polybar", "tmux", "json", "{project_daily} {session}",
        "{percentage}",
    ])
    func outputChangesExactlyAtTheScheduledInstants(format: String) throws {
        let renderer = try WidgetFormats.renderer(for: format)
        let state = Fixture.project()
        // The json format's raw µs values change every µs by design; its H:MM:SS
        // values and percentage are what a display would show.
        let shown: (Int64) -> String = { instant in
            let line = renderer.render(state, now: instant)
            guard format == "json" else { return line }
            return line.replacingOccurrences(
                of: #""(updated_at|session_time|daily_total|project_session_time|project_daily_total)":\d+,"#,
                with: "", options: .regularExpression)
        }
        var now = Fixture.now
        for _ in 0..<12 {
            guard let next = nextRedraw(after: now, state: state, showing: renderer.displayedTimes) else {
                Issue.record("a running state must schedule a redraw")
                return
            }
            #expect(next > now)
            let before = shown(now)
            for probe in [now + 1, (now + next) / 2, next - 1] where probe < next {
                #expect(shown(probe) == before, "changed early at \(probe - Fixture.t0) µs")
            }
            if !format.contains("percentage") {
                #expect(shown(next) != before, "no change at \(next - Fixture.t0) µs")
            }
            now = next
        }
    }
}

@Suite struct WidgetStateTests {
    @Test func advancedFollowsTheContract() {
        let live = Fixture.project().advanced(to: Fixture.now)
        #expect(live.updatedAt == Fixture.now)
        #expect(live.sessionTime == 330_100_000)
        #expect(live.dailyTotal == 9_915_200_000)
        #expect(live.projectSessionTime == 135_300_000)
        #expect(live.projectDailyTotal == 5_445_400_000)
        #expect(Fixture.paused.advanced(to: Fixture.now).sessionTime == 330_000_000)
        #expect(WidgetState.offline.advanced(to: Fixture.now) == .offline)
    }

    @Test func helpersMatchAdvanced() {
        let state = Fixture.project()
        let at = Fixture.now + 7_654_321
        let live = state.advanced(to: at)
        #expect(state.liveSessionTime(at: at) == live.sessionTime)
        #expect(state.liveDailyTotal(at: at) == live.dailyTotal)
        #expect(state.liveProjectSessionTime(at: at) == live.projectSessionTime)
        #expect(state.liveProjectDailyTotal(at: at) == live.projectDailyTotal)
    }

    @Test func timeNeverRunsBackwards() {
        #expect(Fixture.running.advanced(to: Fixture.t0 - 10_000_000).sessionTime == 329_600_000)
        #expect(Fixture.running.liveDailyTotal(at: Int64.min) == 9_914_700_000)
    }

    @Test func phases() {
        #expect(Fixture.running.phase == .running)
        #expect(Fixture.paused.phase == .paused)
        #expect(Fixture.idle.phase == .idle)
        #expect(WidgetState.offline.phase == .offline)
        // Less than a displayed second on a stopped stopwatch reads as idle, like its 0:00:00.
        let almost = WidgetState(running: false, sessionTime: 999_999)
        #expect(almost.phase == .idle)
    }

    @Test(arguments: [
        (Int64(0), "0:00:00"), (330_999_999, "0:05:30"), (9_915_000_000, "2:45:15"),
        (93_660_000_000, "26:01:00"), (360_000_000_000, "100:00:00"), (-1, "0:00:00"),
        (999_999, "0:00:00"),
    ])
    func durations(microseconds: Int64, shown: String) {
        #expect(DurationFormat.hms(microseconds) == shown)
    }
}
