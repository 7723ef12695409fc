import BiomaCore
import BiomaStore
import DBusKit
import Foundation
import Testing

import TestSupport

@testable import BiomaDaemon

/// `PeriodDays` through busctl, a client nobody here wrote: the days a report covers, by the
/// daemon's rules (a week from Sunday, a day from 04:00), the same as `Report`'s `From` and
/// `To`, and bad arguments refused by name.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct PeriodDaysTests {
    @Test func theDaysOfAReportWithoutTheReport() throws {
        let bus = try PrivateBus()
        let data = try makeTemporaryDirectory("biomatimer-period")
        defer { try? FileManager.default.removeItem(at: data) }
        let rules = DayRules(timeZone: zone("Europe/Berlin"), dayStartMinutes: 240, firstWeekday: 1)
        // Sunday 2026-11-29, 02:00 in Berlin: still Saturday's day (it starts at 04:00).
        let clock = ManualClock(t("2026-11-29T02:00:00+01:00"))
        let tracker = try Tracker(dataDirectory: data, rules: rules, now: clock.now(), bootID: "test-boot")
        let service = try Bus(.address(bus.address))
        defer { service.close() }
        let parts = DaemonParts(tracker: tracker, bus: service, clock: clock, data: data)
        try parts.object.export(on: service)
        try service.requestName(ContractNames.busName)

        func busctl(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(
                "/usr/bin/busctl",
                ["--address=\(bus.address)", "call", ContractNames.busName, ContractNames.objectPath, ContractNames.interface] + arguments)
        }
        let cases: [(period: String, day: String, days: String)] = [
            ("week", "", #"ss "2026-11-22" "2026-11-28""#),
            ("week", "2026-11-29", #"ss "2026-11-29" "2026-12-05""#),
            ("day", "", #"ss "2026-11-28" "2026-11-28""#),
            ("month", "2028-02-10", #"ss "2028-02-01" "2028-02-29""#),
            ("year", "2026-11-26", #"ss "2026-01-01" "2026-12-31""#),
        ]
        for (period, day, days) in cases {
            let answer = try busctl(["PeriodDays", "ss", period, day]).requireSuccess("PeriodDays \(period) \(day)")
            #expect(answer.stdout.trimmingCharacters(in: .newlines) == days, "\(period) \(day)")
            let report = try busctl(["--json=short", "Report", "ss", period, day]).requireSuccess("Report \(period) \(day)")
            let from = try #require(Self.reportDay("From", in: report.stdout))
            let to = try #require(Self.reportDay("To", in: report.stdout))
            #expect(days == #"ss "\#(from)" "\#(to)""#, "Report \(period) \(day) covers \(from)…\(to)")
        }
        for (period, day, wrong) in [("fortnight", "", "fortnight"), ("week", "2026-13-01", "2026-13-01"), ("week", "today", "today")] {
            let refused = try busctl(["PeriodDays", "ss", period, day])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains(wrong), "\(refused.stderr)")
        }
    }

    /// A day of `Report`'s answer as busctl writes it in JSON (`"From":{"type":"s","data":"…"}`).
    static func reportDay(_ key: String, in json: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let data = (object["data"] as? [Any])?.first as? [String: Any],
            let entry = data[key] as? [String: Any]
        else { return nil }
        return entry["data"] as? String
    }
}
