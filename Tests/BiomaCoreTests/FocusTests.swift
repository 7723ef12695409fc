import BiomaCore
import Foundation
import PropertyBased
import Testing

private let second = microsPerSecond
private let t0 = t("2026-11-23T09:00:00+01:00")

/// A focus timer driven through operations, collecting what they record and announce.
private struct Drive {
    var timer: FocusTimer
    var records: [FocusRecord] = []
    var ended: [FocusPhaseEnd] = []

    init(_ plan: FocusPlan, at now: Micros = t0) throws {
        timer = try FocusTimer.start(plan, at: now)
    }

    mutating func take(_ outcome: FocusOutcome) {
        records += outcome.records
        ended += outcome.ended
    }

    mutating func advance(to now: Micros, lateAfter: Micros = 10 * second) {
        take(timer.advance(to: now, lateAfter: lateAfter))
    }
}

@Suite struct FocusRules {
    @Test func pomodoroRunsWorkThenABreakFromTheExactEnd() throws {
        var d = try Drive(.pomodoro())
        #expect(d.timer.state == .running && d.timer.phase == .work && d.timer.round == 1)
        #expect(d.timer.endsAt == t0 + 25 * minute)
        d.advance(to: t0 + 25 * minute + 30_000)
        #expect(d.timer.phase == .shortBreak && d.timer.state == .running)
        // The break starts at the work phase's end, not when the end was noticed.
        #expect(d.timer.endsAt == t0 + 30 * minute)
        #expect(d.records == [
            FocusRecord(
                kind: .pomodoro, phase: .work, round: 1, label: "", project: nil, start: t0, end: t0 + 25 * minute,
                planned: 25 * minute, completed: true)
        ])
        #expect(d.ended.map(\.next) == [.shortBreak] && d.ended.first?.nextStarted == true && d.ended.first?.late == false)
        // After the break, work waits for confirmation (AutoStartWork is off by default).
        d.advance(to: t0 + 30 * minute)
        #expect(d.timer.state == .waiting && d.timer.phase == .work && d.timer.round == 2)
        #expect(d.timer.remaining(at: t0 + 40 * minute) == 25 * minute)
        d.timer.confirm(at: t0 + 40 * minute)
        #expect(d.timer.state == .running && d.timer.endsAt == t0 + 65 * minute)
    }

    @Test func aLongBreakComesAfterEveryNthCompletedWorkPhase() throws {
        var plan = FocusPlan.pomodoro()
        plan.work = 10 * second
        plan.shortBreak = 2 * second
        plan.longBreak = 5 * second
        plan.longBreakEvery = 2
        plan.autoStartWork = true
        var d = try Drive(plan)
        var now = t0
        var phases: [FocusPhase] = []
        for _ in 0..<9 {
            now = d.timer.endsAt!
            d.advance(to: now)
            phases.append(d.timer.phase)
        }
        #expect(phases == [.shortBreak, .work, .longBreak, .work, .shortBreak, .work, .longBreak, .work, .shortBreak])
        // A skipped work phase does not count toward the long break.
        var s = try Drive(plan)
        s.take(try s.timer.skip(at: t0 + second))
        #expect(s.timer.phase == .shortBreak)
        s.advance(to: s.timer.endsAt!)
        s.advance(to: s.timer.endsAt!)
        #expect(s.timer.phase == .shortBreak, "one completed work phase only")
        #expect(s.records.first?.completed == false && s.ended.first?.completed == false)
    }

    @Test func cyclesEndThePomodoroAfterTheLastWorkPhase() throws {
        var plan = FocusPlan.pomodoro()
        plan.cycles = 2
        plan.autoStartWork = true
        var d = try Drive(plan)
        d.advance(to: d.timer.endsAt!)
        d.advance(to: d.timer.endsAt!)
        #expect(d.timer.phase == .work && d.timer.round == 2)
        d.advance(to: d.timer.endsAt!)
        #expect(d.timer.state == .done && d.timer.endsAt == nil)
        #expect(d.ended.last?.next == nil && d.timer.completedRounds == 2)
    }

    @Test func countdownLengthsAreBetweenOneSecondAndADay() throws {
        #expect(throws: FocusError.self) { try FocusTimer.start(.countdown(999_999), at: t0) }
        #expect(throws: FocusError.self) { try FocusTimer.start(.countdown(24 * hour + 1), at: t0) }
        var d = try Drive(.countdown(24 * hour, label: "Night"))
        d.advance(to: t0 + 24 * hour)
        #expect(d.timer.state == .done && d.ended.first?.next == nil && d.ended.first?.kind == .countdown)
        // "+1 min" on a finished countdown runs it again.
        d.take(try d.timer.extend(by: minute, at: t0 + 25 * hour))
        #expect(d.timer.state == .running && d.timer.endsAt == t0 + 25 * hour + minute)
    }

    @Test func intervalsHaveNoRestAfterTheLastRound() throws {
        var d = try Drive(.intervals(active: 40 * second, rest: 20 * second, rounds: 3))
        var seen: [String] = []
        while d.timer.state == .running {
            seen.append("\(d.timer.phase.rawValue)\(d.timer.round)")
            d.advance(to: d.timer.endsAt!)
        }
        #expect(seen == ["active1", "rest1", "active2", "rest2", "active3"])
        #expect(d.timer.state == .done && d.timer.completedRounds == 3)
        // Rest 0: active phases back to back; rounds 0: endless.
        var e = try Drive(.intervals(active: 5 * second, rest: 0, rounds: 0))
        for _ in 0..<50 { e.advance(to: e.timer.endsAt!) }
        #expect(e.timer.phase == .active && e.timer.round == 51 && e.timer.state == .running)
    }

    @Test func pauseHoldsTheRemainingTimeAndResumeContinues() throws {
        var d = try Drive(.countdown(10 * minute))
        d.take(try d.timer.pause(at: t0 + 4 * minute))
        #expect(d.timer.state == .paused && d.timer.remaining(at: t0 + 50 * minute) == 6 * minute)
        d.take(try d.timer.pause(at: t0 + 5 * minute))  // a no-op
        try d.timer.resume(at: t0 + 60 * minute)
        #expect(d.timer.endsAt == t0 + 66 * minute)
        try d.timer.resume(at: t0 + 61 * minute)  // a no-op
        #expect(d.timer.endsAt == t0 + 66 * minute)
        d.advance(to: t0 + 66 * minute)
        #expect(d.records.map { $0.end - $0.start } == [4 * minute, 6 * minute])
        #expect(d.records.map(\.completed) == [false, true])
        // The announced phase started with its first stretch.
        #expect(d.ended.first?.start == t0)
        #expect(throws: FocusError.self) { _ = try d.timer.pause(at: t0 + 67 * minute) }
    }

    @Test func extendAddsOrRemovesTimeAndEndsThePhaseWhenNothingIsLeft() throws {
        var d = try Drive(.countdown(10 * minute))
        d.take(try d.timer.extend(by: 5 * minute, at: t0 + minute))
        #expect(d.timer.endsAt == t0 + 15 * minute && d.timer.phaseDuration == 15 * minute)
        d.take(try d.timer.extend(by: -2 * minute, at: t0 + 2 * minute))
        #expect(d.timer.endsAt == t0 + 13 * minute)
        d.take(try d.timer.extend(by: -20 * minute, at: t0 + 3 * minute))
        #expect(d.timer.state == .done && d.ended.first?.end == t0 + 3 * minute)
        #expect(throws: FocusError.self) { _ = try d.timer.extend(by: 0, at: t0) }
        var e = try Drive(.countdown(23 * hour))
        #expect(throws: FocusError.self) { _ = try e.timer.extend(by: 2 * hour, at: t0) }
        #expect(e.timer.endsAt == t0 + 23 * hour, "a refused extension changes nothing")
    }

    @Test func aPhaseThatEndedWhileNobodyWatchedIsLateAndTheNextWaits() throws {
        var plan = FocusPlan.intervals(active: 30 * second, rest: 10 * second, rounds: 0)
        plan.label = "Gym"
        var d = try Drive(plan)
        // Down for an hour: ninety phases would have passed; one is announced.
        d.advance(to: t0 + hour)
        #expect(d.ended.count == 1 && d.ended[0].late && d.ended[0].end == t0 + 30 * second)
        #expect(d.timer.state == .waiting && d.timer.phase == .rest)
        #expect(d.ended[0].nextStarted == false)
        d.advance(to: t0 + 2 * hour)
        #expect(d.ended.count == 1, "announced once")
    }

    @Test func skipMovesOnAndAWaitingPhaseIsPassedOver() throws {
        var plan = FocusPlan.pomodoro()
        plan.autoStartBreaks = false
        var d = try Drive(plan)
        d.advance(to: t0 + 25 * minute)
        #expect(d.timer.state == .waiting && d.timer.phase == .shortBreak)
        d.take(try d.timer.skip(at: t0 + 26 * minute))
        #expect(d.timer.state == .running && d.timer.phase == .work && d.timer.round == 2)
        #expect(d.timer.endsAt == t0 + 51 * minute)
        d.timer = try FocusTimer.start(.countdown(minute), at: t0)
        d.take(try d.timer.skip(at: t0 + second))
        #expect(d.timer.state == .done)
        #expect(throws: FocusError.self) { _ = try d.timer.skip(at: t0 + 2 * second) }
    }

    @Test func stopRecordsThePartThatRan() throws {
        let timer = try FocusTimer.start(.countdown(10 * minute), at: t0)
        let outcome = timer.stop(at: t0 + 3 * minute)
        #expect(outcome.records.map { $0.end - $0.start } == [3 * minute])
        #expect(outcome.records.first?.completed == false && outcome.ended.isEmpty)
    }

    @Test func settingsOutOfRangeAreRefusedByName() {
        var plan = FocusPlan.pomodoro()
        plan.shortBreak = 0
        #expect(throws: FocusError.invalid("ShortBreak must be between 1 s and 24 h.")) { try plan.validate() }
        plan = .pomodoro()
        plan.longBreakEvery = 0
        #expect(throws: FocusError.self) { try plan.validate() }
        #expect(throws: FocusError.self) { try FocusPlan.intervals(active: second, rest: -1, rounds: 1).validate() }
        #expect(throws: FocusError.self) { try FocusPlan.countdown(minute, label: "bad\u{7}").validate() }
        #expect(throws: FocusError.self) { try FocusPreset.validatedName("  ") }
        #expect((try? FocusPreset.validatedName(" Tea ")) == "Tea")
    }
}

