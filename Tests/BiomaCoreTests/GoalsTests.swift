import BiomaCore
import Foundation
import PropertyBased
import Testing

@Suite struct TargetTests {
    /// Monday to Friday 8 h, Friday 6 h, weekends nothing.
    static func workWeek() throws -> WorkTargets {
        var targets = WorkTargets()
        #expect(try targets.apply(key: "target", value: "8h"))
        #expect(try targets.apply(key: "target_fri", value: "6:00"))
        #expect(try targets.apply(key: "target_sat", value: "0"))
        #expect(try targets.apply(key: "target_sun", value: "0h"))
        return targets
    }

    @Test func settingsParseAndRefuseBadValues() throws {
        let targets = try Self.workWeek()
        #expect(targets.target(for: day("2026-11-23")) == 8 * hour)  // a Monday
        #expect(targets.target(for: day("2026-11-27")) == 6 * hour)  // Friday
        #expect(targets.target(for: day("2026-11-28")) == 0)
        #expect(targets.target(for: day("2026-11-29")) == 0)
        #expect(targets.settingLines == [
            "target_mon = 8:00", "target_tue = 8:00", "target_wed = 8:00", "target_thu = 8:00", "target_fri = 6:00",
            "target_sat = 0:00", "target_sun = 0:00",
        ])
        var parsed = WorkTargets()
        for line in targets.settingLines {
            let parts = line.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(try parsed.apply(key: parts[0], value: parts[1]))
        }
        #expect(parsed == targets)
        var working = WorkTargets()
        #expect(try working.apply(key: "target", value: "7:30"))
        #expect(working.settingLines == ["target = 7:30"])
        // `target` means the working days: Monday to Friday, the weekend none.
        #expect(working.byWeekday == [0, 7 * hour + 30 * minute, 7 * hour + 30 * minute, 7 * hour + 30 * minute, 7 * hour + 30 * minute, 7 * hour + 30 * minute, 0])
        #expect(WorkTargets(everyDay: 7 * hour).settingLines.count == 7)
        #expect(try GoalDuration.parse("7h30m", what: "target", max: WorkTargets.maximum) == 7 * hour + 30 * minute)
        #expect(try GoalDuration.parse("90m", what: "target", max: WorkTargets.maximum) == 90 * minute)

        var unchanged = targets
        #expect(try unchanged.apply(key: "day_start", value: "04:00") == false)
        for (key, value, words) in [
            ("target", "-1h", "is negative"), ("target_mon", "25h", "is longer than 24:00"), ("target", "8", "needs a unit"),
            ("target_tue", "eight", "is not a length"), ("target", "", "is empty"), ("target", "30m8h", "is not a length"),
            ("target", "7:75", "is not a length"),
        ] {
            #expect(throws: TrackerError.self) { try unchanged.apply(key: key, value: value) }
            do {
                _ = try unchanged.apply(key: key, value: value)
            } catch {
                #expect(error.message.contains(key) && error.message.contains(words), "\(error.message)")
            }
            #expect(unchanged == targets)
        }
        #expect(try parseBalanceSince("2026-01-05") == day("2026-01-05"))
        #expect(throws: TrackerError.self) { try parseBalanceSince("5.1.2026") }
    }

    @Test func theTargetIsReachedAtTheRightInstant() throws {
        let targets = try Self.workWeek()
        var h = Harness(rules: berlin)
        h.start(t("2026-11-23T09:00:00+01:00"))
        h.stop(t("2026-11-23T12:00:00+01:00"))
        h.start(t("2026-11-23T13:00:00+01:00"))
        let now = t("2026-11-23T15:12:00+01:00")
        let progress = TargetProgress(snapshot: h.snapshot(now), targets: targets)
        #expect(progress.worked == 5 * hour + 12 * minute)
        #expect(progress.reachedAt == t("2026-11-23T18:00:00+01:00"))
        #expect(progress.percentText == "65")
        #expect(progress.targetText == "8:00")
        #expect(!progress.reached)
        #expect(progress.islandText(session: 5 * minute + 30 * microsPerSecond) == "0:05:30 (5:12/8:00)")
        #expect(progress.shouldAnnounce(lastAnnounced: nil) == false)
        // Every change gives a new deadline; none while stopped.
        h.stop(t("2026-11-23T16:00:00+01:00"))
        let stopped = TargetProgress(snapshot: h.snapshot(t("2026-11-23T16:30:00+01:00")), targets: targets)
        #expect(stopped.reachedAt == nil)
        h.start(t("2026-11-23T17:00:00+01:00"))
        let again = TargetProgress(snapshot: h.snapshot(t("2026-11-23T17:00:00+01:00")), targets: targets)
        #expect(again.reachedAt == t("2026-11-23T19:00:00+01:00"))
        // At that instant it is reached: announced once that day.
        let reached = TargetProgress(snapshot: h.snapshot(again.reachedAt!), targets: targets)
        #expect(reached.reached && reached.fraction == 1 && reached.reachedAt == nil)
        #expect(reached.barClass == "target-reached" && progress.barClass == nil)
        #expect(reached.shouldAnnounce(lastAnnounced: day("2026-11-20")))
        #expect(!reached.shouldAnnounce(lastAnnounced: day("2026-11-23")))
        let later = TargetProgress(snapshot: h.snapshot(t("2026-11-23T21:00:00+01:00")), targets: targets)
        #expect(later.percentText == "125" && later.fraction == 1.25)
        // A weekend day has no target: no deadline, no notice, the island shows the session alone.
        var weekend = Harness(rules: berlin)
        weekend.start(t("2026-11-28T10:00:00+01:00"))
        let saturday = TargetProgress(snapshot: weekend.snapshot(t("2026-11-28T20:00:00+01:00")), targets: targets)
        #expect(saturday.reachedAt == nil && !saturday.reached && saturday.targetText == "" && saturday.percentText == "")
        #expect(saturday.islandText(session: 10 * hour) == "10:00:00")
    }

    @Test func acrossMidnightWithALateDayStart() throws {
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 4 * 60)
        var h = Harness(rules: rules)
        h.start(t("2026-11-23T14:00:00+01:00"))
        h.stop(t("2026-11-23T19:00:00+01:00"))
        h.start(t("2026-11-23T22:00:00+01:00"))
        // 5 h before, running since 22:00: the target is met at 01:00, still the same day.
        let progress = TargetProgress(snapshot: h.snapshot(t("2026-11-23T23:00:00+01:00")), targets: WorkTargets(everyDay: 8 * hour))
        #expect(progress.day == day("2026-11-23"))
        #expect(progress.reachedAt == t("2026-11-24T01:00:00+01:00"))
        // With midnight as the day start the day ends first: no deadline that day.
        var plain = Harness(rules: berlin)
        plain.start(t("2026-11-23T14:00:00+01:00"))
        plain.stop(t("2026-11-23T19:00:00+01:00"))
        plain.start(t("2026-11-23T22:00:00+01:00"))
        let cut = TargetProgress(snapshot: plain.snapshot(t("2026-11-23T23:00:00+01:00")), targets: WorkTargets(everyDay: 8 * hour))
        #expect(cut.reachedAt == nil)
        #expect(cut.worked(at: t("2026-11-24T03:00:00+01:00")) == 7 * hour)
        // The new day starts with nothing done.
        let next = TargetProgress(snapshot: plain.snapshot(t("2026-11-24T00:30:00+01:00")), targets: WorkTargets(everyDay: 8 * hour))
        #expect(next.worked == 30 * minute && next.reachedAt == t("2026-11-24T08:00:00+01:00"))
    }

    @Test func aDSTDayCountsRealHours() throws {
        // 2024-03-31 has 23 hours in Berlin: 8 h of work from 00:30 end at 09:30 summer time.
        var h = Harness(rules: berlin)
        h.start(t("2024-03-31T00:30:00+01:00"))
        let progress = TargetProgress(snapshot: h.snapshot(t("2024-03-31T01:30:00+01:00")), targets: WorkTargets(everyDay: 8 * hour))
        #expect(progress.reachedAt == t("2024-03-31T09:30:00+02:00"))
        let autumn = TargetProgress(
            day: day("2024-10-27"), targets: WorkTargets(everyDay: 24 * hour), worked: 0, running: true,
            at: t("2024-10-27T00:00:00+02:00"), dayEnd: berlin.start(of: day("2024-10-28")))
        // The 25-hour day reaches a 24-hour target an hour before it ends.
        #expect(autumn.reachedAt == t("2024-10-27T23:00:00+01:00"))
        // A target met exactly as the day ends is met by no instant of that day.
        let spring = TargetProgress(
            day: day("2024-03-31"), targets: WorkTargets(everyDay: 23 * hour), worked: 0, running: true,
            at: t("2024-03-31T00:00:00+01:00"), dayEnd: berlin.start(of: day("2024-04-01")))
        #expect(spring.reachedAt == nil)
        #expect(spring.worked(at: spring.dayEnd + hour) == 23 * hour)
    }

    @Test func balanceOverDaysAndToday() throws {
        let targets = try Self.workWeek()
        var h = Harness(rules: berlin)
        // Monday 9 h, Tuesday 7 h, Wednesday running since 09:00.
        h.start(t("2026-11-23T08:00:00+01:00"))
        h.stop(t("2026-11-23T17:00:00+01:00"))
        h.start(t("2026-11-24T09:00:00+01:00"))
        h.stop(t("2026-11-24T16:00:00+01:00"))
        h.start(t("2026-11-25T09:00:00+01:00"))
        let now = t("2026-11-25T11:00:00+01:00")
        let report = h.report(day("2026-11-23"), day("2026-11-25"), at: now)
        let balance = Balance(report: report, targets: targets, running: true, at: now)
        #expect(balance.carried == 0)
        #expect(balance.value == -6 * hour)
        #expect(balance.text == "-6:00")
        #expect(balance.value(at: now + 90 * minute) == -4 * hour - 30 * minute)
        // From Tuesday only: Monday's hour of overtime is not counted.
        let fromTuesday = Balance(
            report: h.report(day("2026-11-24"), day("2026-11-25"), at: now), targets: targets, running: true, at: now)
        #expect(fromTuesday.carried == -hour && fromTuesday.text == "-7:00")
        // A start after today, and an empty history.
        #expect(Balance(since: day("2026-12-01"), today: day("2026-11-25"), targets: targets, workSince: 0, workToday: 0, running: false, at: now).value == 0)
        let empty = Balance(since: day("2026-11-23"), today: day("2026-11-23"), targets: targets, workSince: 0, workToday: 0, running: false, at: now)
        #expect(empty.value == -8 * hour && empty.value(at: now + hour) == -8 * hour)
        // The report's rows and its balance at the end.
        let rows = TargetReport(report: report, targets: targets, since: day("2026-11-23"), carriedIn: 0)
        #expect(rows.rows.map(\.difference) == [hour, -hour, -6 * hour])
        #expect(rows.balance == balance.value && rows.targetTotal == 24 * hour && rows.workTotal == 18 * hour)
    }

    @Test func balanceOverADSTDay() {
        // 2024-03-31 has 23 hours in Berlin; 8 hours of work is 8 real hours on it too.
        let targets = WorkTargets(everyDay: 8 * hour)
        var h = Harness(rules: berlin)
        h.start(t("2024-03-30T09:00:00+01:00"))
        h.stop(t("2024-03-30T17:00:00+01:00"))
        h.start(t("2024-03-31T00:30:00+01:00"))
        let now = t("2024-03-31T09:30:00+02:00")
        let report = h.report(day("2024-03-30"), day("2024-03-31"), at: now)
        #expect(report.days.map(\.workTotal) == [8 * hour, 8 * hour])
        let balance = Balance(report: report, targets: targets, running: true, at: now)
        #expect(balance.value == 0 && balance.carried == 0 && balance.text == "+0:00")
        // Past midnight into the next day, the running interval counts for both days.
        let later = t("2024-04-01T01:00:00+02:00")
        let next = Balance(report: h.report(day("2024-03-30"), day("2024-04-01"), at: later), targets: targets, running: true, at: later)
        #expect(next.carried == 22 * hour + 30 * minute - 8 * hour)  // Sunday: 00:30 to midnight of a 23-hour day
        #expect(next.value == next.carried + hour - 8 * hour)
    }

    @Test func balanceTexts() {
        #expect(DurationClock.signed(3 * hour + 20 * minute + 59 * microsPerSecond) == "+3:20")
        #expect(DurationClock.signed(-45 * minute) == "-0:45")
        #expect(DurationClock.signed(0) == "+0:00")
        #expect(DurationClock.signed(-30 * microsPerSecond) == "+0:00")
        #expect(DurationClock.signed(-100 * hour - 5 * minute) == "-100:05")
        #expect(DurationClock.hoursMinutesSeconds(12 * hour + 7 * microsPerSecond) == "12:00:07")
    }

    @Test func theTargetSumOverARangeIsTheSumOfItsDays() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...30_000), Gen.int(in: -1...800),
            Gen.int(in: 0...(24 * 60)).array(of: 7...7)
        ) { start, length, minutes in
            let targets = WorkTargets(mondayFirst: minutes.map { Micros($0) * minute })
            expectTotalIsTheSumOfItsDays(targets, from: Day(ordinal: start), length: length)
        }
    }
}

