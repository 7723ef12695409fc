import Foundation
import Testing
import TimerControl

/// Durations and instants as people type them on the command line. The instants are local
/// time: these tests set TZ for the process (Europe/Berlin, with its DST changes).
@Suite(.serialized) struct TimeTextTests {
    init() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    /// 2026-11-23 10:15:30 in Berlin (UTC+1).
    let now: Int64 = 1_795_425_330 * 1_000_000

    @Test func durations() {
        let cases: [(String, Int64?)] = [
            ("25m", 25 * 60), ("1h30m", 5400), ("90s", 90), ("2h", 7200), ("1h5s", 3605), ("1:30:00", 5400),
            ("5:00", 300), ("0:00:01", 1), ("10M", 600),
            ("", nil), ("0m", nil), ("15", nil), ("m", nil), ("1h1h", nil), ("1x", nil), ("1:60", nil), ("1::0", nil),
            ("-5m", nil), ("1.5h", nil), ("١m", nil),
        ]
        for (text, seconds) in cases {
            #expect(DurationText.parse(text) == seconds.map { $0 * 1_000_000 }, "\(text)")
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
}
