import BiomaCore
import Foundation
import Testing

@Suite struct DayTests {
    @Test func parsesAndPrintsDays() {
        #expect(day("2024-02-29").description == "2024-02-29")
        #expect(Day("2023-02-29") == nil)
        #expect(Day("2024-13-01") == nil)
        #expect(Day("2024-1-01") == nil)
        #expect(Day("1970-01-01")?.ordinal == 0)
        #expect(day("2024-12-31").adding(days: 1) == day("2025-01-01"))
        #expect(day("2024-01-01").weekday == 2)  // a Monday
    }

    @Test func midnightDaysInBerlin() {
        let (start, end) = berlin.bounds(of: day("2024-01-15"))
        #expect(start == t("2024-01-15T00:00:00+01:00"))
        #expect(end - start == 24 * hour)
        #expect(berlin.day(containing: t("2024-01-15T23:59:59+01:00")) == day("2024-01-15"))
        #expect(berlin.day(containing: t("2024-01-16T00:00:00+01:00")) == day("2024-01-16"))
    }

    @Test func berlinSpringDayHas23Hours() {
        let (start, end) = berlin.bounds(of: day("2024-03-31"))
        #expect(start == t("2024-03-31T00:00:00+01:00"))
        #expect(end == t("2024-04-01T00:00:00+02:00"))
        #expect(end - start == 23 * hour)
    }

    @Test func berlinAutumnDayHas25Hours() {
        let (start, end) = berlin.bounds(of: day("2024-10-27"))
        #expect(start == t("2024-10-27T00:00:00+02:00"))
        #expect(end == t("2024-10-28T00:00:00+01:00"))
        #expect(end - start == 25 * hour)
        // Both 02:30s belong to the same day.
        #expect(berlin.day(containing: t("2024-10-27T02:30:00+02:00")) == day("2024-10-27"))
        #expect(berlin.day(containing: t("2024-10-27T02:30:00+01:00")) == day("2024-10-27"))
    }

    @Test func dayStartAt0400() {
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 4 * 60)
        #expect(rules.start(of: day("2024-01-15")) == t("2024-01-15T04:00:00+01:00"))
        #expect(rules.day(containing: t("2024-01-16T03:59:00+01:00")) == day("2024-01-15"))
        #expect(rules.day(containing: t("2024-01-16T04:00:00+01:00")) == day("2024-01-16"))
        // The day before the spring change holds the lost hour: 04:00 CET → 04:00 CEST.
        let (start, end) = rules.bounds(of: day("2024-03-30"))
        #expect(end - start == 23 * hour)
        #expect(rules.bounds(of: day("2024-03-31")).end - rules.bounds(of: day("2024-03-31")).start == 24 * hour)
    }

    @Test func dayStartInsideTheDSTGapAndOverlap() {
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 2 * 60 + 30)
        // 02:30 does not exist on 2024-03-31: the day starts when the clocks jump, 03:00 CEST.
        #expect(rules.start(of: day("2024-03-31")) == t("2024-03-31T03:00:00+02:00"))
        // 02:30 happens twice on 2024-10-27: the day starts at the first.
        #expect(rules.start(of: day("2024-10-27")) == t("2024-10-27T02:30:00+02:00"))
        #expect(rules.day(containing: t("2024-10-27T02:15:00+01:00")) == day("2024-10-27"))
    }

    @Test func lordHoweShiftsByThirtyMinutes() {
        let rules = DayRules(timeZone: zone("Australia/Lord_Howe"))
        let spring = rules.bounds(of: day("2024-10-06"))
        #expect(spring.start == t("2024-10-06T00:00:00+10:30"))
        #expect(spring.end - spring.start == 23 * hour + 30 * minute)
        let autumn = rules.bounds(of: day("2024-04-07"))
        #expect(autumn.end - autumn.start == 24 * hour + 30 * minute)
        #expect(autumn.end == t("2024-04-08T00:00:00+10:30"))
    }

    @Test func weeksStartMondayOrSunday() {
        let monday = DayRules(timeZone: zone("UTC"))
        let sunday = DayRules(timeZone: zone("UTC"), firstWeekday: 1)
        let wednesday = day("2024-01-03")
        #expect(monday.period(.week, containing: wednesday) == (day("2024-01-01"), day("2024-01-07")))
        #expect(sunday.period(.week, containing: wednesday) == (day("2023-12-31"), day("2024-01-06")))
        // A Sunday is the last day of a Monday week and the first of a Sunday week.
        #expect(monday.weekStart(of: day("2024-01-07")) == day("2024-01-01"))
        #expect(sunday.weekStart(of: day("2024-01-07")) == day("2024-01-07"))
        #expect(monday.period(.month, containing: day("2024-02-10")) == (day("2024-02-01"), day("2024-02-29")))
        #expect(monday.period(.year, containing: day("2024-02-10")) == (day("2024-01-01"), day("2024-12-31")))
    }
}
