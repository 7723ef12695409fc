@testable import BiomaCore
import Foundation
import Testing

/// The picture of the day: every moment of each day is a project's work, work without a
/// project or unaccounted, clipped to the day the rules give, and placed on a 24-hour clock.
@Suite struct DayChartTests {
    typealias Arc = DayChart.Arc
    typealias Segment = DayChart.Segment

    func interval(_ start: String, _ end: String, _ project: String?) -> Interval {
        Interval(start: t(start), end: t(end), projectID: project)
    }

    /// A clock second from `HH:MM`.
    func c(_ text: String) -> Int {
        let parts = text.split(separator: ":").map { Int($0)! }
        return parts[0] * 3600 + parts[1] * 60
    }

    @Test func aDayIsCoveredInOrderAndClippedAtMidnight() throws {
        let intervals = [
            interval("2026-01-05T13:00:00Z", "2026-01-05T15:30:00Z", "b"),
            interval("2026-01-04T22:00:00Z", "2026-01-05T01:00:00Z", "a"),  // from the day before
            interval("2026-01-05T16:00:00Z", "2026-01-05T17:00:00Z", nil),
            interval("2026-01-05T23:00:00Z", "2026-01-06T02:00:00Z", "a"),  // into the next day
        ]
        let chart = DayChart(from: day("2026-01-05"), to: day("2026-01-05"), intervals: intervals, rules: utc, now: nil)
        let d = try #require(chart.days.first)
        #expect(chart.days.count == 1)
        #expect(d.start == t("2026-01-05T00:00:00Z") && d.end == t("2026-01-06T00:00:00Z"))
        #expect(
            d.segments == [
                Segment(start: t("2026-01-05T00:00:00Z"), end: t("2026-01-05T01:00:00Z"), kind: .project("a")),
                Segment(start: t("2026-01-05T01:00:00Z"), end: t("2026-01-05T13:00:00Z"), kind: .unaccounted),
                Segment(start: t("2026-01-05T13:00:00Z"), end: t("2026-01-05T15:30:00Z"), kind: .project("b")),
                Segment(start: t("2026-01-05T15:30:00Z"), end: t("2026-01-05T16:00:00Z"), kind: .unaccounted),
                Segment(start: t("2026-01-05T16:00:00Z"), end: t("2026-01-05T17:00:00Z"), kind: .noProject),
                Segment(start: t("2026-01-05T17:00:00Z"), end: t("2026-01-05T23:00:00Z"), kind: .unaccounted),
                Segment(start: t("2026-01-05T23:00:00Z"), end: t("2026-01-06T00:00:00Z"), kind: .project("a")),
            ])
        #expect(d.segments[0].projectID == "a" && d.segments[4].projectID == nil)
        #expect(
            d.arcs == [
                Arc(from: 0, to: c("01:00"), kind: .project("a")), Arc(from: c("01:00"), to: c("13:00"), kind: .unaccounted),
                Arc(from: c("13:00"), to: c("15:30"), kind: .project("b")),
                Arc(from: c("15:30"), to: c("16:00"), kind: .unaccounted), Arc(from: c("16:00"), to: c("17:00"), kind: .noProject),
                Arc(from: c("17:00"), to: c("23:00"), kind: .unaccounted), Arc(from: c("23:00"), to: 86_400, kind: .project("a")),
            ])
        #expect(d.totals.work == 5 * hour + 30 * minute)
        #expect(d.totals.byProject == ["a": 2 * hour, "b": 2 * hour + 30 * minute])
        #expect(d.totals.noProject == hour)
        #expect(d.unaccounted == 18 * hour + 30 * minute)
        #expect(d.now == nil)
        #expect(chart.totals == d.totals && chart.length == 24 * hour)
    }

    @Test func anEmptyDayIsAllUnaccounted() {
        let chart = DayChart(from: day("2026-01-05"), to: day("2026-01-05"), intervals: [], rules: berlin, now: nil)
        #expect(chart.days[0].segments.map(\.kind) == [.unaccounted])
        #expect(chart.days[0].arcs == [Arc(from: 0, to: 86_400, kind: .unaccounted)])
        #expect(chart.unaccounted == 24 * hour)
    }

    /// A day that starts at 04:00 runs to 04:00 the next morning; on the clock face its last
    /// hours are the small hours, so an evening that runs past midnight wraps round.
    @Test func aDayStartingAt4WrapsRoundMidnightOnTheFace() throws {
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 4 * 60)
        let intervals = [
            interval("2026-01-05T03:00:00+01:00", "2026-01-05T05:00:00+01:00", "a"),  // one hour of it before the day
            interval("2026-01-05T22:00:00+01:00", "2026-01-06T02:00:00+01:00", "b"),
        ]
        let chart = DayChart(from: day("2026-01-05"), to: day("2026-01-05"), intervals: intervals, rules: rules, now: nil)
        let d = try #require(chart.days.first)
        #expect(d.start == t("2026-01-05T04:00:00+01:00") && d.end == t("2026-01-06T04:00:00+01:00"))
        #expect(d.segments.first == Segment(start: d.start, end: t("2026-01-05T05:00:00+01:00"), kind: .project("a")))
        #expect(
            d.arcs == [
                Arc(from: c("04:00"), to: c("05:00"), kind: .project("a")),
                Arc(from: c("05:00"), to: c("22:00"), kind: .unaccounted),
                Arc(from: c("22:00"), to: 86_400, kind: .project("b")), Arc(from: 0, to: c("02:00"), kind: .project("b")),
                Arc(from: c("02:00"), to: c("04:00"), kind: .unaccounted),
            ])
        #expect(d.totals.byProject == ["a": hour, "b": 4 * hour])
    }

    /// Clocks go forward at 02:00: the day has 23 hours, 02:00–03:00 is on no arc.
    @Test func berlinSpringDayLeavesTheSkippedHourEmpty() throws {
        let intervals = [interval("2024-03-31T01:30:00+01:00", "2024-03-31T03:30:00+02:00", "a")]
        let chart = DayChart(from: day("2024-03-31"), to: day("2024-03-31"), intervals: intervals, rules: berlin, now: nil)
        let d = try #require(chart.days.first)
        #expect(d.length == 23 * hour)
        #expect(d.totals.work == hour)
        #expect(
            d.arcs == [
                Arc(from: 0, to: c("01:30"), kind: .unaccounted), Arc(from: c("01:30"), to: c("02:00"), kind: .project("a")),
                Arc(from: c("03:00"), to: c("03:30"), kind: .project("a")),
                Arc(from: c("03:30"), to: 86_400, kind: .unaccounted),
            ])
        #expect(d.unaccounted == 22 * hour)
    }

    /// Clocks go back at 03:00: the day has 25 hours, and 02:00–03:00 is on the face twice.
    @Test func berlinAutumnDayDrawsTheRepeatedHourTwice() throws {
        let intervals = [
            interval("2024-10-27T02:30:00+02:00", "2024-10-27T02:15:00+01:00", "a"),
            interval("2024-10-27T02:15:00+01:00", "2024-10-27T02:45:00+01:00", "b"),
        ]
        let chart = DayChart(from: day("2024-10-27"), to: day("2024-10-27"), intervals: intervals, rules: berlin, now: nil)
        let d = try #require(chart.days.first)
        #expect(d.length == 25 * hour)
        #expect(d.totals.byProject == ["a": 45 * minute, "b": 30 * minute])
        #expect(
            d.arcs == [
                Arc(from: 0, to: c("02:30"), kind: .unaccounted),
                Arc(from: c("02:30"), to: c("03:00"), kind: .project("a")),  // summer time
                Arc(from: c("02:00"), to: c("02:15"), kind: .project("a")),  // winter time, again
                Arc(from: c("02:15"), to: c("02:45"), kind: .project("b")),
                Arc(from: c("02:45"), to: 86_400, kind: .unaccounted),
            ])
        #expect(d.unaccounted == 25 * hour - 75 * minute)
    }

    /// The running interval, closed at now by the store, and the hand at now on today only.
    @Test func theRunningIntervalAndTheHand() throws {
        let now = t("2026-01-07T14:20:00+01:00")
        let intervals = [interval("2026-01-07T13:00:00+01:00", "2026-01-07T14:20:00+01:00", "a")]
        let chart = DayChart(from: day("2026-01-06"), to: day("2026-01-08"), intervals: intervals, rules: berlin, now: now)
        #expect(chart.days.map(\.now) == [nil, c("14:20"), nil])
        let today = chart.days[1]
        #expect(today.segments.map(\.kind) == [.unaccounted, .project("a"), .unaccounted])
        #expect(today.segments[1].end == now)
        #expect(today.totals.work == 80 * minute)
        // The rest of today is unaccounted, as the hours before.
        #expect(today.unaccounted == 24 * hour - 80 * minute)
    }

    /// A week: seven days in order, each with its own totals, an interval across midnight
    /// split between two of them, the range's totals their sum.
    @Test func aWeek() {
        let intervals = [
            interval("2026-01-06T22:00:00+01:00", "2026-01-07T01:00:00+01:00", "a"),
            interval("2026-01-11T09:00:00+01:00", "2026-01-11T10:00:00+01:00", nil),
            interval("2026-01-12T09:00:00+01:00", "2026-01-12T10:00:00+01:00", "b"),  // the next week
        ]
        let range = berlin.period(.week, containing: day("2026-01-07"))
        let chart = DayChart(from: range.from, to: range.to, intervals: intervals, rules: berlin, now: nil)
        #expect(chart.days.map(\.day.description) == (5...11).map { "2026-01-\($0 < 10 ? "0" : "")\($0)" })
        #expect(chart.days.map(\.totals.work) == [0, 2 * hour, hour, 0, 0, 0, hour])
        #expect(chart.totals.byProject == ["a": 3 * hour])
        #expect(chart.totals.noProject == hour)
        #expect(chart.length == 7 * 24 * hour)
        #expect(chart.unaccounted == 7 * 24 * hour - 4 * hour)
        for d in chart.days {
            // Every day is covered without gaps or overlaps.
            #expect(d.segments.first?.start == d.start && d.segments.last?.end == d.end)
            #expect(zip(d.segments, d.segments.dropFirst()).allSatisfy { $0.end == $1.start && $0.kind != $1.kind })
        }
    }

    @Test func clockSecondsInAZone() {
        #expect(berlin.clockSecond(of: t("2026-01-05T23:59:59+01:00")) == 86_399)
        #expect(berlin.clockSecond(of: t("2026-07-05T00:00:00+02:00")) == 0)
        #expect(utc.clockSecond(of: t("1969-12-31T23:00:00Z")) == 23 * 3600)
    }
}
