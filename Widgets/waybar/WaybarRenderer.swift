// Waybar custom module with `return-type: json`: one JSON object per line.
// Waybar reads `text` and `tooltip` as Pango markup, so both are Pango-escaped, then
// JSON-escaped. A focus timer adds its classes (`focus`, `focus-running`, `kind-pomodoro`,
// `phase-work`…), names its state in `alt` and gives its phase's progress as `percentage`.

import BiomaText

/// `{"text":…,"alt":…,"tooltip":…,"class":[…],"percentage":…}`.
public struct WaybarRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "waybar"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    public func render(_ state: WidgetState, now: Int64) -> String {
        let display = WidgetDisplay(state, now: now, options: options)
        let text = IslandRenderer.line(display, escape: TextEscaping.pango) { name, color in
            "<span foreground=\"\(color)\">\(name)</span>"
        }
        var classes = [display.phase.rawValue]
        if display.hasProject { classes.append("project") }
        if display.dueTasks > 0 { classes.append("tasks-due") }
        if display.targetReached { classes.append("target-reached") }
        classes += display.focus.cssClasses
        // With a focus timer, `alt` names its state and `percentage` is the phase's progress;
        // else, with a target today, the target's progress.
        let focus = display.focus
        let alt = focus.active ? "focus-\(focus.state.rawValue)" : display.phase.rawValue
        let percentage = focus.active ? focus.progress : display.targetPercent ?? display.percentage
        return "{\"text\":" + TextEscaping.json(text)
            + ",\"alt\":" + TextEscaping.json(alt)
            + ",\"tooltip\":" + TextEscaping.json(TextEscaping.pango(Self.tooltip(display)))
            + ",\"class\":[" + classes.map(TextEscaping.json).joined(separator: ",") + "]"
            + ",\"percentage\":\(percentage)}"
    }

    /// Two lines: work, then the project (its full name: a tooltip has room), each as
    /// session and today's total; with a focus timer, two lines about it first; last, a line
    /// per line of the settings file the daemon could not use.
    static func tooltip(_ display: WidgetDisplay) -> String {
        if display.phase == .offline { return "biomatimer: the daemon is not running" }
        let focus =
            display.focus.active
            ? "\(display.focus.sentence)\nCompleted today: \(display.focus.completedToday)\n" : ""
        let work = "Work: \(display.session) session, \(display.daily) today"
        let tasks = display.dueTasks > 0 ? "\nTasks due: \(display.dueTasks) of \(display.openTasks) open" : ""
        let config = display.configProblems.map { "\nWarning: \($0)" }.joined()
        guard display.hasProject else { return focus + work + "\nNo project running" + tasks + config }
        return focus + work
            + "\n\(display.projectFullName): \(display.projectSession) session, \(display.projectDaily) today" + tasks + config
    }
}
