@testable import BiomaCore
import Foundation
import Testing

@Suite struct WorkTimerTests {
    @Test func stopwatchStartStopResetToggle() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.start(t0)
        #expect(h.snapshot(t0 + 30 * minute).sessionTime == 30 * minute)
        h.stop(t0 + hour)
        #expect(h.snapshot(t0 + 2 * hour).sessionTime == hour)  // paused: holds
        #expect(h.state.start(at: t0 + 2 * hour, rules: berlin).count == 1)
        #expect(h.state.start(at: t0 + 3 * hour, rules: berlin).isEmpty)  // already running
        #expect(h.state.workSessionTime(at: t0 + 3 * hour) == 2 * hour)
        _ = h.state.reset(at: t0 + 3 * hour)
        #expect(!h.state.running)
        #expect(h.state.workSessionTime(at: t0 + 4 * hour) == 0)
    }

    @Test func intervalAcrossMidnightIsSplit() {
        var h = Harness(rules: berlin)
        h.start(t("2024-01-15T23:00:00+01:00"))
        let halfPast = t("2024-01-16T00:30:00+01:00")
        let snap = h.snapshot(halfPast)
        #expect(snap.day == day("2024-01-16"))
        #expect(snap.dailyTotal == 30 * minute)  // restarts at the boundary while running
        #expect(snap.sessionTime == 90 * minute)  // the session runs across midnight
        #expect(snap.nextDayBoundary == t("2024-01-17T00:00:00+01:00"))
        h.stop(t("2024-01-16T01:00:00+01:00"))
        let report = h.report(day("2024-01-15"), day("2024-01-16"), at: halfPast + 10 * hour)
        #expect(report.days.map(\.workTotal) == [hour, hour])
        #expect(report.workTotal == 2 * hour)
    }

    @Test func freshSessionOnFirstStartOfALaterDay() {
        var h = Harness(rules: berlin)
        h.start(t("2024-01-15T22:00:00+01:00"))
        h.stop(t("2024-01-16T00:30:00+01:00"))
        // Same day as the last activity (00:30 on the 16th): the session continues.
        h.start(t("2024-01-16T09:00:00+01:00"))
        #expect(h.state.workSessionTime(at: t("2024-01-16T09:00:00+01:00")) == 150 * minute)
        h.stop(t("2024-01-16T10:00:00+01:00"))
        h.start(t("2024-01-17T08:00:00+01:00"))
        #expect(h.state.workSessionTime(at: t("2024-01-17T08:10:00+01:00")) == 10 * minute)
    }

    @Test func freshSessionFollowsTheDayStart() {
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 240)
        var h = Harness(rules: rules)
        h.start(t("2024-01-15T22:00:00+01:00"))
        h.stop(t("2024-01-16T03:00:00+01:00"))  // still the 15th's day
        h.start(t("2024-01-16T03:30:00+01:00"))
        #expect(h.state.workSessionTime(at: t("2024-01-16T03:30:00+01:00")) == 5 * hour)
        h.stop(t("2024-01-16T03:45:00+01:00"))
        h.start(t("2024-01-16T04:00:00+01:00"))  // the 16th's day begins
        #expect(h.state.workSessionTime(at: t("2024-01-16T04:00:00+01:00")) == 0)
    }

    @Test func resetDoesNotChangeTheDailyTotal() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.start(t0)
        h.startProject("a", t0 + hour)
        h.reset(t0 + 2 * hour)
        let snap = h.snapshot(t0 + 3 * hour)
        #expect(snap.sessionTime == 0)
        #expect(snap.dailyTotal == 2 * hour)
        #expect(snap.projectTimes["a"] == ProjectTimes(session: 0, dailyTotal: hour, running: false))
    }

    @Test func aClockSteppedBackwardsNeverMakesNegativeTime() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.start(t0)
        h.stop(t0 - hour)
        #expect(h.history.closed.isEmpty)
        #expect(h.state.workSessionTime(at: t0) == 0)
    }
}

