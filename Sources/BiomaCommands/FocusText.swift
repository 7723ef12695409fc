import BiomaInstall
import BiomaWidgets
import BiomaText
import DBusCore
import TimerControl

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
        return sentence + (projectName.map { " · " + Terminal.singleLine($0) } ?? "")
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

    static func historyTable(_ phases: [[String: DBusValue]], names: [String: String]) -> String {
        guard !phases.isEmpty else { return "No focus phases in that range.\n" }
        var out = ""
        for p in phases {
            let start = p["Start"]?.int64 ?? 0
            let end = p["End"]?.int64 ?? 0
            let project = names[p["Project"]?.string ?? ""].map { "  " + Terminal.singleLine($0) } ?? ""
            let label = (p["Label"]?.string).flatMap { $0.isEmpty ? nil : "  " + Terminal.singleLine($0) } ?? ""
            out += "\(WhenText.describe(start, now: start)) – \(WhenText.describe(end, now: start))  "
            out += Terminal.pad(phaseName(p["Phase"]?.string ?? ""), 11)
            out += " \(Terminal.padLeft(DurationFormat.clock(end - start), 8))"
            out += (p["Completed"]?.bool ?? false) ? "  done" : "      "
            out += label + project + "\n"
        }
        return out
    }

    static func historyJSON(_ phases: [[String: DBusValue]], names: [String: String]) -> String {
        JSON.array(
            phases.map { p in
                let project = p["Project"]?.string ?? ""
                return .object([
                    "kind": .string(p["Kind"]?.string ?? ""), "phase": .string(p["Phase"]?.string ?? ""),
                    "round": .int(p["Round"]?.int64 ?? 0), "label": .string(p["Label"]?.string ?? ""),
                    "project": .string(project), "project_name": .string(names[project] ?? ""),
                    "start": .int(p["Start"]?.int64 ?? 0), "end": .int(p["End"]?.int64 ?? 0),
                    "planned": .int(p["Planned"]?.int64 ?? 0), "completed": .bool(p["Completed"]?.bool ?? false),
                ])
            }
        ).text + "\n"
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
            out += "\(Terminal.pad(p["Id"]?.string ?? "", 4)) \(Terminal.pad(Terminal.singleLine(p["Name"]?.string ?? ""), 20)) "
            out += "\(Terminal.pad(kind, 10)) \(detail)\n"
        }
        return out
    }

    static func presetsJSON(_ presets: [[String: DBusValue]]) -> String {
        JSON.array(
            presets.map { p in
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
                return .object(fields)
            }
        ).text + "\n"
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
