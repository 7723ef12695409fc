import BiomaWidgets
import Testing

/// Daily targets on the bars: the island's `(worked/target)`, waybar's percentage and
/// `target-reached` class, the template fields and the JSON keys, all live at the instant
/// rendered.
@Suite struct TargetRendererTests {
    /// `Fixture.running` (2:45:15 today at `now`) with a target and a balance (at `t0`).
    static func withTarget(_ target: Int64, balance: Int64 = -884_700_000, running: Bool = true) -> WidgetState {
        var state = running ? Fixture.running : Fixture.paused
        state.dailyTarget = target
        state.balance = balance
        state.targetProgress = Double(state.dailyTotal) / Double(target)
        return state
    }

    static let threeHours: Int64 = 3 * 3_600_000_000

    @Test func islandShowsWorkOverTheTarget() {
        let island = IslandRenderer()
        #expect(island.render(Self.withTarget(Self.threeHours), now: Fixture.now) == "▶ 0:05:30 (2:45/3:00)")
        // No target: as before.
        #expect(island.render(Fixture.running, now: Fixture.now) == "▶ 0:05:30 (2:45:15)")
        // The worked minutes move while running: 14 min 45 s later it reads 3:00.
        let later = Fixture.now + 885_000_000
        #expect(island.render(Self.withTarget(Self.threeHours), now: later) == "▶ 0:20:15 (3:00/3:00)")
        // Stopped: nothing moves.
        #expect(island.render(Self.withTarget(Self.threeHours, running: false), now: later) == "‖ 0:05:30 (2:45/3:00)")
    }

    @Test func waybarPercentageIsTheTargetsProgressAndReachedIsAClass() throws {
        let waybar = WaybarRenderer()
        let before = waybar.render(Self.withTarget(Self.threeHours), now: Fixture.now)
        #expect(before.hasSuffix(#""class":["running"],"percentage":91}"#))
        // The target is reached 884.8 s after `now` (3 h − 2:45:15.2).
        let reached = waybar.render(Self.withTarget(Self.threeHours), now: Fixture.now + 884_800_000)
        #expect(reached.hasSuffix(#""class":["running","target-reached"],"percentage":100}"#))
        let over = waybar.render(Self.withTarget(2 * 3_600_000_000), now: Fixture.now)
        #expect(over.hasSuffix(#""class":["running","target-reached"],"percentage":137}"#))
        // Without a target the percentage stays the project's share.
        #expect(waybar.render(Fixture.project(), now: Fixture.now).hasSuffix(#""percentage":54}"#))
    }

    @Test func templateFields() throws {
        let template = try TemplateRenderer(template: "{target}|{target_progress}|{balance}")
        #expect(template.render(Self.withTarget(Self.threeHours), now: Fixture.now) == "3:00|91|-0:14")
        // The balance moves with work: 884.2 s owed at `now`, +0:01 a quarter of an hour later.
        #expect(template.render(Self.withTarget(Self.threeHours), now: Fixture.now + 944_200_000) == "3:00|100|+0:01")
        #expect(template.render(Self.withTarget(Self.threeHours, balance: 12_000_000_000), now: Fixture.now) == "3:00|91|+3:20")
        #expect(template.render(Fixture.running, now: Fixture.now) == "||+0:00")
        #expect(template.render(Fixture.offline, now: Fixture.now) == "||")
        // A template showing only target values still wakes while work runs.
        #expect(nextRedraw(after: Fixture.now, state: Self.withTarget(Self.threeHours), showing: template.displayedTimes) != nil)
        #expect(nextRedraw(after: Fixture.now, state: Self.withTarget(Self.threeHours, running: false), showing: template.displayedTimes) == nil)
    }

    @Test func jsonCarriesTheTargetValuesOnlyWithATarget() {
        let json = JSONStateRenderer()
        #expect(
            json.render(Self.withTarget(Self.threeHours), now: Fixture.now).hasSuffix(
                #""due_tasks":0,"daily_target":10800000000,"target_progress":0.918074074074074,"balance":-884200000,"target":"3:00","target_percent":91,"balance_text":"-0:14"}"#
            ))
        #expect(json.render(Fixture.running, now: Fixture.now).hasSuffix(#""due_tasks":0}"#))
    }

    @Test func projectBudgetMovesWithTheRunningProject() throws {
        let template = try TemplateRenderer(template: "{project_budget}")
        var state = Fixture.project()
        state.projectBudget = 20 * 3_600_000_000
        state.projectBudgetUsed = 12 * 3_600_000_000 + 29 * 60_000_000
        #expect(template.render(state, now: Fixture.now) == "12:29/20:00")
        // A minute later it reads 12:30; with work stopped nothing moves.
        #expect(template.render(state, now: Fixture.now + 60_000_000) == "12:30/20:00")
        #expect(nextRedraw(after: Fixture.now, state: state, showing: template.displayedTimes) != nil)
        // No budget, no project, offline: empty.
        state.projectBudget = 0
        #expect(template.render(state, now: Fixture.now) == "")
        #expect(template.render(Fixture.running, now: Fixture.now) == "")
        #expect(template.render(Fixture.offline, now: Fixture.now) == "")
    }
}