@Suite struct TargetHistoryTests {
    /// A target counts from the day it was set: the days before it owe nothing, a later
    /// change keeps the earlier days' value, and the weekend has none.
    @Test func aTargetCountsFromTheDayItWasSet() throws {
        var monday = TargetHistory()
        monday.set(8 * hour, from: day("2026-12-02"))  // set on a Wednesday, counts for Mondays from then
        #expect(monday.target(on: day("2026-11-30")) == nil)
        #expect(monday.target(on: day("2026-12-07")) == 8 * hour)
        monday.set(6 * hour, from: day("2027-02-01"))
        #expect(monday.target(on: day("2027-01-25")) == 8 * hour)
        #expect(monday.target(on: day("2027-02-01")) == 6 * hour)
        #expect(monday.current == 6 * hour)
        // The same value again adds nothing; a change made twice in a day keeps the last.
        monday.set(6 * hour, from: day("2027-03-01"))
        #expect(monday.entries.count == 2)
        monday.set(5 * hour, from: day("2027-02-01"))
        #expect(monday.entries.map(\.target) == [8 * hour, 5 * hour])
        #expect(TargetHistory(text: monday.text) == monday)
        #expect(monday.text == "2026-12-02=28800000000;2027-02-01=18000000000")
        for bad in ["2026-12-02", "2026-13-02=1", "x=1", "2026-12-02=-1", "2026-12-02=90000000000", "=1;=abc"] {
            #expect(TargetHistory(text: bad) == nil, "\(bad)")
        }
        #expect(TargetHistory(text: "")?.entries.isEmpty == true)

        // Working days from Wednesday 2 December: the Saturday and Sunday owe nothing.
        var targets = WorkTargets()
        targets = targets.overlaid(with: Dictionary(uniqueKeysWithValues: (1...7).map { weekday in
            var history = TargetHistory()
            history.set(WorkTargets.workingDays.contains(weekday) ? 8 * hour : 0, from: day("2026-12-02"))
            return (weekday, history)
        }))
        #expect(targets.firstTargetDay == .some(day("2026-12-02")))
        // March to the Sunday after: only Wednesday to Friday of the first week count.
        #expect(targets.total(from: day("2026-03-02"), to: day("2026-12-06")) == 3 * 8 * hour)
        #expect(targets.target(for: day("2026-12-05")) == 0 && targets.target(for: day("2026-12-01")) == 0)
    }

