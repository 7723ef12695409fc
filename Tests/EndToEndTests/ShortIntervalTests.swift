import Foundation
import Testing

import TestSupport

/// Switching quickly, as a scroll over the bar does: the real daemon (its `short_interval`
/// from the settings file, 5 s by default) records no interval for a project left within
/// it, and `report --round` bills nothing for what is not there.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct ShortIntervalEndToEndTests {
    @Test func threeQuickNextsLeaveOneIntervalAndRoundingBillsNoEmptyOne() throws {
        let d = try TargetEndToEndTests.Daemon()
        for name in ["Alpha", "Beta", "Gamma", "Delta"] { try d.cli(["project", "add", name]).requireSuccess("project add") }
        _ = try d.f.method("AddInterval", [.int64(TargetEndToEndTests.at("09:00")), .int64(TargetEndToEndTests.at("13:46")), .string("p1"), .vardict([:])])
        try d.cli(["project", "start", "Alpha"]).requireSuccess("project start")
        for _ in 0..<3 { try d.cli(["project", "next"]).requireSuccess("project next") }
        try d.cli(["stop"]).requireSuccess("stop")
        let log = try d.cli(["log", "--json", "--date", "2026-11-20"]).requireSuccess("log").stdout
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]])
        // The 4:46 added by hand, and one interval for the switches: Delta's, the one that stayed.
        #expect(rows.count == 2, "\(log)")
        #expect(rows.last?["project_name"] as? String == "Delta", "\(log)")
        let report = try d.cli(["report", "--day", "--round", "15m", "--json"]).requireSuccess("report").stdout
        // 4:46 rounded up is 5:00; the switches' interval (under a second) bills nothing.
        #expect(report.contains(#""rounded_total":18000000000"#), "\(report)")
    }

    @Test func aShortIntervalOfZeroRecordsEverySwitch() throws {
        let d = try TargetEndToEndTests.Daemon(config: "short_interval = 0\n")
        for name in ["Alpha", "Beta"] { try d.cli(["project", "add", name]).requireSuccess("project add") }
        try d.cli(["project", "start", "Alpha"]).requireSuccess("project start")
        try d.cli(["project", "next"]).requireSuccess("project next")
        try d.cli(["stop"]).requireSuccess("stop")
        let log = try d.cli(["log", "--json", "--date", "2026-11-20"]).requireSuccess("log").stdout
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(log.utf8)) as? [[String: Any]])
        #expect(rows.count == 2, "\(log)")
    }
}