@Suite struct FocusDrivesWork {
    let rules = DayRules(timeZone: zone("Europe/Berlin"))

    @Test func workRunsTheProjectDuringWorkAndStopsAtTheBreak() throws {
        var plan = FocusPlan.pomodoro()
        plan.project = "p1"
        var state = WorkTimer()
        var history = MemoryHistory()
        var timer: FocusTimer? = try FocusTimer.start(plan, at: t0)
        history.apply(state.follow(focus: nil, timer, outcome: FocusOutcome(), at: t0, rules: rules))
        #expect(state.activeProject == "p1")
        // Noticed 40 ms late, the break stops work at the phase's end.
        let before = timer
        let outcome = timer!.advance(to: t0 + 25 * minute + 40_000, lateAfter: 10 * second)
        history.apply(state.follow(focus: before, timer, outcome: outcome, at: t0 + 25 * minute + 40_000, rules: rules))
        #expect(!state.running)
        #expect(history.closed == [Interval(start: t0, end: t0 + 25 * minute, projectID: "p1")])
    }

    @Test func breaksAreWorkKeepsTheProjectRunning() throws {
        var plan = FocusPlan.pomodoro()
        plan.project = "p1"
        plan.breaksAreWork = true
        var state = WorkTimer()
        var timer: FocusTimer? = try FocusTimer.start(plan, at: t0)
        _ = state.follow(focus: nil, timer, outcome: FocusOutcome(), at: t0, rules: rules)
        let before = timer
        let outcome = timer!.advance(to: t0 + 25 * minute, lateAfter: 10 * second)
        _ = state.follow(focus: before, timer, outcome: outcome, at: t0 + 25 * minute, rules: rules)
        #expect(state.activeProject == "p1" && timer?.phase == .shortBreak)
    }

