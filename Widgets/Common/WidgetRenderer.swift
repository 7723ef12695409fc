// One protocol for every output format, and the factory `--format` goes through.
import BiomaText

/// Turns a state into what a bar reads for one instant.
public protocol WidgetRenderer: Sendable {
    /// The line(s) to print for `state` at `now` (µs since the epoch), without a
    /// trailing newline. Every built-in format returns exactly one line.
    func render(_ state: WidgetState, now: Int64) -> String

    /// The time values the output depends on, so a watcher wakes only when one of them
    /// reaches a new displayed second (see `nextRedraw(after:state:showing:)`).
    var displayedTimes: DisplayedTimes { get }
}

extension WidgetRenderer {
    /// Unless a renderer says otherwise, it may show every time value.
    public var displayedTimes: DisplayedTimes { .all }
}

/// Which of the moving values an output shows: the four work and project times, and the
/// focus timer's time left (which counts down).
public struct DisplayedTimes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let session = DisplayedTimes(rawValue: 1 << 0)
    public static let daily = DisplayedTimes(rawValue: 1 << 1)
    public static let projectSession = DisplayedTimes(rawValue: 1 << 2)
    public static let projectDaily = DisplayedTimes(rawValue: 1 << 3)
    /// The focus timer's time left (and its progress).
    public static let focus = DisplayedTimes(rawValue: 1 << 4)

    /// The work timer's session and today's total.
    public static let work: DisplayedTimes = [.session, .daily]
    /// What the island line (and the bars built on it) shows: the work times and the focus timer.
    public static let line: DisplayedTimes = [.session, .daily, .focus]
    public static let all: DisplayedTimes = [.session, .daily, .projectSession, .projectDaily, .focus]
}

/// A renderer selectable by name with `--format NAME`.
public protocol NamedWidgetRenderer: WidgetRenderer {
    /// The `--format` name.
    static var formatName: String { get }
    init(options: RenderOptions)
}

/// `--format` could not be understood.
public enum WidgetFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Neither a known format name nor a template.
    case unknownFormat(String)
    /// A template names a field that does not exist.
    case unknownField(String)
    /// A template opens `{` and never closes it; the offset (in characters) of the `{`.
    case unclosedField(at: Int)
    /// A lone `}` in a template (write `}}` for a literal brace); its offset.
    case unmatchedClosingBrace(at: Int)
    /// `{}` in a template; its offset.
    case emptyField(at: Int)

    public var description: String {
        switch self {
        case .unknownFormat(let name):
            return "unknown format \"\(TextEscaping.singleLine(name))\": use one of "
                + WidgetFormats.names.joined(separator: ", ")
                + ", or a template such as '{session} ({daily}) {project}'"
        case .unknownField(let name):
            return "unknown field {\(TextEscaping.singleLine(name))} in the format template; fields are "
                + TemplateField.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
        case .unclosedField(let offset):
            return "the format template opens a field at character \(offset + 1) and never closes it "
                + "(write {{ for a literal {)"
        case .unmatchedClosingBrace(let offset):
            return "the format template has a } at character \(offset + 1) that closes nothing "
                + "(write }} for a literal })"
        case .emptyField(let offset):
            return "the format template has an empty field {} at character \(offset + 1)"
        }
    }
}

/// The formats `--format` accepts.
public enum WidgetFormats {
    /// Every named format. A new bar adds its folder under Widgets/ and one entry here.
    public static let all: [any NamedWidgetRenderer.Type] = [
        IslandRenderer.self,
        WaybarRenderer.self,
        I3blocksRenderer.self,
        PolybarRenderer.self,
        TmuxRenderer.self,
        JSONStateRenderer.self,
    ]

    /// The names, in the order above.
    public static var names: [String] { all.map { $0.formatName } }

    /// The renderer for `--format`: a name from `names`, or a template when the text
    /// contains a brace (`'{session} ({daily}) {project}'`).
    public static func renderer(
        for format: String, options: RenderOptions = RenderOptions()
    ) throws(WidgetFormatError) -> any WidgetRenderer {
        if format.contains("{") || format.contains("}") {
            return try TemplateRenderer(template: format, options: options)
        }
        guard let type = all.first(where: { $0.formatName == format }) else {
            throw .unknownFormat(format)
        }
        return type.init(options: options)
    }
}
