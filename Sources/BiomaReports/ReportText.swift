// Text for terminals and scripts: what `biomatimer report` prints, rendered by the daemon
// from BiomaCore's `Report` (its ReportText method); `status` is in BiomaWidgets (StatusText).

import BiomaCore
import BiomaText

/// `biomatimer report`, from BiomaCore's `Report` (the daemon renders it; no keys to look up).
public enum ReportText {
    /// The report as JSON; `targets` adds the per-day targets and the balance, `adding` more
    /// keys (rounded totals, notes).
    public static func json(_ r: Report, targets: TargetReport? = nil, adding extras: [(String, JSON)] = []) -> String {
        let projects = r.projects.map { p -> JSON in
            .object([
                "id": .string(p.id), "name": .string(p.name), "color": .string(p.color), "total": .int(p.total),
                "percent": .double(p.percent), "completed": .integer(p.completed),
            ])
        }
        let days = r.days.map { d -> JSON in
            .object([
                "day": .string(d.day.description), "work_total": .int(d.workTotal),
                "focus_completed": .integer(d.focusCompleted), "focus_time": .int(d.focusTime),
            ])
        }
        let focus = focusTotal(r)
        var fields: [String: JSON] = [
            "from": .string(r.from.description), "to": .string(r.to.description),
            "work_total": .int(r.workTotal), "no_project_total": .int(r.noProjectTotal),
            "focus_completed": .integer(focus.completed), "focus_time": .int(focus.time),
            "projects": .array(projects), "days": .array(days),
        ]
        if let targets { fields["targets"] = targetJSON(targets) }
        for (key, value) in extras { fields[key] = value }
        let object = JSON.object(fields)
        return object.text + "\n"
    }

    /// Completed work phases and rounds, and focus time, over the report's days.
    static func focusTotal(_ r: Report) -> (completed: Int, time: Int64) {
        r.days.reduce((completed: 0, time: Int64(0))) { ($0.completed + $1.focusCompleted, $0.time + $1.focusTime) }
    }

    /// `  focus 0:50:00, 2 completed`, or "" without focus time.
    static func focusNote(_ day: DayTotal) -> String {
        guard day.focusCompleted > 0 || day.focusTime > 0 else { return "" }
        return "  focus \(DurationFormat.hms(day.focusTime)), \(day.focusCompleted) completed"
    }

    public static func table(_ r: Report, style: Terminal, targets: TargetReport? = nil) -> String {
        let (from, to) = (r.from.description, r.to.description)
        var out = from == to ? "\(from)\n" : "\(from) – \(to)\n"
        out += "Work          \(Terminal.padLeft(DurationFormat.hms(r.workTotal), 10))\n"
        let barWidth = 20
        for p in r.projects {
            let filled = Int((p.percent / 100 * Double(barWidth)).rounded())
            let bar = String(repeating: "█", count: max(0, min(barWidth, filled)))
                + String(repeating: "░", count: max(0, barWidth - filled))
            let name = Terminal.pad(String(TextEscaping.singleLine(p.name).prefix(24)), 24)
            out += "  \(style.swatch(p.color)) \(name) \(Terminal.padLeft(DurationFormat.hms(p.total), 10)) "
            out += "\(Terminal.padLeft(oneDecimal(p.percent) + "%", 6))  \(style.paint(bar, p.color))\n"
        }
        if r.noProjectTotal > 0 || r.projects.isEmpty {
            out += "    \(Terminal.pad("no project", 24)) \(Terminal.padLeft(DurationFormat.hms(r.noProjectTotal), 10))\n"
        }
        let focus = focusTotal(r)
        if focus.completed > 0 || focus.time > 0 {
            out += "Focus         \(Terminal.padLeft(DurationFormat.hms(focus.time), 10))  \(focus.completed) completed\n"
        }
        if r.days.count > 1 {
            out += "\nDays\n"
            for d in r.days {
                out += "  \(d.day)  \(Terminal.padLeft(DurationFormat.hms(d.workTotal), 10))\(focusNote(d))\n"
            }
        }
        if let targets { out += targetTable(targets) }
        return out
    }
}
