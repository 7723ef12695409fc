// The report's target rows: per day the target, the work and the difference, then the
// balance at the end of the period (BiomaCore's `TargetReport`).

import BiomaCore
import BiomaText

extension ReportText {
    /// `Targets` and one line per day with a target or work, then `Balance at the end`. A
    /// line's difference is that of the minutes it shows (work shown as 7:59 against 8:00 is
    /// -0:01), so every line adds up as read.
    static func targetTable(_ t: TargetReport) -> String {
        let minute: Int64 = 60_000_000
        func line(_ label: String, _ target: Int64, _ work: Int64) -> String {
            let (shownTarget, shownWork) = (target / minute * minute, work / minute * minute)
            return "  \(Terminal.pad(label, 10))  \(Terminal.padLeft(DurationClock.hoursMinutes(shownTarget), 7))"
                + "  \(Terminal.padLeft(DurationClock.hoursMinutes(shownWork), 7))"
                + "  \(Terminal.padLeft(DurationClock.signed(shownWork - shownTarget), 10))\n"
        }
        var out = "\nTargets       target     work  difference\n"
        for row in t.rows where row.target > 0 || row.work > 0 { out += line(row.day.description, row.target, row.work) }
        out += line("Total", t.targetTotal, t.workTotal)
        out += "Balance at the end  \(DurationClock.signed(t.balance))\n"
        return out
    }

    /// `targets`: `days` (day, target, work, difference, µs), `target_total`, `work_total`,
    /// `balance`.
    static func targetJSON(_ t: TargetReport) -> JSON {
        .fields([
            (
                "days",
                .array(
                    t.rows.map {
                        .fields([
                            ("day", .string($0.day.description)), ("target", .int($0.target)), ("work", .int($0.work)),
                            ("difference", .int($0.difference)),
                        ])
                    })
            ),
            ("target_total", .int(t.targetTotal)), ("work_total", .int(t.workTotal)), ("balance", .int(t.balance)),
        ])
    }
}