    @Test func withoutAProjectWorkIsLeftAlone() throws {
        var state = WorkTimer()
        _ = state.start(at: t0, rules: rules)
        var timer: FocusTimer? = try FocusTimer.start(.countdown(minute), at: t0)
        let before = timer
        let outcome = try timer!.pause(at: t0 + second)
        #expect(state.follow(focus: before, timer, outcome: outcome, at: t0 + second, rules: rules).isEmpty)
        #expect(state.running)
    }

    /// `confirm` starts only a waiting phase: a running or paused timer is left exactly as it is.
    @Test func confirmChangesNothingUnlessAPhaseWaits() throws {
        var timer = try FocusTimer.start(.countdown(10 * minute), at: t0)
        let running = timer
        timer.confirm(at: t0 + minute)
        #expect(timer == running)
        _ = try timer.pause(at: t0 + 2 * minute)
        let paused = timer
        timer.confirm(at: t0 + 3 * minute)
        #expect(timer == paused && timer.state == .paused)
    }

    @Test func stoppingWorkByHandPausesTheFocusTimer() throws {
        var plan = FocusPlan.countdown(10 * minute)
        plan.project = "p1"
        var state = WorkTimer()
        var timer = try FocusTimer.start(plan, at: t0)
        _ = state.follow(focus: nil, timer, outcome: FocusOutcome(), at: t0, rules: rules)
        #expect(timer.follow(work: state, at: t0 + minute).records.isEmpty)
        _ = state.stop(at: t0 + 2 * minute)
        let paused = timer.follow(work: state, at: t0 + 2 * minute)
        #expect(timer.state == .paused && timer.remaining(at: t0 + hour) == 8 * minute)
        #expect(paused.records.count == 1)
    }
}

