// Text for terminals and scripts: `biomatimer status` and `biomatimer report`, rendered by
// the daemon (whose StatusText and ReportText methods let the C front and the tool print
// them without rendering anything themselves).

import BiomaText
import BiomaWidgets
import DBusCore
import TimerControl

/// `biomatimer report`.
public enum ReportText {
    public static func json(_ r: [String: DBusValue]) -> String {
        let projects = (r["Projects"]?.array ?? []).compactMap(\.vardict).map { p -> JSON in
            .object([
                "id": .string(p["Id"]?.string ?? ""), "name": .string(p["Name"]?.string ?? ""),
                "color": .string(p["Color"]?.string ?? ""), "total": .int(p["Total"]?.int64 ?? 0),
                "percent": .double(p["Percent"]?.double ?? 0), "completed": .int(p["Completed"]?.int64 ?? 0),
            ])
        }
        let focus = Self.focus(r)
        let days = (r["Days"]?.array ?? []).compactMap(\.vardict).map { d -> JSON in
            let day = d["Day"]?.string ?? ""
            return .object([
                "day": .string(day), "work_total": .int(d["WorkTotal"]?.int64 ?? 0),
                "focus_completed": .int(Int64(focus[day]?.completed ?? 0)), "focus_time": .int(focus[day]?.time ?? 0),
            ])
        }
        let object = JSON.object([
            "from": .string(r["From"]?.string ?? ""), "to": .string(r["To"]?.string ?? ""),
            "work_total": .int(r["WorkTotal"]?.int64 ?? 0), "no_project_total": .int(r["NoProjectTotal"]?.int64 ?? 0),
            "focus_completed": .int(Int64(focus.values.reduce(0) { $0 + $1.completed })),
            "focus_time": .int(focus.values.reduce(0) { $0 + $1.time }),
            "projects": .array(projects), "days": .array(days),
        ])
        return object.text + "\n"
    }

    /// The report's `Focus` entries by day: completed work phases and rounds, focus time.
    static func focus(_ r: [String: DBusValue]) -> [String: (completed: Int, time: Int64)] {
        var byDay: [String: (completed: Int, time: Int64)] = [:]
        for entry in (r["Focus"]?.array ?? []).compactMap(\.vardict) {
            byDay[entry["Day"]?.string ?? ""] = (entry["Completed"]?.int ?? 0, entry["FocusTime"]?.int64 ?? 0)
        }
        return byDay
    }

    /// `  focus 0:50:00, 2 completed`, or "" without focus time.
    static func focusNote(_ entry: (completed: Int, time: Int64)?) -> String {
        guard let entry, entry.completed > 0 || entry.time > 0 else { return "" }
        return "  focus \(DurationFormat.hms(entry.time)), \(entry.completed) completed"
    }

    public static func table(_ r: [String: DBusValue], style: Terminal) -> String {
        let from = r["From"]?.string ?? ""
        let to = r["To"]?.string ?? ""
        let work = r["WorkTotal"]?.int64 ?? 0
        var out = from == to ? "\(from)\n" : "\(from) – \(to)\n"
        out += "Work          \(Terminal.padLeft(DurationFormat.hms(work), 10))\n"
        let projects = (r["Projects"]?.array ?? []).compactMap(\.vardict)
        let barWidth = 20
        for p in projects {
            let total = p["Total"]?.int64 ?? 0
            let percent = p["Percent"]?.double ?? 0
            let filled = Int((percent / 100 * Double(barWidth)).rounded())
            let bar = String(repeating: "█", count: max(0, min(barWidth, filled)))
                + String(repeating: "░", count: max(0, barWidth - filled))
            let color = p["Color"]?.string ?? ""
            let name = Terminal.pad(String(Terminal.singleLine(p["Name"]?.string ?? "").prefix(24)), 24)
            out += "  \(style.swatch(color)) \(name) \(Terminal.padLeft(DurationFormat.hms(total), 10)) "
            out += "\(Terminal.padLeft(oneDecimal(percent) + "%", 6))  \(style.paint(bar, color))\n"
        }
        let none = r["NoProjectTotal"]?.int64 ?? 0
        if none > 0 || projects.isEmpty {
            out += "    \(Terminal.pad("no project", 24)) \(Terminal.padLeft(DurationFormat.hms(none), 10))\n"
        }
        let focus = Self.focus(r)
        let focusTotal = focus.values.reduce((completed: 0, time: Int64(0))) { ($0.completed + $1.completed, $0.time + $1.time) }
        if focusTotal.completed > 0 || focusTotal.time > 0 {
            out += "Focus         \(Terminal.padLeft(DurationFormat.hms(focusTotal.time), 10))  \(focusTotal.completed) completed\n"
        }
        let days = (r["Days"]?.array ?? []).compactMap(\.vardict)
        if days.count > 1 {
            out += "\nDays\n"
            for d in days {
                let day = d["Day"]?.string ?? ""
                out += "  \(day)  \(Terminal.padLeft(DurationFormat.hms(d["WorkTotal"]?.int64 ?? 0), 10))\(focusNote(focus[day]))\n"
            }
        }
        return out
    }
}

/// What `biomatimer status` prints.
public enum StatusText {
    /// `format` nil: the plain lines, `0:05:30 (2:45:15)` and, with a project,
    /// `Client A 0:02:15 (1:30:45)`, and with a focus timer
    /// `Focus: Work 2/4, 12:34 left · Deep work`; else the bar format or template it names (`json` for
    /// `--json`). Every line ends with a newline.
    public static func render(_ state: WidgetState, now: Int64, format: String?, ascii: Bool) throws(WidgetFormatError)
        -> String
    {
        if let format {
            return try WidgetFormats.renderer(for: format, options: RenderOptions(ascii: ascii)).render(state, now: now) + "\n"
        }
        let live = state.advanced(to: now)
        var out = "\(DurationFormat.hms(live.sessionTime)) (\(DurationFormat.hms(live.dailyTotal)))\n"
        if live.hasProject {
            out += "\(Terminal.singleLine(live.activeProjectName)) \(DurationFormat.hms(live.projectSessionTime)) "
            out += "(\(DurationFormat.hms(live.projectDailyTotal)))\n"
        }
        let focus = FocusDisplay(state, now: now, options: RenderOptions(ascii: ascii, maxNameWidth: nil))
        if focus.active { out += focus.sentence + "\n" }
        return out
    }
}