    /// The balance of a history with an interval in March and a target set today: today's
    /// target alone is owed, not every day since March (what counting from the first recorded
    /// day gave: -1983 h).
    @Test func theBalanceStartsWhenTheTargetWasSet() throws {
        var h = Harness(rules: berlin)
        h.start(t("2026-03-10T09:00:00+01:00"))
        h.stop(t("2026-03-10T10:00:00+01:00"))
        h.start(t("2026-12-02T09:00:00+01:00"))
        let now = t("2026-12-02T11:00:00+01:00")
        var history = TargetHistory()
        history.set(8 * hour, from: day("2026-12-02"))
        let targets = WorkTargets().overlaid(with: [4: history])  // Wednesdays
        guard case .some(.some(let since)) = targets.firstTargetDay else { Issue.record("no first day"); return }
        let report = h.report(since, day("2026-12-02"), at: now)
        let balance = Balance(report: report, targets: targets, running: true, at: now)
        #expect(balance.value == 2 * hour - 8 * hour)
        #expect(balance.carried == 0)
        // The same history counted from the first recorded day owes every Wednesday since March.
        let old = Balance(report: h.report(day("2026-03-10"), day("2026-12-02"), at: now), targets: WorkTargets(everyDay: 0).overlaid(with: [4: TargetHistory(always: 8 * hour)]), running: true, at: now)
        #expect(old.value < -200 * hour)
    }

