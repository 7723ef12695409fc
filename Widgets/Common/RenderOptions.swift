// Options every renderer takes, and the glyphs they draw with.

/// How a renderer draws: glyph set and the room a project name gets.
public struct RenderOptions: Sendable, Equatable {
    /// Plain ASCII marks, separator and ellipsis, for bar fonts without the symbols.
    public var ascii: Bool
    /// Most columns a project name takes before it is cut with an ellipsis; nil: no limit.
    public var maxNameWidth: Int?

    public static let defaultMaxNameWidth = 24

    public init(ascii: Bool = false, maxNameWidth: Int? = RenderOptions.defaultMaxNameWidth) {
        self.ascii = ascii
        self.maxNameWidth = maxNameWidth
    }

    /// The glyphs for the chosen set.
    public var glyphs: Glyphs { ascii ? .ascii : .unicode }
}

/// The marks that tell the phases apart at a glance (the Dynamic Island's icon).
public struct Glyphs: Sendable, Equatable {
    /// Work runs with a project.
    public var runningProject: String
    /// Work runs without a project.
    public var running: String
    /// Stopped with time on the stopwatch.
    public var paused: String
    /// Stopped at zero.
    public var idle: String
    /// Daemon not on the bus.
    public var offline: String
    /// Between the times and the project name.
    public var separator: String
    /// Ends a shortened name.
    public var ellipsis: String
    /// Before the count of tasks that are due.
    public var tasksDue: String

    /// Glyphs found in DejaVu Sans and most bar fonts.
    public static let unicode = Glyphs(
        runningProject: "●", running: "▶", paused: "‖", idle: "○", offline: "⊘",
        separator: " · ", ellipsis: "…", tasksDue: "⚑")
    /// Seven-bit fallback (`--ascii`).
    public static let ascii = Glyphs(
        runningProject: "*", running: ">", paused: "||", idle: "o", offline: "x",
        separator: " - ", ellipsis: "...", tasksDue: "!")

    /// The mark for a state.
    public func mark(for state: WidgetState) -> String {
        switch state.phase {
        case .running: return state.hasProject ? runningProject : running
        case .paused: return paused
        case .idle: return idle
        case .offline: return offline
        }
    }
}
