// `--format '{session} ({daily}) {project}'`: a user-written line, like playerctl's.

/// The fields a template can use.
public enum TemplateField: String, Sendable, CaseIterable {
    /// Work session, `H:MM:SS`.
    case session
    /// Work total today.
    case daily
    /// Running project's name (shortened), empty when none.
    case project
    /// Running project's id, empty when none.
    case projectID = "project_id"
    /// Running project's colour `#rrggbb`, empty when none.
    case color
    /// Running project's session.
    case projectSession = "project_session"
    /// Running project's total today.
    case projectDaily = "project_daily"
    /// The running project's share of today's work, 0–100.
    case percentage
    /// The current day, `YYYY-MM-DD`.
    case day
    /// `running`, `paused`, `idle` or `offline`.
    case state
    /// The island's mark for the state (`●`, `▶`, `‖`, `○`, `⊘`; ASCII with `--ascii`).
    case mark
    /// Open tasks whose due instant has passed.
    case dueTasks = "due_tasks"
    /// Tasks not done.
    case openTasks = "open_tasks"

    /// The moving values this field's text depends on.
    var times: DisplayedTimes {
        switch self {
        case .session: return .session
        case .daily: return .daily
        case .projectSession: return .projectSession
        case .projectDaily: return .projectDaily
        case .percentage: return [.projectDaily, .daily]
        case .project, .projectID, .color, .day, .state, .mark, .dueTasks, .openTasks: return []
        }
    }

    func value(in display: WidgetDisplay) -> String {
        switch self {
        case .session: return display.session
        case .daily: return display.daily
        case .project: return display.projectName
        case .projectID: return display.projectId
        case .color: return display.color ?? ""
        case .projectSession: return display.projectSession
        case .projectDaily: return display.projectDaily
        case .percentage: return String(display.percentage)
        case .day: return display.day
        case .state: return display.phase.rawValue
        case .mark: return display.mark
        case .dueTasks: return String(display.dueTasks)
        case .openTasks: return String(display.openTasks)
        }
    }
}

/// Renders a parsed template. Literal text is kept as written (control characters
/// become spaces, so the output stays one line); field values are plain text.
public struct TemplateRenderer: WidgetRenderer, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case field(TemplateField)
    }

    let parts: [Part]
    public let options: RenderOptions

    /// Parses `template`: `{name}` is a field, `{{` and `}}` are literal braces. Unknown
    /// fields and unbalanced braces are errors here, before anything is printed.
    public init(template: String, options: RenderOptions = RenderOptions()) throws(WidgetFormatError) {
        self.parts = try Self.parse(template)
        self.options = options
    }

    /// The values of the fields used.
    public var displayedTimes: DisplayedTimes {
        parts.reduce(into: []) { times, part in
            if case .field(let field) = part { times.formUnion(field.times) }
        }
    }

    public func render(_ state: WidgetState, now: Int64) -> String {
        let display = WidgetDisplay(state, now: now, options: options)
        var line = ""
        for part in parts {
            switch part {
            case .literal(let text): line += text
            case .field(let field): line += field.value(in: display)
            }
        }
        return TextEscaping.singleLine(line)
    }

    static func parse(_ template: String) throws(WidgetFormatError) -> [Part] {
        let characters = Array(template)
        var parts: [Part] = []
        var literal = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
            if character == "{" && next == "{" {
                literal.append("{")
                index += 2
            } else if character == "}" && next == "}" {
                literal.append("}")
                index += 2
            } else if character == "}" {
                throw .unmatchedClosingBrace(at: index)
            } else if character == "{" {
                guard let close = characters[(index + 1)...].firstIndex(of: "}") else {
                    throw .unclosedField(at: index)
                }
                let name = String(characters[(index + 1)..<close])
                if name.isEmpty { throw .emptyField(at: index) }
                guard let field = TemplateField(rawValue: name) else {
                    throw .unknownField(name)
                }
                if !literal.isEmpty {
                    parts.append(.literal(literal))
                    literal = ""
                }
                parts.append(.field(field))
                index = close + 1
            } else {
                literal.append(character)
                index += 1
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return parts
    }
}
