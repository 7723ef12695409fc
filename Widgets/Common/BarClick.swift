import BiomaText

// Clicks on the widget. Every bar maps its mouse buttons the same way: left click
// toggles work, middle click pauses or resumes the focus timer, right click and scrolling
// down go to the next project, scrolling up to the previous one. Waybar and polybar run commands for clicks (see their configs);
// i3blocks 1.5+ writes one line per click to a persistent block's stdin, parsed here.
// i3blocks 1.4 (Debian 12) does not: see `I3blocksClicks.stdinCarriesClicks`.

/// What a click asks the timer to do.
public enum WidgetAction: String, Sendable, Equatable, CaseIterable {
    /// `biomatimer toggle` (D-Bus `Toggle()`).
    case toggle
    /// `biomatimer project next` (D-Bus `CycleProject(1)`).
    case nextProject
    /// `biomatimer project prev` (D-Bus `CycleProject(-1)`).
    case previousProject
    /// `biomatimer focus toggle` (D-Bus `org.biomatimer.Focus1.TogglePause()`).
    case toggleFocus

    /// The action for an X11/i3bar button number: 1 left, 2 middle, 3 right, 4 scroll up,
    /// 5 scroll down. Other buttons (side) do nothing.
    public init?(button: Int) {
        switch button {
        case 1: self = .toggle
        case 2: self = .toggleFocus
        case 3, 5: self = .nextProject
        case 4: self = .previousProject
        default: return nil
        }
    }

    /// The `CycleProject` step, or nil for the toggles.
    public var cycleStep: Int32? {
        switch self {
        case .toggle, .toggleFocus: return nil
        case .nextProject: return 1
        case .previousProject: return -1
        }
    }
}

/// One click event as i3blocks passes it to a persistent block.
public struct BarClick: Sendable, Equatable {
    /// Mouse button, 1-based as in X11.
    public var button: Int
    /// The block's `name`, when given.
    public var name: String?
    /// The block's `instance`, when given.
    public var instance: String?

    public init(button: Int, name: String? = nil, instance: String? = nil) {
        self.button = button
        self.name = name
        self.instance = instance
    }

    /// Parses one line of a persistent i3blocks block's stdin. With `format=json`
    /// i3blocks 1.5 writes the block's whole property map plus the click,
    /// `{"":"","name":"biomatimer","instance":"","full_text":…,"button":1,"x":…,…}`;
    /// with plain format just the button number (`1`). Both are accepted. Nil for blank
    /// lines, malformed JSON and objects without an integer `button`, so a watcher can
    /// skip them and read on.
    public init?(i3blocksLine line: String) {
        let trimmed = String(line.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        if trimmed.isEmpty { return nil }
        if let number = Int(trimmed) {
            self.init(button: number)
            return
        }
        // A line that is not JSON is skipped like any other line without a click.
        guard trimmed.first == "{", let object = try? StrictJSON.parse(trimmed),
            let button = object["button"].flatMap(Self.lenient).flatMap({ Int($0) })
        else { return nil }
        self.init(button: button, name: object["name"].flatMap(Self.lenient), instance: object["instance"].flatMap(Self.lenient))
    }

    /// i3blocks 1.5 writes any value that happens to be valid JSON unquoted (a block named
    /// `42` arrives as a number, a button as `1` or `"1"`), so a field is a string or a
    /// number's text; anything else is absent.
    private static func lenient(_ value: StrictJSON) -> String? {
        switch value {
        case .string(let text), .number(let text): return text
        default: return nil
        }
    }

    /// What the click asks for, nil for buttons without a meaning.
    public var action: WidgetAction? { WidgetAction(button: button) }
}

/// Where i3blocks clicks come from.
public enum I3blocksClicks {
    /// Whether a persistent block's stdin carries its clicks. i3blocks 1.5 and later give
    /// the block its own stdin pipe, write each click to it, and export
    /// `BLOCK_INTERVAL`. i3blocks 1.4 (Debian 12's) exports no `BLOCK_INTERVAL`, leaves
    /// the block on i3blocks' own stdin, which is i3bar's click stream for every block, and
    /// drops clicks on a running persistent block; a block that read that stdin would
    /// steal other blocks' clicks. So: read stdin only when this returns true.
    public static func stdinCarriesClicks(environment: [String: String]) -> Bool {
        environment["BLOCK_INTERVAL"] == "persist"
    }
}
