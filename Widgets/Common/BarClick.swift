import Foundation

// Clicks on the widget. Every bar maps its mouse buttons the same way: left click
// toggles work, right click and scrolling down go to the next project, scrolling up to
// the previous one. Waybar and polybar run commands for clicks (see their configs);
// i3blocks writes a JSON object per click to a persistent block's stdin, parsed here.

/// What a click asks the timer to do.
public enum WidgetAction: String, Sendable, Equatable, CaseIterable {
    /// `biomatimer toggle` (D-Bus `Toggle()`).
    case toggle
    /// `biomatimer project next` (D-Bus `CycleProject(1)`).
    case nextProject
    /// `biomatimer project prev` (D-Bus `CycleProject(-1)`).
    case previousProject

    /// The action for an X11/i3bar button number: 1 left, 3 right, 4 scroll up,
    /// 5 scroll down. Other buttons (middle, side) do nothing.
    public init?(button: Int) {
        switch button {
        case 1: self = .toggle
        case 3, 5: self = .nextProject
        case 4: self = .previousProject
        default: return nil
        }
    }

    /// The `CycleProject` step, or nil for toggle.
    public var cycleStep: Int32? {
        switch self {
        case .toggle: return nil
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

    /// Parses one line of a persistent i3blocks block's stdin:
    /// `{"name":"biomatimer","instance":"","button":1,"x":…,"y":…,…}`. A bare button
    /// number (`1`) is accepted too. Nil for blank lines, malformed JSON and objects
    /// without an integer `button`, so a watcher can skip them and read on.
    public init?(i3blocksLine line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        if let number = Int(trimmed) {
            self.init(button: number)
            return
        }
        guard trimmed.first == "{",
            let raw = try? JSONDecoder().decode(RawClick.self, from: Data(trimmed.utf8))
        else { return nil }
        self.init(button: raw.button, name: raw.name, instance: raw.instance)
    }

    /// What the click asks for, nil for buttons without a meaning.
    public var action: WidgetAction? { WidgetAction(button: button) }

    /// The fields of i3blocks' click object we use; the others (x, y, modifiers, …) are
    /// ignored. `name` and `instance` are optional so a bare `{"button":1}` parses.
    private struct RawClick: Decodable {
        var button: Int
        var name: String?
        var instance: String?
    }
}
