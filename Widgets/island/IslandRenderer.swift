// The compact line: the desktop's Dynamic Island. `● 0:05:30 (2:45:15) · Client A ⚑2`.

/// Plain text, one line: a mark for the phase, the work times, the project, and how many
/// tasks are due (only when some are).
public struct IslandRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "island"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// The line shows the work times only.
    public var displayedTimes: DisplayedTimes { .work }

    public func render(_ state: WidgetState, now: Int64) -> String {
        Self.line(WidgetDisplay(state, now: now, options: options))
    }

    /// The island line for a display. Markup formats pass their `escape` (applied to
    /// every piece of text, glyphs included: the ASCII mark `>` is markup to Pango) and
    /// `colorProject`, which wraps the escaped name in their colour syntax.
    static func line(
        _ display: WidgetDisplay,
        escape: (String) -> String = { $0 },
        colorProject: (_ escapedName: String, _ color: String) -> String = { name, _ in name }
    ) -> String {
        if display.phase == .offline { return escape("\(display.mark) offline") }
        var line = escape("\(display.mark) \(display.workTimes)")
        if display.hasProject {
            let name = escape(display.projectName)
            line += escape(display.separator)
            line += display.color.map { colorProject(name, $0) } ?? name
        }
        if !display.dueMark.isEmpty { line += escape(" " + display.dueMark) }
        return line
    }
}
