import BiomaSystem
import BiomaWidgets
import BiomaText
import DBusCore
import BiomaContract

/// What `biomatimer focus status|history|preset list` print.
enum FocusText {
    static func phaseName(_ phase: String) -> String { FocusDisplay.phaseNames[phase] ?? phase }

    /// `Focus: Work 2/4, 12:34 left · Deep work · Client A` (the bars' tooltip sentence and the
    /// project's name), or `No focus timer`.
    static func line(_ focus: FocusStatus, now: Int64, projectName: String?) -> String {
        guard focus.isActive else { return "No focus timer" }
        var state = WidgetState(timer: WorkStatus())
        state.focus = focus
        let sentence = FocusDisplay(state, now: now, options: RenderOptions()).sentence
        return sentence + (projectName.map { " · " + TextEscaping.singleLine($0) } ?? "")
    }

    static func json(_ focus: FocusStatus, now: Int64) -> JSON {
        .object([
            "state": .string(focus.state.rawValue), "kind": .string(focus.kind), "phase": .string(focus.phase),
            "label": .string(focus.label), "round": .int(Int64(focus.round)), "rounds": .int(Int64(focus.rounds)),
            "phase_duration": .int(focus.phaseDuration), "remaining": .int(focus.remaining(at: now)),
            "phase_ends_at": focus.phaseEndsAt == 0 ? .null : .int(focus.phaseEndsAt), "project": .string(focus.project),
            "completed_today": .int(Int64(focus.completedToday)),
        ])
    }

    /// One line per phase: its start and end (an end on the next day says `tomorrow`); over
    /// more than one day (`dated`) each start says its day too.
    static func historyTable(_ phases: [PhaseListing], names: [String: String], dated: Bool = false) -> String {
        guard !phases.isEmpty else { return "No focus phases in that range.\n" }
        let zone = CommandContext.current.zone
        var out = ""
        for p in phases {
            let project = names[p.project].map { "  " + TextEscaping.singleLine($0) } ?? ""
            let label = p.label.isEmpty ? "" : "  " + TextEscaping.singleLine(p.label)
            if dated { out += day(p.start, zone) + " " }
            out += "\(WhenText.describe(p.start, now: p.start, zone: zone)) – \(WhenText.describe(p.end, now: p.start, zone: zone))  "
            out += Terminal.pad(phaseName(p.phase), 11)
            out += " \(Terminal.padLeft(DurationFormat.clock(p.end - p.start), 8))"
            out += p.completed ? "  done" : "      "
            out += label + project + "\n"
        }
        return out
    }

    /// `2026-11-24`: the local day of an instant.
    static func day(_ instant: Int64, _ zone: any LocalZone) -> String {
        let local = zone.local(instant / 1_000_000)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(local.year)-\(two(local.month))-\(two(local.day))"
    }

    static func historyJSON(_ phases: [PhaseListing], names: [String: String]) -> String {
        JSON.objects(phases) { p in
            [
                "kind": .string(p.kind), "phase": .string(p.phase), "round": .int(Int64(p.round)),
                "label": .string(p.label), "project": .string(p.project), "project_name": .string(names[p.project] ?? ""),
                "start": .int(p.start), "end": .int(p.end), "planned": .int(p.planned), "completed": .bool(p.completed),
            ]
        }.text + "\n"
    }

    /// One line per preset: id, name, kind and its lengths.
    static func presetsTable(_ presets: [[String: DBusValue]]) -> String {
        guard !presets.isEmpty else { return "No presets; add one with `biomatimer focus preset add`.\n" }
        var out = ""
        for p in presets {
            let kind = p["Kind"]?.string ?? ""
            func clock(_ key: String) -> String { DurationFormat.clock(p[key]?.int64 ?? 0) }
            let rounds = p["Rounds"]?.int64 ?? p["Cycles"]?.int64 ?? 0
            let detail: String
            switch kind {
            case "pomodoro":
                detail = "\(clock("Work")) work, \(clock("ShortBreak"))/\(clock("LongBreak")) breaks, long every "
                    + "\(p["LongBreakEvery"]?.int64 ?? 0)" + (rounds > 0 ? ", \(rounds) cycles" : "")
            case "countdown": detail = clock("Duration")
            default: detail = "\(clock("Active")) active, \(clock("Rest")) rest" + (rounds > 0 ? ", \(rounds) rounds" : ", endless")
            }
            out += "\(Terminal.pad(p["Id"]?.string ?? "", 4)) \(Terminal.pad(TextEscaping.singleLine(p["Name"]?.string ?? ""), 20)) "
            out += "\(Terminal.pad(kind, 10)) \(detail)\n"
        }
        return out
    }

    static func presetsJSON(_ presets: [[String: DBusValue]]) -> String {
        JSON.objects(presets) { p in
            var fields: [String: JSON] = [:]
            for (key, value) in p {
                let name = snakeCase(key)
                if let text = value.string {
                    fields[name] = .string(text)
                } else if let flag = value.bool {
                    fields[name] = .bool(flag)
                } else if let number = value.int64 {
                    fields[name] = .int(number)
                }
            }
            return fields
        }.text + "\n"
    }

    /// `ShortBreak` → `short_break`.
    static func snakeCase(_ key: String) -> String {
        var out = ""
        for (index, c) in key.enumerated() {
            if c.isUppercase && index > 0 { out += "_" }
            out += c.lowercased()
        }
        return out
    }
}
