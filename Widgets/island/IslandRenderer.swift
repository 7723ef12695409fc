// The compact line: the desktop's Dynamic Island. `● 0:05:30 (2:45:15) · Client A ⚑2`,
// or with a focus timer `◷ 12:34 Work 2/4 │ ● 0:05:30 · Client A`.

/// Plain text, one line: a mark for the phase, the work times, the project, and how many
/// tasks are due (only when some are). A focus timer takes the front while it runs, waits
/// or is done (and while paused, unless work runs); see Widgets/island/README.md.
public struct IslandRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "island"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// The line shows the work times and the focus timer, no project times.
    public var displayedTimes: DisplayedTimes { .line }

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
        let focus = display.focus
        var line: String
        if !focus.active {
            line = work(display, times: display.workTimes, escape: escape, colorProject: colorProject)
        } else if focus.leads {
            // The focus timer first; work follows compactly (its session only), and only
            // when there is something to show: running, or time on the stopwatch.
            line = escape(focus.segment)
            if display.phase != .idle || display.hasProject {
                line += escape(focus.separator)
                line += work(display, times: display.session, escape: escape, colorProject: colorProject)
            }
        } else {
            // Paused while work runs: work first, the paused focus timer after it.
            line = work(display, times: display.workTimes, escape: escape, colorProject: colorProject)
            line += escape(focus.separator + focus.segment)
        }
        if !display.dueMark.isEmpty { line += escape(" " + display.dueMark) }
        return line
    }

    /// The work timer's part: its mark, `times`, and the running project's name.
    private static func work(
        _ display: WidgetDisplay, times: String, escape: (String) -> String,
        colorProject: (_ escapedName: String, _ color: String) -> String
    ) -> String {
        var line = escape("\(display.mark) \(times)")
        if display.hasProject {
            let name = escape(display.projectName)
            line += escape(display.separator)
            line += display.color.map { colorProject(name, $0) } ?? name
        }
        return line
    }
}
