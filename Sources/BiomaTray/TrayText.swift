import BiomaText
import BiomaWidgets
import Glibc
import BiomaContract

/// The texts the tray shows: menu labels and the tooltip. Pure.
public enum TrayText {
    /// Names longer than this many characters are cut, ending with `…`.
    public static let nameLimit = 40

    /// A name as a menu label shows it: on one line, cut at `nameLimit` with `…`, isolated
    /// (FSI … PDI) when it holds right-to-left letters so the times after it stay in place.
    public static func name(_ text: String) -> String {
        var line = TextEscaping.singleLine(text)
        if line.count > nameLimit { line = String(line.prefix(nameLimit - 1)) + "…" }
        if line.unicodeScalars.contains(where: isRightToLeft) { line = "\u{2068}" + line + "\u{2069}" }
        return line
    }

    /// A label for dbusmenu: a single `_` marks an access key there, so every `_` is doubled.
    public static func label(_ text: String) -> String {
        text.replacingUnderscores()
    }

    static func isRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (0x0590...0x08FF).contains(v) || (0xFB1D...0xFDFF).contains(v) || (0xFE70...0xFEFF).contains(v)
            || (0x10800...0x10FFF).contains(v) || (0x1E800...0x1EFFF).contains(v)
    }

    /// `0:05:30 (2:45:15)`: the session and today's total at `now`.
    public static func workTimes(_ state: WidgetState, now: Int64) -> String {
        "\(DurationFormat.hms(state.liveSessionTime(at: now))) (\(DurationFormat.hms(state.liveDailyTotal(at: now))))"
    }

    /// The focus timer in words: `Work 2/4 · 12:00 left`, `Paused · …`, `Break ended: waiting`.
    public static func focus(_ focus: FocusStatus, now: Int64) -> String? {
        guard focus.isActive else { return nil }
        let phase = phaseName(focus.phase)
        let round = focus.round > 0 ? (focus.rounds > 0 ? " \(focus.round)/\(focus.rounds)" : " \(focus.round)") : ""
        let left = DurationFormat.clock(focus.remaining(at: now))
        let label = focus.label.isEmpty ? "" : " (\(name(focus.label)))"
        switch focus.state {
        case .running: return "\(phase)\(round)\(label) · \(left) left"
        case .paused: return "Paused: \(phase)\(round)\(label) · \(left) left"
        case .waiting: return "Waiting to start \(phase.lowercased())\(label)"
        case .done: return "Done\(label)"
        default: return nil
        }
    }

    static func phaseName(_ phase: String) -> String {
        switch phase {
        case "work": return "Work"
        case "short-break": return "Short break"
        case "long-break": return "Long break"
        case "countdown": return "Countdown"
        case "active": return "Active"
        case "rest": return "Rest"
        default: return phase.isEmpty ? "Focus" : name(phase)
        }
    }

    /// `HH:MM` in local time for a task's due instant (µs since the epoch).
    public static func clock(_ micros: Int64) -> String {
        var seconds = time_t(micros / 1_000_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "" }
        let h = Int(parts.tm_hour)
        let m = Int(parts.tm_min)
        return "\(h < 10 ? "0" : "")\(h):\(m < 10 ? "0" : "")\(m)"
    }

    /// The tooltip: its title (markup: escaped) and its description (also read as markup).
    public static func tooltip(_ state: WidgetState, dueTasks: [TaskListing], now: Int64) -> (title: String, description: String) {
        guard state.online else { return ("biomatimer", "The daemon is offline; a click starts it.") }
        var title = workTimes(state, now: now)
        if state.hasProject { title += " · " + name(state.timer.activeProjectName) }
        if !state.timer.running && !state.hasProject { title += " · stopped" }
        var lines: [String] = []
        if let focus = focus(state.focus, now: now) { lines.append("Focus: " + focus) }
        if state.tasks.dueTasks > 0 {
            let names = dueTasks.prefix(3).map { name($0.title) }
            lines.append("Due: " + (names.isEmpty ? "\(state.tasks.dueTasks) task(s)" : names.joined(separator: ", ")))
        }
        for problem in state.timer.configProblems { lines.append("Warning: " + TextEscaping.singleLine(problem)) }
        return (TextEscaping.pango(title), TextEscaping.pango(lines.joined(separator: "\n")))
    }
}

extension String {
    func replacingUnderscores() -> String {
        var out = ""
        for c in self {
            if c == "_" { out += "__" } else { out.append(c) }
        }
        return out
    }
}