@Suite struct ProjectTimerTests {
    @Test func oneProjectAtATimeAndSwitchesAtTheSameInstant() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.startProject("a", t0)  // starts work too
        #expect(h.state.running && h.state.activeProject == "a")
        h.startProject("b", t0 + hour)
        #expect(h.history.closed == [Interval(start: t0, end: t0 + hour, projectID: "a")])
        #expect(h.history.open == OpenSegment(start: t0 + hour, projectID: "b"))
        let snap = h.snapshot(t0 + 90 * minute)
        #expect(snap.activeProject?.id == "b")
        #expect(snap.projectSessionTime == 30 * minute)
        #expect(snap.projectTimes["a"]?.session == hour)
        #expect(snap.projectTimes.values.filter(\.running).count == 1)
        #expect(snap.sessionTime == 90 * minute)
    }

    @Test func stopWorkStopsTheProjectAndStartResumesIt() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.start(t0)
        h.startProject("a", t0 + 10 * minute)
        h.stop(t0 + hour)
        #expect(h.state.activeProject == nil)
        h.start(t0 + 2 * hour)
        #expect(h.state.activeProject == "a")
        #expect(h.state.projectSessionTime("a", at: t0 + 3 * hour) == 50 * minute + hour)
        // Stopping the project alone keeps work running with no project.
        h.stopProject(t0 + 3 * hour)
        #expect(h.state.running && h.state.activeProject == nil)
        h.stop(t0 + 4 * hour)
        h.start(t0 + 5 * hour)
        #expect(h.state.activeProject == nil)
        let report = h.report(day("2024-01-15"), day("2024-01-15"), at: t0 + 6 * hour)
        #expect(report.workTotal == 4 * hour)
        #expect(report.noProjectTotal == 10 * minute + 2 * hour)
        #expect(report.projects.map(\.total) == [hour + 50 * minute])
    }

    @Test func noResumeInAFreshSession() {
        var h = Harness(rules: berlin)
        h.startProject("a", t("2024-01-15T09:00:00+01:00"))
        h.stop(t("2024-01-15T10:00:00+01:00"))
        h.start(t("2024-01-16T09:00:00+01:00"))
        #expect(h.state.activeProject == nil)
        #expect(h.state.projectSessionTime("a", at: t("2024-01-16T09:00:00+01:00")) == 0)
    }

    @Test func resetProjectZeroesOnlyItsSession() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.startProject("a", t0)
        h.startProject("b", t0 + hour)
        h.state.resetProject("b", at: t0 + 2 * hour)
        #expect(h.state.projectSessionTime("b", at: t0 + 150 * minute) == 30 * minute)
        #expect(h.state.projectSessionTime("a", at: t0 + 150 * minute) == hour)
        #expect(h.snapshot(t0 + 150 * minute).projectTimes["b"]?.dailyTotal == 90 * minute)
    }

    @Test func projectSwitchExactlyAtMidnight() {
        var h = Harness(rules: berlin)
        h.startProject("a", t("2024-01-15T23:00:00+01:00"))
        let midnight = t("2024-01-16T00:00:00+01:00")
        h.startProject("b", midnight)
        let snap = h.snapshot(midnight)
        #expect(snap.day == day("2024-01-16"))
        #expect(snap.dailyTotal == 0)
        #expect(snap.projectTimes["a"]?.dailyTotal == 0)
        h.stop(midnight + hour)
        let report = h.report(day("2024-01-15"), day("2024-01-16"), at: midnight + 2 * hour)
        #expect(report.days.map(\.workTotal) == [hour, hour])
        let yesterday = h.report(day("2024-01-15"), day("2024-01-15"), at: midnight + 2 * hour)
        #expect(yesterday.projects.map(\.id) == ["a"])
        let today = h.report(day("2024-01-16"), day("2024-01-16"), at: midnight + 2 * hour)
        #expect(today.projects.map(\.id) == ["b"])
    }

    @Test func cycleWrapsInListOrder() {
        var state = WorkTimer()
        let order = ["a", "b", "c"]
        #expect(state.cycleTarget(step: 1, order: order) == "a")
        #expect(state.cycleTarget(step: -1, order: order) == "c")
        _ = state.startProject("c", at: 0, rules: berlin)
        #expect(state.cycleTarget(step: 1, order: order) == "a")
        #expect(state.cycleTarget(step: -4, order: order) == "b")
        #expect(state.cycleTarget(step: 0, order: order) == nil)
        #expect(state.cycleTarget(step: 1, order: []) == nil)
    }

    @Test func deletingTheRunningProjectDiscardsItsSegment() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.startProject("a", t0)
        let changes = h.state.deleteProject("a", at: t0 + hour)
        #expect(changes == [.discardOpen, .open(OpenSegment(start: t0 + hour, projectID: nil))])
        #expect(h.state.running && h.state.activeProject == nil)
    }
}

