import BiomaText
import Foundation
import Testing
import BiomaContract

/// Durations and instants as people type them on the command line. The instants are local
/// time: these tests set TZ for the process (Europe/Berlin, with its DST changes).
@Suite(.serialized) struct TimeTextTests {
    init() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    /// 2026-11-23 10:15:30 in Berlin (UTC+1).
    let now: Int64 = 1_795_425_330 * 1_000_000

    /// The one clock reader and writer: what the settings file, `--at` and the notices share.
    @Test func clockTimes() {
        #expect(ClockText.parse("9:05")! == (9, 5) && ClockText.parse("23:59")! == (23, 59))
        for bad in ["+7:00", "-1:00", "24:00", "7:60", "7:5", "123:00", " 7:00", "7:00 ", "٧:٠٠", "7", ":00", "7:00:00"] {
            #expect(ClockText.parse(bad) == nil, "\(bad)")
        }
        #expect(ClockText.format(secondOfDay: 9 * 3600 + 5 * 60) == "09:05")
        #expect(ClockText.format(secondOfDay: 23 * 3600 + 59 * 60 + 7) == "23:59:07")
    }

    @Test func durations() {
        let cases: [(String, Int64?)] = [
            ("25m", 25 * 60), ("1h30m", 5400), ("90s", 90), ("2h", 7200), ("1h5s", 3605), ("1:30:00", 5400),
            ("5:00", 5 * 3600), ("7:30", 7 * 3600 + 1800), ("0:25:00", 1500), ("0:00:01", 1), ("10M", 600), (" 8h ", 8 * 3600),
            ("", nil), ("0m", nil), ("0", nil), ("0:00", nil), ("15", nil), ("m", nil), ("1h1h", nil), ("30m1h", nil), ("1x", nil),
            ("1:60", nil), ("1::0", nil), ("1:2:3:4", nil), ("-5m", nil), ("1.5h", nil), ("١m", nil),
        ]
        for (text, seconds) in cases {
            #expect(DurationText.parse(text) == seconds.map { $0 * 1_000_000 }, "\(text)")
        }
    }

    /// One reading of `7:30` (hours and minutes) for every command, and the words of each refusal.
    @Test func lengthsAreReadOneWay() throws {
        let day: Int64 = 24 * 3_600_000_000
        #expect(try DurationText.read("7:30", what: "DURATION", max: day) == (7 * 3600 + 1800) * 1_000_000)
        #expect(try DurationText.read("0", what: "--sat", max: day, allowZero: true) == 0)
        #expect(try DurationText.read("0:00", what: "--sat", max: day, allowZero: true) == 0)
        let refusals: [(String, Bool, String)] = [
            ("25:00", false, "DURATION `25:00` is 25 h 0 min (H:MM), longer than 24:00: for minutes and seconds write 0:25:00 or e.g. 25m."),
            ("25h", false, "DURATION `25h` is longer than 24:00."),
            ("0", false, "DURATION `0` needs a unit: write e.g. 0h or 0m."),
            ("0m", false, "DURATION `0m` is zero: use a length of 1 s or more, e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00."),
            ("7:75", true, "DURATION `7:75` is not a length: H:MM is hours and minutes (7:30 is 7 h 30 min), H:MM:SS adds seconds, minutes and seconds below 60."),
            ("-1h", true, "DURATION `-1h` is negative: use a length of 0 or more, e.g. 8h, 7h30m, 90s, 7:30 or 0."),
            ("5 minutes", false, "DURATION `5 minutes` is not a length: use e.g. 25m, 1h30m, 90s, 7:30 or 1:30:00."),
            ("8", true, "DURATION `8` needs a unit: write e.g. 8h or 8m."),
        ]
        for (text, zero, message) in refusals {
            #expect(throws: DurationError(message: message), "\(text)") {
                try DurationText.read(text, what: "DURATION", max: day, allowZero: zero)
            }
        }
    }

    @Test func instants() throws {
        func at(_ text: String) throws -> Int64 { try WhenText.parse(text, now: now) }
        // 2026-11-23 09:00 +01:00 is 1_795_420_800 s.
        #expect(try at("09:00") == 1_795_420_800 * 1_000_000)
        #expect(try at("15:00") == (1_795_420_800 + 6 * 3600) * 1_000_000)
        #expect(try at("tomorrow 09:00") == (1_795_420_800 + 24 * 3600) * 1_000_000)
        #expect(try at("yesterday 17:30") == (1_795_420_800 - 24 * 3600 + 8 * 3600 + 1800) * 1_000_000)
        #expect(try at("2026-11-25 9:00") == (1_795_420_800 + 48 * 3600) * 1_000_000)
        #expect(try at("2026-11-25T09:00") == (1_795_420_800 + 48 * 3600) * 1_000_000)
        #expect(try at("+2h") == now + 7200 * 1_000_000)
        #expect(try at("-600s") == now - 600 * 1_000_000)
        #expect(try at("now") == now)
        // Summer time: 2026-07-01 09:00 is UTC+2.
        #expect(try at("2026-07-01 09:00") == (1_782_889_200) * 1_000_000)
        #expect(WhenText.describe(try at("15:00"), now: now) == "15:00")
        #expect(WhenText.describe(try at("tomorrow 09:00"), now: now) == "tomorrow 09:00")
        #expect(WhenText.describe(try at("2026-12-24 18:00"), now: now) == "2026-12-24 18:00")
    }

    @Test func badInstantsSayWhy() {
        for text in ["", "25:00", "9", "noon", "2026-02-30 09:00", "2026-11-23", "tomorrow", "+", "+soon", "next week 9:00"] {
            #expect(throws: WhenText.Failure.notATime(text), "\(text)") { try WhenText.parse(text, now: now) }
        }
        // 02:30 on the last Sunday of March does not exist in Berlin.
        #expect(throws: WhenText.Failure.doesNotExist("2026-03-29 02:30")) {
            try WhenText.parse("2026-03-29 02:30", now: now)
        }
    }

    /// A listing's instants described against one `now`: the same words as `describe`, across a
    /// year's end, with the zone asked for the neighbouring days once, not once an instant.
    @Test func aDescriberNamesTheNeighbouringDaysOnce() {
        let zone = CountingZone()
        // 2026-12-31 22:00 in Berlin.
        let now: Int64 = 1_798_750_800 * 1_000_000
        let describer = WhenText.Describer(now: now, zone: zone)
        let asked = zone.instants
        let hour: Int64 = 3600 * 1_000_000
        let expected = [
            (now - 24 * hour, "yesterday 22:00"), (now - 47 * hour, "2026-12-29 23:00"), (now, "22:00"),
            (now + 3 * hour, "tomorrow 01:00"), (now + 26 * hour, "2027-01-02 00:00"),
        ]
        for (instant, text) in expected {
            #expect(describer.describe(instant) == text)
            #expect(WhenText.describe(instant, now: now) == text)
        }
        #expect(zone.instants == asked, "the zone was asked for instants again")
    }
}

/// The C library's zone, counting how often it is asked for an instant (a `mktime`).
private final class CountingZone: LocalZone, @unchecked Sendable {
    private(set) var instants = 0
    func local(_ seconds: Int64) -> LocalTime { ProcessZone().local(seconds) }
    func instant(_ local: LocalTime) -> Int64 {
        instants += 1
        return ProcessZone().instant(local)
    }
}
