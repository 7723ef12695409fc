import BiomaDaemon
import Foundation
import Testing
import BiomaContract

import TestSupport

/// A caller's zone as a value (`CallerZone`) reads and makes local times as the C library does
/// in that zone — checked against GNU `date` run with that `TZ` — across daylight-saving
/// changes, a half-hour one (Lord Howe) and a zone a day ahead of UTC (Kiritimati).
@Suite(.timeLimit(.minutes(1)))
struct CallerZoneTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Pacific/Kiritimati", "UTC"]

    /// `date` in `zone`: its output, trimmed.
    func date(_ zone: String, _ arguments: [String]) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = zone
        environment["LC_ALL"] = "C"
        return try runProcess("/bin/date", arguments, environment: environment).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: zones) func localTimesAreTheCLibrarys(zone name: String) throws {
        let zone = try #require(CallerZone(name))
        // Around 2026's changes in both hemispheres, and at ordinary instants.
        let instants: [Int64] = [
            1_774_746_000, 1_774_746_000 - 1, 1_774_749_600, 1_792_890_000, 1_792_893_600, 1_775_323_800, 1_775_325_600,
            1_791_388_800, 1_791_390_600, 1_764_547_200, 1_700_000_000, 1_800_000_000,
        ]
        for instant in instants {
            let local = zone.local(instant)
            let text = String(format: "%04d-%02d-%02d %02d:%02d", local.year, local.month, local.day, local.hour, local.minute)
            #expect(text == (try date(name, ["-d", "@\(instant)", "+%Y-%m-%d %H:%M"])), "\(name) @\(instant)")
            // And back, as the C library reads that local time (the hour shown twice as its
            // second time, in standard time).
            let back = zone.instant(local)
            #expect(back == Int64(try date(name, ["-d", text, "+%s"])), "\(name) \(text)")
        }
        // A day past the month's end is carried into the next month, as mktime carries it.
        let carried = zone.local(zone.instant(LocalTime(year: 2026, month: 1, day: 32, hour: 12)))
        #expect(carried == LocalTime(year: 2026, month: 2, day: 1, hour: 12))
    }

    /// A clock the zone skips that day is refused in that zone, and only there.
    @Test func aSkippedClockIsRefusedInItsZoneAlone() throws {
        let berlin = try #require(CallerZone("Europe/Berlin"))
        let tokyo = try #require(CallerZone(":Asia/Tokyo"))
        let now: Int64 = 1_775_000_000 * 1_000_000
        #expect(throws: WhenText.Failure.doesNotExist("2026-03-29 02:30")) {
            try WhenText.parse("02:30", now: now, day: "2026-03-29", zone: berlin)
        }
        let inTokyo = try WhenText.parse("02:30", now: now, day: "2026-03-29", zone: tokyo)
        #expect(inTokyo == Int64(try date("Asia/Tokyo", ["-d", "2026-03-29 02:30", "+%s"]))! * 1_000_000)
        #expect(CallerZone("CET-1CEST,M3.5.0,M10.5.0/3") == nil)
        #expect(CallerZone("/usr/share/zoneinfo/Pacific/Kiritimati") != nil)
    }
}
