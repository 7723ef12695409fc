import Foundation
import Testing
import BiomaContract

/// Ranges and clocks on a given day, as `biomatimer add` and `edit --date` take them.
extension TimeTextTests {
    @Test func clocksOnADay() throws {
        // 2026-11-20 09:00 in Berlin is 1_795_420_800 − 3 days.
        let nine: Int64 = (1_795_420_800 - 3 * 86_400) * 1_000_000
        #expect(try WhenText.parse("09:00", now: now, day: "2026-11-20") == nine)
        #expect(try WhenText.parse(" 9:00 ", now: now, day: "2026-11-20") == nine)
        // Anything but a bare clock ignores the day.
        #expect(try WhenText.parse("yesterday 17:30", now: now, day: "2026-11-20") == (try WhenText.parse("yesterday 17:30", now: now)))
        #expect(try WhenText.parse("09:00", now: now, day: nil) == (try WhenText.parse("09:00", now: now)))
        #expect(throws: WhenText.Failure.doesNotExist("2026-03-29 02:30")) {
            try WhenText.parse("02:30", now: now, day: "2026-03-29")
        }
    }

    @Test func ranges() throws {
        let hour: Int64 = 3_600_000_000
        let nine: Int64 = (1_795_420_800 - 3 * 86_400) * 1_000_000
        func range(_ text: String, day: String? = "2026-11-20") throws -> [Int64] {
            let r = try WhenText.parseRange(text, now: now, day: day)
            return [r.start, r.end]
        }
        #expect(try range("09:00-12:30") == [nine, nine + 3 * hour + hour / 2])
        #expect(try range("2026-11-20T09:00-10:00", day: nil) == [nine, nine + hour])
        #expect(try range("2026-11-20 09:00-2026-11-21 09:00", day: nil) == [nine, nine + 24 * hour])
        #expect(try range("22:00-01:00") == [nine + 13 * hour, nine + 16 * hour])
        #expect(try range("yesterday 17:30-18:00", day: nil)[1] == (try WhenText.parse("yesterday 18:00", now: now)))
        // The autumn change: 2026-10-25 01:30–03:30 in Berlin lasts three hours.
        let autumn = try range("01:30-03:30", day: "2026-10-25")
        #expect(autumn[1] - autumn[0] == 3 * hour)
        for text in ["", "9-5", "09:00", "09:00-", "-09:00", "09:00-noon", "09:00–10:00"] {
            #expect(throws: WhenText.Failure.notARange(text), "\(text)") { try range(text) }
        }
        #expect(throws: WhenText.Failure.doesNotExist("2026-03-29 02:30")) { try range("02:30-03:30", day: "2026-03-29") }
    }
}