    /// A settings value holds always; one the store set beats it from its own first day on.
    @Test func theStoreBeatsTheSettingsFromItsDay() {
        let settings = WorkTargets(everyDay: 4 * hour)
        var stored = TargetHistory()
        stored.set(8 * hour, from: day("2026-12-02"))
        let targets = settings.overlaid(with: [4: stored])
        #expect(targets.target(for: day("2026-11-25")) == 4 * hour)
        #expect(targets.target(for: day("2026-12-02")) == 8 * hour)
        #expect(targets.firstTargetDay == .some(nil))
    }

    @Test func theTargetSumWithHistoriesIsTheSumOfItsDays() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...2_000), Gen.int(in: -1...400),
            Gen.int(in: 0...600).array(of: 14...14)
        ) { start, length, numbers in
            // Each weekday: a value from one day on, then another from a later day.
            let histories = (0..<7).map { index in
                var history = TargetHistory()
                history.set(Micros(numbers[index] % 25) * hour / 2, from: Day(ordinal: numbers[index]))
                history.set(Micros(numbers[index + 7] % 25) * hour / 2, from: Day(ordinal: numbers[index] + numbers[index + 7]))
                return history
            }
            let targets = WorkTargets(histories: histories)
            expectTotalIsTheSumOfItsDays(targets, from: Day(ordinal: start), length: length)
        }
    }
}