@Suite struct ReportTests {
    @Test func berlinDSTDaysInAReport() {
        var h = Harness(rules: berlin)
        // Work from 20:00 on the 30th to 20:00 on the 31st of March 2024: 23 real hours.
        h.startProject("a", t("2024-03-30T20:00:00+01:00"))
        h.stop(t("2024-03-31T20:00:00+02:00"))
        let report = h.report(day("2024-03-30"), day("2024-04-01"), at: t("2024-04-02T00:00:00+02:00"))
        #expect(report.days.map(\.workTotal) == [4 * hour, 19 * hour, 0])
        #expect(report.workTotal == 23 * hour)
        #expect(report.projects == [ProjectTotal(id: "a", name: "A", color: "#112233", total: 23 * hour, percent: 100)])
        // Autumn: a whole 25-hour day.
        var autumn = Harness(rules: berlin)
        autumn.start(t("2024-10-27T00:00:00+02:00"))
        autumn.stop(t("2024-10-28T00:00:00+01:00"))
        let day27 = autumn.report(day("2024-10-27"), day("2024-10-27"), at: t("2024-10-29T00:00:00+01:00"))
        #expect(day27.workTotal == 25 * hour)
    }

    @Test func lordHoweDays() {
        let rules = DayRules(timeZone: zone("Australia/Lord_Howe"))
        var h = Harness(rules: rules)
        h.start(t("2024-10-05T23:00:00+10:30"))
        h.stop(t("2024-10-07T01:00:00+11:00"))
        let report = h.report(day("2024-10-05"), day("2024-10-07"), at: t("2024-10-08T00:00:00+11:00"))
        #expect(report.days.map(\.workTotal) == [hour, 23 * hour + 30 * minute, hour])
    }

    @Test func percentagesAndNoProjectTime() {
        var h = Harness(rules: berlin)
        let t0 = t("2024-01-15T09:00:00+01:00")
        h.start(t0)
        h.startProject("a", t0 + hour)
        h.startProject("b", t0 + 2 * hour)
        h.stop(t0 + 4 * hour)
        let report = h.report(day("2024-01-15"), day("2024-01-15"), at: t0 + 5 * hour)
        #expect(report.workTotal == 4 * hour)
        #expect(report.noProjectTotal == hour)
        #expect(report.projects.map(\.id) == ["b", "a"])
        #expect(report.projects.map(\.percent) == [50, 25])
    }
}

/// A project that ran for no time leaves no session entry, as the store reloads it: the state
/// before and after a restart are equal (a random sequence of the store model test found this).
@Suite struct ZeroSessionTests {
    @Test func aZeroLengthRunLeavesNoEntry() {
        let now = t("2024-10-26T21:00:00+02:00")
        var state = WorkTimer()
        _ = state.startProject("p2", at: now, rules: berlin)
        _ = state.stop(at: now)
        #expect(state.projectSessions.isEmpty)
        #expect(state.projectSessionTime("p2", at: now + hour) == 0)
    }
}