@Suite struct FocusTotalsRules {
    @Test func aPhaseAcrossMidnightSplitsAndCountsOnTheDayItEnded() {
        let rules = DayRules(timeZone: zone("Europe/Berlin"))
        let midnight = t("2026-11-24T00:00:00+01:00")
        let records = [
            FocusRecord(
                kind: .pomodoro, phase: .work, round: 1, label: "", project: "p1", start: midnight - 10 * minute,
                end: midnight + 15 * minute, planned: 25 * minute, completed: true),
            FocusRecord(
                kind: .pomodoro, phase: .shortBreak, round: 1, label: "", project: "p1", start: midnight + 15 * minute,
                end: midnight + 20 * minute, planned: 5 * minute, completed: true),
        ]
        let day = rules.day(containing: midnight - 1)
        let boundaries = rules.boundaries(from: day, to: day.adding(days: 1))
        let totals = FocusTotals(records, boundaries: boundaries)
        #expect(totals.focusTime == [10 * minute, 15 * minute])
        #expect(totals.completed == [0, 1])
        #expect(totals.completedByProject == ["p1": 1])
    }
}

/// Random operations and clock jumps on random plans, checked against the rules at every step.
@Suite struct FocusProperties {
    static func plan(_ code: Int) -> FocusPlan {
        switch code % 3 {
        case 0:
            var plan = FocusPlan.pomodoro()
            plan.work = Micros(1 + code % 7) * minute
            plan.shortBreak = Micros(1 + code % 3) * minute
            plan.longBreak = Micros(2 + code % 5) * minute
            plan.longBreakEvery = 1 + (code / 3) % 4
            plan.cycles = (code / 12) % 4
            plan.autoStartBreaks = code % 5 != 0
            plan.autoStartWork = code % 7 == 0
            return plan
        case 1: return .countdown(Micros(1 + code % 90) * second)
        default:
            return .intervals(
                active: Micros(1 + code % 40) * second, rest: Micros(code % 3) * 10 * second, rounds: (code / 3) % 5)
        }
    }

    @Test func remainingNeverNegativePhasesFollowTheRulesAndCountsAreRight() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...10_000), Gen.int(in: 0...100_000).array(of: 1...80)) {
            planCode, codes in
            let plan = Self.plan(planCode)
            var now = t0
            var d = try! Drive(plan, at: now)
            for code in codes {
                // A clock step: nothing, a little, past the phase end, or a long absence.
                switch code % 4 {
                case 0: break
                case 1: now += Micros(code % 5000) * 1000
                case 2: now = max(now, d.timer.endsAt ?? now)
                default: now += Micros(code % 180) * minute
                }
                d.advance(to: now)
                switch (code / 4) % 7 {
                case 0: d.take((try? d.timer.pause(at: now)) ?? FocusOutcome())
                case 1: try? d.timer.resume(at: now)
                case 2: d.take((try? d.timer.skip(at: now)) ?? FocusOutcome())
                case 3: d.take((try? d.timer.extend(by: Micros((code % 240) - 120) * second, at: now)) ?? FocusOutcome())
                case 4: d.timer.confirm(at: now)
                default: break
                }
                Self.check(d, plan: plan, at: now)
            }
        }
    }

    fileprivate static func check(_ d: Drive, plan: FocusPlan, at now: Micros) {
        let timer = d.timer
        #expect(timer.remaining(at: now) >= 0)
        #expect((timer.state == .running) == (timer.endsAt != nil))
        if timer.state == .running { #expect(timer.endsAt! > now, "a phase whose end passed has been ended") }
        if timer.state == .done { #expect(timer.remaining(at: now) == 0) }
        // Stretches are in order, never overlap and are never empty.
        for (a, b) in zip(d.records, d.records.dropFirst()) { #expect(a.end <= b.start) }
        #expect(d.records.allSatisfy { $0.end > $0.start })
        // Completed rounds are the completed work phases or active rounds recorded.
        #expect(timer.completedRounds == d.records.filter { $0.completed && $0.phase.counts }.count)
        switch plan.kind {
        case .pomodoro:
            #expect([.work, .shortBreak, .longBreak].contains(timer.phase))
            if plan.cycles > 0 { #expect(timer.round <= plan.cycles) }
            // Every long break came right after the N-th completed work phase since the last one.
            var since = 0
            for end in d.ended {
                if end.phase == .work && end.completed { since += 1 }
                if end.next == .longBreak {
                    #expect(since == plan.longBreakEvery)
                    since = 0
                }
            }
        case .countdown:
            #expect(timer.phase == .countdown && timer.round == 1)
        case .intervals:
            #expect([.active, .rest].contains(timer.phase))
            if plan.cycles > 0 {
                #expect(timer.round <= plan.cycles)
                #expect(!(timer.phase == .rest && timer.round == plan.cycles), "no rest after the last round")
            }
            if plan.rest == 0 { #expect(timer.phase == .active) }
        }
    }
}
