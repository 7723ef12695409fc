// The report's target rows: per day the target, the work and the difference, then the
// balance at the end of the period (BiomaCore's `TargetReport`).

import BiomaCore
import BiomaText

extension ReportText {
    /// `Targets` and one line per day with a target or work, then `Balance at the end`.
    static func targetTable(_ t: TargetReport) -> String {
        var out = "\nTargets       target     work  difference\n"
        for row in t.rows where row.target > 0 || row.work > 0 {
            out += "  \(row.day)  \(Terminal.padLeft(DurationClock.hoursMinutes(row.target), 7))"
            out += "  \(Terminal.padLeft(DurationClock.hoursMinutes(row.work), 7))"
            out += "  \(Terminal.padLeft(DurationClock.signed(row.difference), 10))\n"
        }
        out += "  Total       \(Terminal.padLeft(DurationClock.hoursMinutes(t.targetTotal), 7))"
        out += "  \(Terminal.padLeft(DurationClock.hoursMinutes(t.workTotal), 7))"
        out += "  \(Terminal.padLeft(DurationClock.signed(t.workTotal - t.targetTotal), 10))\n"
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