/// Switching quickly: an interval left within the short interval is not recorded apart, and
/// rounding never bills nothing.
@Suite struct ShortIntervalTests {
    @Test func threeQuickSwitchesLeaveOneInterval() {
        var h = Harness(rules: berlin)
        let t0 = t("2026-12-02T09:00:00+01:00")
        let short = 5 * microsPerSecond
        h.startProject("a", t0, shortInterval: short)
        h.startProject("b", t0 + hour, shortInterval: short)
        h.startProject("c", t0 + hour + 300_000, shortInterval: short)  // a scroll over the bar
        h.startProject("a", t0 + hour + 1_200_000, shortInterval: short)
        h.startProject("b", t0 + hour + 3 * microsPerSecond, shortInterval: short)
        h.stop(t0 + 2 * hour)
        #expect(h.history.closed == [
            Interval(start: t0, end: t0 + hour, projectID: "a"),
            Interval(start: t0 + hour, end: t0 + 2 * hour, projectID: "b"),
        ])
        // The seconds went to the one that stayed: b's session is the whole hour, a's its first.
        #expect(h.state.projectSessionTime("b", at: t0 + 3 * hour) == hour)
        #expect(h.state.projectSessionTime("a", at: t0 + 3 * hour) == hour)
        #expect(h.state.projectSessionTime("c", at: t0 + 3 * hour) == 0)
        // A switch after the short interval is recorded as before.
        h.startProject("c", t0 + 3 * hour, shortInterval: short)
        h.startProject("a", t0 + 3 * hour + short, shortInterval: short)
        h.stop(t0 + 4 * hour)
        #expect(h.history.closed.suffix(2).map(\.projectID) == ["c", "a"])
        // Without a short interval every switch is recorded (0: the store's default).
        var every = Harness(rules: berlin)
        every.startProject("a", t0)
        every.startProject("b", t0 + 300_000)
        every.stop(t0 + hour)
        #expect(every.history.closed.count == 2)
    }

    @Test func stoppingTheProjectQuicklyGivesItsSecondsToWorkWithoutOne() {
        var state = WorkTimer()
        let t0 = t("2026-12-02T09:00:00+01:00")
        _ = state.startProject("a", at: t0, rules: berlin)
        _ = state.startProject("b", at: t0 + hour, rules: berlin, shortInterval: 5 * microsPerSecond)
        #expect(state.stopProject(at: t0 + hour + microsPerSecond, shortInterval: 5 * microsPerSecond) == [.reassignOpen(projectID: nil)])
        #expect(state.open == OpenSegment(start: t0 + hour, projectID: nil))
        #expect(state.projectRunStart == nil)
    }

    @Test func roundingNeverBillsNothing() throws {
        for mode in ["up", "nearest"] {
            let rounding = try Rounding(round: "15m", rounding: mode)
            #expect(rounding.rounded(0) == 0)
            #expect(rounding.rounded(400_000) == 0)  // shown as 0:00:00
            #expect(rounding.rounded(microsPerSecond - 1) == 0)
        }
        #expect(try Rounding(round: "15m", rounding: "up").rounded(microsPerSecond) == 15 * minute)
        // Three empty intervals and one of 4:46 in a month: 4:46 up to 15 minutes is 5:00, not 5:45.
        let t0 = t("2026-11-02T09:00:00+01:00")
        let intervals = [
            Interval(start: t0, end: t0 + 4 * hour + 46 * minute, projectID: "a"),
            Interval(start: t0 + 5 * hour, end: t0 + 5 * hour + 200_000, projectID: "b"),
            Interval(start: t0 + 6 * hour, end: t0 + 6 * hour + 10, projectID: "c"),
            Interval(start: t0 + 7 * hour, end: t0 + 7 * hour + 999_999, projectID: "a"),
        ]
        let totals = RoundedTotals(
            intervals: intervals, from: day("2026-11-01"), to: day("2026-11-30"), rules: berlin,
            rounding: try Rounding(round: "15m", rounding: "up"))
        #expect(totals.roundedTotal == 4 * hour + 60 * minute)
    }
}

