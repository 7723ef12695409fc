// Waybar custom module with `return-type: json`: one JSON object per line.
// Waybar reads `text` and `tooltip` as Pango markup, so both are Pango-escaped, then
// JSON-escaped.

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
        return "{\"text\":" + TextEscaping.json(text)
            + ",\"alt\":" + TextEscaping.json(display.phase.rawValue)
            + ",\"tooltip\":" + TextEscaping.json(TextEscaping.pango(Self.tooltip(display)))
            + ",\"class\":[" + classes.map(TextEscaping.json).joined(separator: ",") + "]"
            + ",\"percentage\":\(display.percentage)}"
    }

    /// Two lines: work, then the project (its full name: a tooltip has room), each as
    /// session and today's total.
    static func tooltip(_ display: WidgetDisplay) -> String {
        if display.phase == .offline { return "biomatimer: the daemon is not running" }
        let work = "Work: \(display.session) session, \(display.daily) today"
        let tasks = display.dueTasks > 0 ? "\nTasks due: \(display.dueTasks) of \(display.openTasks) open" : ""
        guard display.hasProject else { return work + "\nNo project running" + tasks }
        return work
            + "\n\(display.projectFullName): \(display.projectSession) session, \(display.projectDaily) today" + tasks
    }
}
