import BiomaCore
import Foundation
import PropertyBased
import Testing

/// Random sequences of operations and clock steps, checked against the rules after every step.
@Suite struct WorkTimerProperties {
    static let zones: [DayRules] = [
        DayRules(timeZone: zone("Europe/Berlin")),
        DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 240, firstWeekday: 1),
        DayRules(timeZone: zone("Australia/Lord_Howe")),
        DayRules(timeZone: zone("America/New_York"), dayStartMinutes: 150),
        DayRules(timeZone: zone("UTC")),
    ]
    /// Starting points next to DST changes.
    static let origins: [Micros] = [
        t("2024-03-30T18:00:00+01:00"), t("2024-10-26T20:00:00+02:00"), t("2024-10-05T12:00:00+10:30"),
        t("2024-04-06T12:00:00+11:00"), t("2024-03-09T22:00:00-05:00"),
    ]

    struct Run {
        var harness: Harness
        var now: Micros
        var first: Micros
    }

    /// Decodes one random number into an operation and a clock step, applies both, and checks.
    static func step(_ code: Int, _ run: inout Run) {
        let project = ["a", "b", "c"][(code / 9) % 3]
        let amount = Micros((code / 108) % 1000)
        switch (code / 27) % 4 {
        case 0: break  // several operations at the same instant
        case 1: run.now += amount * minute
        case 2:  // exactly onto the next day boundary
            run.now = run.harness.rules.start(of: run.harness.rules.day(containing: run.now).adding(days: 1))
        default: run.now += amount * microsPerSecond + amount
        }
        let now = run.now
        var h = run.harness
        let before = h.snapshot(now)
        switch code % 9 {
        case 0: h.start(now)
        case 1: h.stop(now)
        case 2: if h.state.running { h.stop(now) } else { h.start(now) }
        case 3:
            h.reset(now)
            let after = h.snapshot(now)
            #expect(after.dailyTotal == before.dailyTotal)
            #expect(after.projectTimes.mapValues(\.dailyTotal) == before.projectTimes.mapValues(\.dailyTotal))
            #expect(after.sessionTime == 0)
        case 4: h.startProject(project, now)
        case 5: h.stopProject(now)
        case 6: h.state.resetProject(project, at: now)
        case 7: if h.state.activeProject == project { h.stopProject(now) } else { h.startProject(project, now) }
        default:
            if let next = h.state.cycleTarget(step: code % 2 == 0 ? 1 : -1, order: ["a", "b", "c"]) {
                h.startProject(next, now)
            }
        }
        run.harness = h
        check(h, at: now)
    }

    static func check(_ h: Harness, at now: Micros) {
        let snap = h.snapshot(now)
        // Never two running projects, and a running project means running work.
        let running = snap.projectTimes.filter { $0.value.running }.map(\.key)
        #expect(running.count <= 1)
        #expect(running.first == snap.activeProject?.id)
        if snap.activeProject != nil { #expect(snap.running) }
        // Project time never outside work time: sessions and daily totals.
        let projectSessions = snap.projectTimes.values.map(\.session).reduce(0, +)
        #expect(projectSessions <= snap.sessionTime)
        #expect(snap.projectTimes.values.map(\.dailyTotal).reduce(0, +) <= snap.dailyTotal)
        #expect(snap.dailyTotal >= 0 && snap.sessionTime >= 0)
        // The history is ordered, with no overlaps and no empty intervals.
        let all = h.history.intervals(at: now)
        for (a, b) in zip(all, all.dropFirst()) { #expect(a.end <= b.start) }
        #expect(all.allSatisfy { $0.end > $0.start })
    }

    @Test func invariantsHoldOverRandomSequences() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...(Self.zones.count * Self.origins.count - 1)),
            Gen.int(in: 0...200_000).array(of: 1...60)
        ) { setup, codes in
            let rules = Self.zones[setup % Self.zones.count]
            let origin = Self.origins[setup / Self.zones.count]
            var run = Run(harness: Harness(rules: rules), now: origin, first: origin)
            for code in codes { Self.step(code, &run) }
            let h = run.harness
            let end = run.now + hour
            // The daily totals of all days add up to the total interval time.
            let intervals = h.history.intervals(at: run.now)
            let total = intervals.map { $0.end - $0.start }.reduce(0, +)
            let from = rules.day(containing: run.first)
            let to = rules.day(containing: end)
            let report = h.report(from, to, at: run.now)
            #expect(report.days.map(\.workTotal).reduce(0, +) == total)
            #expect(report.workTotal == total)
            #expect(report.projects.map(\.total).reduce(0, +) + report.noProjectTotal == total)
            // Each day's report agrees with the range report.
            for dayTotal in report.days.prefix(4) {
                #expect(h.report(dayTotal.day, dayTotal.day, at: run.now).workTotal == dayTotal.workTotal)
            }
            // Export → import round-trips, and a second export is identical.
            let names = ["a": "=SUM(A1)", "b": "R&D, \"internal\"", "c": "'-minus"]
            let rows = h.history.closed.map {
                IntervalCSV.Row(
                    projectName: $0.projectID.map { names[$0]! }, color: $0.projectID.map { _ in "#00FF7F" },
                    start: $0.start, end: $0.end)
            }
            let csv = IntervalCSV.encode(rows, timeZone: rules.timeZone)
            do {
                let back = try IntervalCSV.decode(csv)
                #expect(back.map { [$0.projectName ?? "", $0.color ?? ""] } == rows.map { [$0.projectName ?? "", $0.color ?? ""] })
                #expect(back.map { [$0.start, $0.end] } == rows.map { [$0.start, $0.end] })
                #expect(IntervalCSV.encode(back, timeZone: rules.timeZone) == csv)
            } catch {
                Issue.record("decode failed: \(error)")
            }
        }
    }

    @Test func dayBoundariesAreContiguousAndContainTheirInstants() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 0...(Self.zones.count - 1)),
            Gen.int(in: 0...(40 * 366 * 24 * 60))
        ) { zoneIndex, minutes in
            let rules = Self.zones[zoneIndex]
            let instant = t("2000-01-01T00:00:00Z") + Micros(minutes) * minute + 17
            let day = rules.day(containing: instant)
            let (start, end) = rules.bounds(of: day)
            #expect(start <= instant && instant < end)
            #expect(end - start >= 22 * hour && end - start <= 26 * hour)
            #expect(rules.day(containing: end) == day.adding(days: 1))
            #expect(rules.day(containing: end - 1) == day)
        }
    }
}
