import BiomaCore
import Testing
import TestSupport

@testable import BiomaReports

/// The report's targets table: each line's difference is that of the minutes it shows.
@Suite struct TargetTableTests {
    @Test func aLineAddsUpAsRead() {
        let monday = Day("2026-11-23")!
        let start = utc.start(of: monday) + 9 * hour
        // 7:59:40 of work against 8:00: shown 7:59, so -0:01 (it read +0:00 beside 7:59 before).
        let report = Report(
            from: monday, to: monday, boundaries: utc.boundaries(from: monday, to: monday),
            intervals: [Interval(start: start, end: start + 8 * hour - 20 * microsPerSecond, projectID: nil)], projects: [])
        let table = ReportText.targetTable(TargetReport(report: report, targets: WorkTargets(everyDay: 8 * hour), since: monday, carriedIn: 0))
        #expect(table.contains("  2026-11-23     8:00     7:59       -0:01\n"), "\(table)")
    }
}
