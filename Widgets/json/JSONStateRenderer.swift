// `--format json`: the whole state as one JSON object per line, for scripts and any bar
// without its own format. Times are live at the instant rendered.

import BiomaText
import BiomaContract

/// Keys: online, state, running, updated_at, day, session_time, daily_total,
/// active_project, active_project_name, active_project_color, project_session_time,
/// project_daily_total (the D-Bus properties, µs, unshortened), then the displayed
/// session, daily, project_session, project_daily (`H:MM:SS`) and percentage; then
/// open_tasks and due_tasks; then, only with a target today or a balance, daily_target,
/// target_progress, balance (µs) and target, target_percent, balance_text (as displayed);
/// then, only while a focus timer exists, `focus` (see
/// `focusObject`); without one the object has no `focus` key, so scripts that know nothing of
/// focus timers read it unchanged. Last,
/// only while the daemon's settings file has lines it could not use, `config_problems`: each
/// `FILE:LINE: what is wrong`.
public struct JSONStateRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "json"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    public func render(_ state: WidgetState, now: Int64) -> String { object(state, now: now).text }

    /// The line as a value, to carry inside another object (a hook's payload).
    public func object(_ state: WidgetState, now: Int64) -> JSON {
        let live = state.advanced(to: now)
        let display = WidgetDisplay(state, now: now, options: options)
        var fields: [(String, JSON)] = [
            ("online", .bool(state.online)),
            ("state", .string(display.phase.rawValue)),
            ("running", .bool(state.online && state.running)),
            ("updated_at", .int(live.updatedAt)),
            ("day", .string(state.day)),
            ("session_time", .int(live.sessionTime)),
            ("daily_total", .int(live.dailyTotal)),
            ("active_project", .string(state.activeProject)),
            ("active_project_name", .string(state.activeProjectName)),
            ("active_project_color", .string(state.activeProjectColor)),
            ("project_session_time", .int(live.projectSessionTime)),
            ("project_daily_total", .int(live.projectDailyTotal)),
            ("session", .string(display.session)),
            ("daily", .string(display.daily)),
            ("project_session", .string(display.projectSession)),
            ("project_daily", .string(display.projectDaily)),
            ("percentage", .integer(display.percentage)),
            ("open_tasks", .integer(display.openTasks)),
            ("due_tasks", .integer(display.dueTasks)),
        ]
        if state.online && (state.dailyTarget > 0 || state.balance != 0) {
            fields += [
                ("daily_target", .int(state.dailyTarget)), ("target_progress", .double(live.targetProgress)),
                ("balance", .int(live.balance)), ("target", .string(display.target)),
                ("target_percent", display.targetPercent.map { .integer($0) } ?? .null),
                ("balance_text", .string(display.balance)),
            ]
        }
        if display.focus.active { fields.append(("focus", Self.focusObject(state.focus, display.focus))) }
        if state.online && !state.configProblems.isEmpty {
            fields.append(("config_problems", .array(state.configProblems.map(JSON.string))))
        }
        return JSON.fields(fields)
    }

    /// The `focus` object: the properties of org.biomatimer.Focus1 (µs, unshortened; the
    /// time left live at the instant rendered), then the displayed `remaining_text`,
    /// `phase_name`, `round_text` and `progress`.
    static func focusObject(_ focus: FocusStatus, _ display: FocusDisplay) -> JSON {
        .fields([
            ("state", .string(display.state.rawValue)),
            ("kind", .string(focus.kind)),
            ("phase", .string(focus.phase)),
            ("label", .string(focus.label)),
            ("round", .integer(focus.round)),
            ("rounds", .integer(focus.rounds)),
            ("phase_duration", .int(focus.phaseDuration)),
            ("remaining", .int(display.remainingMicros)),
            ("phase_ends_at", .int(focus.phaseEndsAt)),
            ("updated_at", .int(focus.updatedAt)),
            ("project", .string(focus.project)),
            ("completed_today", .integer(focus.completedToday)),
            ("remaining_text", .string(display.remaining)),
            ("phase_name", .string(display.phaseName)),
            ("round_text", .string(display.round)),
            ("progress", .integer(display.progress)),
        ])
    }
}