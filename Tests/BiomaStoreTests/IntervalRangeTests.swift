import BiomaCore
import Foundation
import Testing

@testable import BiomaStore

/// `StoreHistory.intervals(from:to:at:)`: what the picture of the day is drawn from.
@Suite struct IntervalRangeTests {
    @Test func theRangesIntervalsAndTheRunningOne() throws {
        try withTemporaryDirectory { dir in
            let tracker = try Tracker(dataDirectory: dir, rules: utc, now: 0, bootID: boot)
            let a = try tracker.catalog.addProject(name: "A", color: "#FF0000", at: 0)
            let before = Interval(start: t("2026-01-04T10:00:00Z"), end: t("2026-01-04T11:00:00Z"), projectID: a)
            let across = Interval(start: t("2026-01-04T23:00:00Z"), end: t("2026-01-05T01:00:00Z"), projectID: a)
            let inside = Interval(start: t("2026-01-05T09:00:00Z"), end: t("2026-01-05T10:00:00Z"), projectID: nil)
            let after = Interval(start: t("2026-01-06T09:00:00Z"), end: t("2026-01-06T10:00:00Z"), projectID: a)
            #expect(try tracker.history.append([after, inside, across, before], at: t("2026-01-07T00:00:00Z")) == 4)
            let day = Day("2026-01-05")!
            #expect(try tracker.history.intervals(from: day, to: day, at: t("2026-01-07T00:00:00Z")) == [across, inside])
            #expect(
                try tracker.history.intervals(from: Day("2026-01-04")!, to: Day("2026-01-06")!, at: t("2026-01-07T00:00:00Z"))
                    == [before, across, inside, after])

            // Running since 12:00 on the 7th: included up to now, only in ranges it overlaps.
            let start = t("2026-01-07T12:00:00Z")
            try tracker.timers.startProject(a, at: start)
            let seventh = Day("2026-01-07")!
            #expect(
                try tracker.history.intervals(from: seventh, to: seventh, at: start + hour)
                    == [Interval(start: start, end: start + hour, projectID: a)])
            #expect(try tracker.history.intervals(from: seventh, to: seventh, at: start) == [], "not yet any time")
            #expect(try tracker.history.intervals(from: day, to: day, at: start + hour) == [across, inside])
            #expect(throws: TrackerError.self) { try tracker.history.intervals(from: seventh, to: day, at: start) }
        }
    }
}
