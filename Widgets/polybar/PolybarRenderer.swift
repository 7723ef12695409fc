// Polybar `custom/script` with `tail = true`: one line per update, polybar format tags.
import BiomaText

/// `● 0:05:30 (2:45:15) · %{F#007aff}Client A%{F-}`.
public struct PolybarRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "polybar"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// The line shows the work times and the focus timer, no project times.
    public var displayedTimes: DisplayedTimes { .line }

    public func render(_ state: WidgetState, now: Int64) -> String {
        IslandRenderer.line(
            WidgetDisplay(state, now: now, options: options), escape: TextEscaping.polybar
        ) { name, color in
            "%{F\(color)}\(name)%{F-}"
        }
    }
}
