import BiomaCore
import Foundation
import Testing

@testable import BiomaStore
import StoreTestSupport

/// The targets `target set` keeps, the day last announced, and the sums the balance needs
/// (`v8-targets`).
struct TargetStoreTests {
    let hour: Micros = 3600 * microsPerSecond

    @Test func targetsAndTheAnnouncedDaySurviveReopening() throws {
        try withTemporaryDirectory { dir in
            do {
                let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
                #expect(try tracker.targets.storedTargets().isEmpty && tracker.daemonState.targetAnnouncedDay() == nil)
                try tracker.targets.setTargets([2: 8 * hour, 6: 6 * hour], from: Day("2026-11-16")!)
                try tracker.targets.setTargets([6: 5 * hour], from: Day("2026-11-20")!)
                try tracker.daemonState.saveTargetAnnounced(Day("2026-11-20")!)
            }
            let reopened = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            #expect(try reopened.targets.storedTargets() == [2: 8 * hour, 6: 5 * hour])
            // Each value from the day it was set: Friday 6 h from the 16th, 5 h from the 20th.
            let friday = try #require(try reopened.targets.storedTargetHistories()[6])
            #expect(friday.target(on: Day("2026-11-13")!) == nil)
            #expect(friday.target(on: Day("2026-11-16")!) == 6 * hour && friday.target(on: Day("2026-11-20")!) == 5 * hour)
            #expect(try reopened.daemonState.targetAnnouncedDay() == Day("2026-11-20"))
        }
    }

    /// A 04:00 day start in Berlin: a day runs from 04:00 to 04:00, and the one across the
    /// change from summer time lasts 25 hours, all of them counted.
    @Test func workSinceADayWithALateStartAcrossADSTChange() throws {
        try withTemporaryDirectory { dir in
            let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 240)
            let tracker = try Tracker(dataDirectory: dir, rules: rules, now: t("2026-10-24T00:00:00+02:00"), bootID: "b")
            _ = try tracker.history.append(
                [Interval(start: t("2026-10-24T02:00:00+02:00"), end: t("2026-10-26T06:00:00+01:00"), projectID: nil)],
                at: t("2026-10-27T00:00:00+01:00"))
            #expect(try tracker.targets.firstRecordedDay() == Day("2026-10-23"))
            let since = Day("2026-10-24")!
            #expect(try tracker.targets.workTotal(since: since, at: t("2026-10-25T04:00:00+01:00")) == 25 * hour)
            #expect(try tracker.targets.workTotal(since: since, at: t("2026-10-26T04:00:00+01:00")) == 49 * hour)
            #expect(try tracker.targets.workTotal(since: since, at: t("2026-10-27T00:00:00+01:00")) == 51 * hour)
        }
    }

    @Test func badTargetsChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            try tracker.targets.setTargets([2: 8 * hour], from: Day("2026-11-16")!)
            let before = try tracker.dumpForTesting()
            for bad in [[3: -1], [1: 25 * hour], [0: hour], [3: hour, 8: hour]] as [[Int: Micros]] {
                #expect(throws: TrackerError.self) { try tracker.targets.setTargets(bad, from: Day("2026-11-17")!) }
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
            #expect(try tracker.targets.firstRecordedDay() == nil)
            // 22:00–02:00 across midnight, then running from 09:00.
            _ = try tracker.history.append([Interval(start: start - 2 * hour, end: start + 2 * hour, projectID: nil)], at: start + 3 * hour)
            try tracker.timers.start(at: start + 9 * hour)
            #expect(try tracker.targets.firstRecordedDay() == day.adding(days: -1))
            #expect(try tracker.targets.workTotal(since: day, at: start + 10 * hour) == 3 * hour)
            #expect(try tracker.targets.workTotal(since: day.adding(days: -1), at: start + 10 * hour) == 5 * hour)
            #expect(try tracker.targets.workTotal(since: day.adding(days: 1), at: start + 10 * hour) == 0)
            // A change to an earlier day shows at once (the sum before today is kept only
            // until the next change).
            _ = try tracker.history.append([Interval(start: start - 5 * hour, end: start - 4 * hour, projectID: nil)], at: start + 10 * hour)
            #expect(try tracker.targets.workTotal(since: day.adding(days: -1), at: start + 10 * hour) == 6 * hour)
            // The next day: the running interval counts from its start, everything before is summed anew.
            #expect(try tracker.targets.workTotal(since: day.adding(days: -1), at: start + 26 * hour) == 5 * hour + 17 * hour)
        }
    }

    /// The settings file's targets count from the day the daemon first read each value; a
    /// value changed in the file counts from the day it was read changed, the days before
    /// keeping the old one.
    @Test func theSettingsTargetsCountFromTheDayTheyWereFirstRead() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            var file = WorkTargets()
            #expect(try file.apply(key: "target", value: "8h"))
            let first = try tracker.targets.configTargets(file, seenFrom: Day("2026-12-02")!)
            #expect(first.firstTargetDay == .some(Day("2026-12-02")))
            #expect(first.target(for: Day("2026-11-30")!) == 0 && first.target(for: Day("2026-12-07")!) == 8 * hour)
            // Read again on a later day, unchanged: still from the 2nd.
            #expect(try tracker.targets.configTargets(file, seenFrom: Day("2026-12-09")!) == first)
            #expect(try file.apply(key: "target_mon", value: "6h"))
            let changed = try tracker.targets.configTargets(file, seenFrom: Day("2026-12-14")!)
            #expect(changed.target(for: Day("2026-12-07")!) == 8 * hour && changed.target(for: Day("2026-12-14")!) == 6 * hour)
        }
    }

    /// A store of the version before: its weekday targets count from the day of the
    /// migration, the sync triggers record the history beside the value, and a weekday's
    /// UUID is still its weekday's.
    @Test func aStoreFromBeforeHistoriesCountsItsTargetsFromTheMigration() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let path = dir.appendingPathComponent(Tracker.databaseFileName).path
            try Tracker.makeDatabaseForTesting(
                at: path, upTo: "v13-interval-indexes", then: "INSERT INTO work_target (weekday, target_us) VALUES (2, \(8 * hour))")
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: "b")
            let monday = try #require(try tracker.targets.storedTargetHistories()[2])
            #expect(monday.current == 8 * hour)
            #expect(monday.entries.count == 1 && monday.entries[0].from != nil)
            try tracker.targets.setTargets([3: 7 * hour], from: Day("2026-12-02")!)
            let uuid = try tracker.readOrThrow { try String.fetchOne($0, sql: "SELECT uuid FROM work_target WHERE weekday = 3") }
            #expect(uuid == "00000000-0000-4000-8000-000000000003")
        }
    }
}
