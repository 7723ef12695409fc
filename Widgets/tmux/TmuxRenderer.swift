// tmux `status-right` through `#(biomatimer status --format tmux)`: one line, tmux
// style directives.
import BiomaText

/// `● 0:05:30 (2:45:15) · #[fg=#007aff]Client A#[default]`.
public struct TmuxRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "tmux"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// The line shows the work times and the focus timer, no project times.
    public var displayedTimes: DisplayedTimes { .line }

    public func render(_ state: WidgetState, now: Int64) -> String {
        IslandRenderer.line(
            WidgetDisplay(state, now: now, options: options), escape: TextEscaping.tmux
        ) { name, color in
            "#[fg=\(color)]\(name)#[default]"
        }
    }
}
