// `--format json`: the whole state as one JSON object per line, for scripts and any bar
// without its own format. Times are live at the instant rendered.

import TimerControl

/// Keys: online, state, running, updated_at, day, session_time, daily_total,
/// active_project, active_project_name, active_project_color, project_session_time,
/// project_daily_total (the D-Bus properties, µs, unshortened), then the displayed
/// session, daily, project_session, project_daily (`H:MM:SS`) and percentage; then
/// open_tasks and due_tasks; then, only while a focus timer exists, `focus` (see
/// `focusObject`). Without one the object is exactly as before focus timers existed.
public struct JSONStateRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "json"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    public func render(_ state: WidgetState, now: Int64) -> String {
        let live = state.advanced(to: now)
        let display = WidgetDisplay(state, now: now, options: options)
        let fields: [(String, String)] = [
            ("online", String(state.online)),
            ("state", TextEscaping.json(display.phase.rawValue)),
            ("running", String(state.online && state.running)),
            ("updated_at", String(live.updatedAt)),
            ("day", TextEscaping.json(state.day)),
            ("session_time", String(live.sessionTime)),
            ("daily_total", String(live.dailyTotal)),
            ("active_project", TextEscaping.json(state.activeProject)),
            ("active_project_name", TextEscaping.json(state.activeProjectName)),
            ("active_project_color", TextEscaping.json(state.activeProjectColor)),
            ("project_session_time", String(live.projectSessionTime)),
            ("project_daily_total", String(live.projectDailyTotal)),
            ("session", TextEscaping.json(display.session)),
            ("daily", TextEscaping.json(display.daily)),
            ("project_session", TextEscaping.json(display.projectSession)),
            ("project_daily", TextEscaping.json(display.projectDaily)),
            ("percentage", String(display.percentage)),
            ("open_tasks", String(display.openTasks)),
            ("due_tasks", String(display.dueTasks)),
        ]
        var object = "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",")
        if display.focus.active { object += ",\"focus\":" + Self.focusObject(state.focus, display.focus) }
        return object + "}"
    }

    /// The `focus` object: the properties of org.biomatimer.Focus1 (µs, unshortened; the
    /// time left live at the instant rendered), then the displayed `remaining_text`,
    /// `phase_name`, `round_text` and `progress`.
    static func focusObject(_ focus: FocusStatus, _ display: FocusDisplay) -> String {
        let fields: [(String, String)] = [
            ("state", TextEscaping.json(display.state.rawValue)),
            ("kind", TextEscaping.json(focus.kind)),
            ("phase", TextEscaping.json(focus.phase)),
            ("label", TextEscaping.json(focus.label)),
            ("round", String(focus.round)),
            ("rounds", String(focus.rounds)),
            ("phase_duration", String(focus.phaseDuration)),
            ("remaining", String(display.remainingMicros)),
            ("phase_ends_at", String(focus.phaseEndsAt)),
            ("updated_at", String(focus.updatedAt)),
            ("project", TextEscaping.json(focus.project)),
            ("completed_today", String(focus.completedToday)),
            ("remaining_text", TextEscaping.json(display.remaining)),
            ("phase_name", TextEscaping.json(display.phaseName)),
            ("round_text", TextEscaping.json(display.round)),
            ("progress", String(display.progress)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
