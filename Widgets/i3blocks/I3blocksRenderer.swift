// i3blocks persistent block with `format=json`: one JSON object per line. The block
// says `markup: pango` itself, and the text is Pango-escaped to match, so the result is
// the same whatever `markup=` the user's i3blocks.conf sets.
import BiomaText

/// `{"full_text":…,"short_text":…,"color":…,"markup":"pango"}`.
public struct I3blocksRenderer: NamedWidgetRenderer, Equatable {
    public static let formatName = "i3blocks"
    public let options: RenderOptions

    public init(options: RenderOptions = RenderOptions()) {
        self.options = options
    }

    /// The line shows the work times and the focus timer, no project times.
    public var displayedTimes: DisplayedTimes { .line }

    public func render(_ state: WidgetState, now: Int64) -> String {
        let display = WidgetDisplay(state, now: now, options: options)
        let full = IslandRenderer.line(display, escape: TextEscaping.pango)
        let short =
            display.phase == .offline
            ? full
            : display.focus.leads
                ? TextEscaping.pango(display.focus.shortSegment)
                : TextEscaping.pango("\(display.mark) \(display.session)")
        var line = "{\"full_text\":" + TextEscaping.json(full)
            + ",\"short_text\":" + TextEscaping.json(short)
        if let color = display.color {
            // The whole block takes the project's colour, as i3bar colours blocks.
            line += ",\"color\":" + TextEscaping.json(color)
        }
        return line + ",\"markup\":\"pango\"}"
    }
}
