import BiomaCore
import Foundation
import Testing

@testable import BiomaStore

/// The targets `target set` keeps, the day last announced, and the sums the balance needs
/// (`v8-targets`).
struct TargetStoreTests {
    let hour: Micros = 3600 * microsPerSecond

    @Test func targetsAndTheAnnouncedDaySurviveReopening() throws {
        try withTemporaryDirectory { dir in
            do {
                let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
                #expect(try tracker.storedTargets().isEmpty && tracker.targetAnnouncedDay() == nil)
                try tracker.setTargets([2: 8 * hour, 6: 6 * hour])
                try tracker.setTargets([6: 5 * hour])
                try tracker.saveTargetAnnounced(Day("2026-11-20")!)
            }
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            #expect(try reopened.storedTargets() == [2: 8 * hour, 6: 5 * hour])
            #expect(try reopened.targetAnnouncedDay() == Day("2026-11-20"))
        }
    }

    /// A 04:00 day start in Berlin: a day runs from 04:00 to 04:00, and the one across the
    /// change from summer time lasts 25 hours, all of them counted.
    @Test func workSinceADayWithALateStartAcrossADSTChange() throws {
        try withTemporaryDirectory { dir in
            let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 240)
            let tracker = try Tracker(dataDirectory: dir, rules: rules, now: t("2026-10-24T00:00:00+02:00"), bootID: "b")
            _ = try tracker.appendHistory(
                [Interval(start: t("2026-10-24T02:00:00+02:00"), end: t("2026-10-26T06:00:00+01:00"), projectID: nil)],
                at: t("2026-10-27T00:00:00+01:00"))
            #expect(try tracker.firstRecordedDay() == Day("2026-10-23"))
            let since = Day("2026-10-24")!
            #expect(try tracker.workTotal(since: since, at: t("2026-10-25T04:00:00+01:00")) == 25 * hour)
            #expect(try tracker.workTotal(since: since, at: t("2026-10-26T04:00:00+01:00")) == 49 * hour)
            #expect(try tracker.workTotal(since: since, at: t("2026-10-27T00:00:00+01:00")) == 51 * hour)
        }
    }

    @Test func badTargetsChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            try tracker.setTargets([2: 8 * hour])
            let before = try tracker.dumpForTesting()
            for bad in [[3: -1], [1: 25 * hour], [0: hour], [3: hour, 8: hour]] as [[Int: Micros]] {
                #expect(throws: TrackerError.self) { try tracker.setTargets(bad) }
                #expect(try tracker.dumpForTesting() == before)
            }
        }
    }

    /// Work since a day: closed intervals clipped at the day's start, the running one up to now.
    @Test func workSinceADayAndTheFirstRecordedDay() throws {
        try withTemporaryDirectory { dir in
            let day = Day("2026-11-20")!
            let start = utc.start(of: day)
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: start - 2 * hour, bootID: "b")
            #expect(try tracker.firstRecordedDay() == nil)
            // 22:00–02:00 across midnight, then running from 09:00.
            _ = try tracker.appendHistory([Interval(start: start - 2 * hour, end: start + 2 * hour, projectID: nil)], at: start + 3 * hour)
            try tracker.start(at: start + 9 * hour)
            #expect(try tracker.firstRecordedDay() == day.adding(days: -1))
            #expect(try tracker.workTotal(since: day, at: start + 10 * hour) == 3 * hour)
            #expect(try tracker.workTotal(since: day.adding(days: -1), at: start + 10 * hour) == 5 * hour)
            #expect(try tracker.workTotal(since: day.adding(days: 1), at: start + 10 * hour) == 0)
            // A change to an earlier day shows at once (the sum before today is kept only
            // until the next change).
            _ = try tracker.appendHistory([Interval(start: start - 5 * hour, end: start - 4 * hour, projectID: nil)], at: start + 10 * hour)
            #expect(try tracker.workTotal(since: day.adding(days: -1), at: start + 10 * hour) == 6 * hour)
            // The next day: the running interval counts from its start, everything before is summed anew.
            #expect(try tracker.workTotal(since: day.adding(days: -1), at: start + 26 * hour) == 5 * hour + 17 * hour)
        }
    }
}
