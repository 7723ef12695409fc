// `report --notes` and `report --round`: sections after the report's table, and keys added to
// its JSON. Rendered by the daemon like the rest of the report.

import BiomaCore
import BiomaText

extension ReportText {
    /// `Notes`, per day and project (`NoteDigest`); `name` gives a project id's name.
    public static func notesTable(_ digest: NoteDigest, name: (String) -> String?) -> String {
        var out = "\nNotes\n"
        if digest.entries.isEmpty { return out + "  (none)\n" }
        var day: Day?
        for entry in digest.entries {
            if entry.day != day {
                out += "  \(entry.day)\n"
                day = entry.day
            }
            out += "    \(TextEscaping.singleLine(entry.projectID.flatMap(name) ?? "no project"))\n"
            for note in entry.notes { out += "      - \(TextEscaping.singleLine(note))\n" }
        }
        return out
    }

    /// `Rounded (15m up, per interval)`: each project's exact and rounded time over the
    /// period, then the totals. The stored history is not changed by rounding.
    public static func roundedTable(_ totals: RoundedTotals, projectOrder: [String], name: (String) -> String?) -> String {
        let r = totals.rounding
        var out = "\nRounded (\(r.step / 60 / microsPerSecond)m \(r.mode.rawValue), per \(r.per.rawValue))"
        out += "          exact    rounded\n"
        for id in roundedProjects(totals, projectOrder: projectOrder) {
            let total = totals.total(of: id)
            let label = Terminal.pad(String(TextEscaping.singleLine(id.flatMap(name) ?? "no project").prefix(24)), 24)
            out += "  \(label) \(Terminal.padLeft(DurationFormat.hms(total.exact), 10)) \(Terminal.padLeft(DurationFormat.hms(total.rounded), 10))\n"
        }
        out += "  \(Terminal.pad("total", 24)) \(Terminal.padLeft(DurationFormat.hms(totals.exactTotal), 10)) "
        out += "\(Terminal.padLeft(DurationFormat.hms(totals.roundedTotal), 10))\n"
        return out
    }

    /// The projects with time, in list order, no project last.
    static func roundedProjects(_ totals: RoundedTotals, projectOrder: [String]) -> [String?] {
        let present = Set(totals.lines.map(\.projectID))
        return projectOrder.filter { present.contains($0) } + (present.contains(nil) ? [nil] : [])
    }

    /// `"notes": [{"day", "project", "notes"}]`.
    public static func notesJSON(_ digest: NoteDigest) -> (String, JSON) {
        (
            "notes",
            .array(
                digest.entries.map {
                    .object([
                        "day": .string($0.day.description), "project": $0.projectID.map(JSON.string) ?? .null,
                        "notes": .array($0.notes.map(JSON.string)),
                    ])
                })
        )
    }

    /// `"rounding": {"step", "mode", "per", "exact_total", "rounded_total", "lines": [...]}`.
    public static func roundedJSON(_ totals: RoundedTotals) -> (String, JSON) {
        let r = totals.rounding
        return (
            "rounding",
            .object([
                "step": .int(r.step), "mode": .string(r.mode.rawValue), "per": .string(r.per.rawValue),
                "exact_total": .int(totals.exactTotal), "rounded_total": .int(totals.roundedTotal),
                "lines": .array(
                    totals.lines.map {
                        .object([
                            "day": .string($0.day.description), "project": $0.projectID.map(JSON.string) ?? .null,
                            "exact": .int($0.exact), "rounded": .int($0.rounded),
                        ])
                    }),
            ])
        )
    }
}