@Suite struct BudgetTests {
    /// The command line's one budget reader (BudgetText), and the period the daemon checks.
    @Test func budgetsParse() throws {
        #expect(try BudgetText.parse(amount: "20h", per: "week").map { [$0.amount, $0.period] as [AnyHashable] } == [20 * hour, "week"])
        #expect(try BudgetText.parse(amount: "120:30", per: "Month").map { [$0.amount, $0.period] as [AnyHashable] } == [120 * hour + 30 * minute, "month"])
        #expect(try BudgetText.parse(amount: "none", per: nil) == nil)
        #expect(try BudgetText.parse(amount: "5h", per: nil)?.period == "week")
        #expect(try BudgetPeriod.parse(" Total ") == .total)
        #expect(throws: TrackerError.invalidArgument("A budget period `fortnight` does not exist: use week, month or total.")) {
            try BudgetPeriod.parse("fortnight")
        }
        for (amount, per, words) in [
            ("20h", "fortnight", "--per fortnight is not a budget period"), ("0", "week", "is zero"), ("-5h", "total", "is negative"),
            ("none", "week", "--per needs a budget"), ("100001h", "total", "is longer"),
        ] {
            do {
                _ = try BudgetText.parse(amount: amount, per: per)
                Issue.record("\(amount) \(per) was accepted")
            } catch {
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
    }

    @Test func windowsFollowTheDayRules() {
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 4 * 60, firstWeekday: 2)
        let week = Budget(amount: 20 * hour, period: .week)
        // Monday 03:00 still belongs to Sunday: the week before.
        let early = week.window(at: t("2026-11-23T03:00:00+01:00"), rules: rules)
        #expect(early.key == "week:2026-11-16")
        #expect(early.end == t("2026-11-23T04:00:00+01:00"))
        let monday = week.window(at: t("2026-11-23T04:00:00+01:00"), rules: rules)
        #expect(monday.key == "week:2026-11-23" && monday.start == t("2026-11-23T04:00:00+01:00"))
        // A month holding the change to winter time.
        let october = Budget(amount: hour, period: .month).window(at: t("2024-10-31T12:00:00+01:00"), rules: berlin)
        #expect(october.key == "month:2024-10-01")
        #expect(october.start == t("2024-10-01T00:00:00+02:00") && october.end == t("2024-11-01T00:00:00+01:00"))
        #expect(Budget(amount: hour, period: .total).window(at: 0, rules: berlin) == BudgetWindow(key: "total", start: nil, end: nil))
        // Weeks starting on Sunday.
        let sundays = DayRules(timeZone: zone("Europe/Berlin"), firstWeekday: 1)
        #expect(week.window(at: t("2026-11-28T23:59:00+01:00"), rules: sundays).key == "week:2026-11-22")
        #expect(week.window(at: t("2026-11-29T00:00:00+01:00"), rules: sundays).key == "week:2026-11-29")
        // Used time is clipped to the window, other projects ignored.
        let intervals = [
            Interval(start: t("2026-11-23T02:00:00+01:00"), end: t("2026-11-23T06:00:00+01:00"), projectID: "a"),
            Interval(start: t("2026-11-24T09:00:00+01:00"), end: t("2026-11-24T10:00:00+01:00"), projectID: "b"),
            Interval(start: t("2026-11-24T10:00:00+01:00"), end: t("2026-11-24T10:30:00+01:00"), projectID: "a"),
        ]
        #expect(monday.used(of: "a", intervals: intervals) == 2 * hour + 30 * minute)
        #expect(early.used(of: "a", intervals: intervals) == 2 * hour)
        #expect(BudgetWindow(key: "total").used(of: "a", intervals: intervals) == 4 * hour + 30 * minute)
        #expect(week.text(used: 2 * hour + 30 * minute) == "2:30/20:00")
    }

    @Test func eachNoticeOncePerPeriod() {
        let budget = Budget(amount: 20 * hour, period: .week)
        let window = budget.window(at: t("2026-11-25T12:00:00+01:00"), rules: berlin)
        var now = t("2026-11-25T12:00:00+01:00")
        var announced: Set<BudgetThreshold> = []
        var period: String?
        func decide(_ used: Micros, running: Bool = true, in window: BudgetWindow = window) -> BudgetNotice {
            let notice = BudgetNotice(
                budget: budget, window: window, used: used, running: running, now: now, announcedBefore: announced,
                announcedPeriod: period)
            announced = notice.announced
            period = notice.period
            return notice
        }
        let before = decide(15 * hour)
        #expect(before.announce == nil && before.deadline == now + hour)
        now += hour
        let eighty = decide(16 * hour)
        #expect(eighty.announce == .eighty && eighty.deadline == now + 4 * hour)
        #expect(decide(16 * hour).announce == nil)  // the same period: not again
        #expect(decide(17 * hour, running: false).deadline == nil)
        now += 3 * hour
        let full = decide(20 * hour)
        #expect(full.announce == .full && full.deadline == nil && full.announced == [.eighty, .full])
        #expect(decide(25 * hour).announce == nil)
        // Next week both come again; jumping over both (an import) shows only the 100 % one.
        let next = budget.window(at: t("2026-12-01T12:00:00+01:00"), rules: berlin)
        now = t("2026-12-01T12:00:00+01:00")
        #expect(decide(0, in: next).announce == nil && announced.isEmpty)
        let jump = decide(21 * hour, in: next)
        #expect(jump.announce == .full && jump.announced == [.eighty, .full])
        // A threshold after the end of the period is no deadline.
        let sunday = t("2026-11-29T23:00:00+01:00")
        let late = BudgetNotice(
            budget: budget, window: window, used: 14 * hour, running: true, now: sunday, announcedBefore: [],
            announcedPeriod: nil)
        #expect(late.deadline == nil)
        #expect(
            BudgetNotice.text(project: "Client A", threshold: .eighty, budget: budget, used: 16 * hour)
                == "Client A: 80 % of the week's budget used (16:00/20:00)")
    }
}

@Suite struct AwayReturnTests {
    @Test func theNoticeOffersTheFirstProjects() {
        let projects = ["Client A", "Client B", "Admin", "Later"].enumerated().map {
            Project(id: "p\($0.offset)", name: $0.element, color: "#112233", position: 3 - $0.offset)
        }
        let actions = AwayReturn.actions(resumesOnReturn: false, projects: projects)
        #expect(actions.map(\.key) == ["resume", "keep", "keep-project:p3", "keep-project:p2", "keep-project:p1"])
        #expect(actions.map(\.label) == ["Resume", "Count the time away", "Count it for Later", "Count it for Admin", "Count it for Client B"])
        #expect(AwayReturn.actions(resumesOnReturn: true, projects: []).map(\.key) == ["keep"])
        #expect(AwayReturn.project(fromAction: "keep-project:p2") == "p2")
        #expect(AwayReturn.project(fromAction: "keep-project:") == nil)
        #expect(AwayReturn.project(fromAction: "keep") == nil)
        // The removed time, counted for a project: the stopwatches gain it under that project.
        let removed = Interval(start: t("2026-11-23T10:00:00Z"), end: t("2026-11-23T11:00:00Z"), projectID: nil)
        var state = WorkTimer()
        state.credit(removed.counted(for: "p1"))
        #expect(state.workSessionTime(at: t("2026-11-23T12:00:00Z")) == hour)
        #expect(state.projectSessionTime("p1", at: t("2026-11-23T12:00:00Z")) == hour)
    }
}

/// `total(from:to:)` of `length + 1` days from `from` against their targets added one by one.
func expectTotalIsTheSumOfItsDays(_ targets: WorkTargets, from: Day, length: Int) {
    let to = from.adding(days: length)
    var naive: Micros = 0
    var day = from
    while day <= to {
        naive += targets.target(for: day)
        day = day.adding(days: 1)
    }
    #expect(targets.total(from: from, to: to) == naive)
}
