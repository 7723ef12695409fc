// `--format '{session} ({daily}) {project}'`: a user-written line, like playerctl's.
import BiomaText

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
    /// The focus timer as the island shows it (`◷ 12:34 Work 2/4 · Deep work`), empty when off.
    case focus
    /// The focus timer's mark (`◷`, `‖`, `◌`, `✓`), empty when off.
    case focusMark = "focus_mark"
    /// `off`, `running`, `paused`, `waiting` or `done`.
    case focusState = "focus_state"
    /// `pomodoro`, `countdown` or `intervals`, empty when off.
    case focusKind = "focus_kind"
    /// `work`, `short-break`, `long-break`, `countdown`, `active`, `rest` (while waiting:
    /// the next one), empty when off.
    case focusPhase = "focus_phase"
    /// The phase in words: `Work`, `Short break`, …
    case focusPhaseName = "focus_phase_name"
    /// Time left in the phase, `12:34` or `1:02:03`, counting down.
    case focusRemaining = "focus_remaining"
    /// The round, from 1 (empty for a countdown or when off).
    case focusRound = "focus_round"
    /// The planned rounds, empty when endless (or a countdown, or off).
    case focusRounds = "focus_rounds"
    /// `2/4`, or `2` when endless; empty for a countdown.
    case focusRoundText = "focus_round_text"
    /// The label (shortened), empty when none.
    case focusLabel = "focus_label"
    /// The phase's progress, 0–100 (0 when off).
    case focusProgress = "focus_progress"
    /// Work phases and active rounds completed today.
    case focusCompleted = "focus_completed"
    /// Today's work target, `8:00`, empty when none.
    case target
    /// Work today over the target in whole percent (may exceed 100), empty when no target.
    case targetProgress = "target_progress"
    /// The overtime balance, `+3:20` or `-0:45`.
    case balance
    /// The running project's budget use, `12:30/20:00`, empty when it has none.
    case projectBudget = "project_budget"
    /// The running project's client's name (shortened), empty when none.
    case client

    /// What the field shows, in one line: the manual's TEMPLATE FIELDS are these.
    public var summary: String {
        switch self {
        case .session: return "The work session, H:MM:SS."
        case .daily: return "Work today."
        case .project: return "The running project's name (shortened to 24 columns); empty when none runs."
        case .projectID: return "The running project's id."
        case .color: return "The running project's colour, #rrggbb; empty when none runs."
        case .projectSession: return "The running project's session."
        case .projectDaily: return "The running project's time today."
        case .percentage: return "The running project's share of today's work, 0 to 100."
        case .day: return "The day, YYYY-MM-DD."
        case .state: return "running, paused, idle or offline."
        case .mark: return "The island's mark for the state (ASCII with --ascii)."
        case .dueTasks: return "Open tasks whose due time has passed."
        case .openTasks: return "Tasks not done."
        case .focus: return "The focus timer as the island shows it (12:34 Work 2/4 · Deep work); empty when there is none."
        case .focusMark: return "The focus timer's mark: running, paused, waiting or done (ASCII with --ascii); empty when none."
        case .focusState: return "off, running, paused, waiting or done."
        case .focusKind: return "pomodoro, countdown or intervals."
        case .focusPhase: return "work, short-break, long-break, countdown, active or rest (while waiting: the next one)."
        case .focusPhaseName: return "The phase in words: Work, Short break, …"
        case .focusRemaining: return "Time left in the phase, 12:34 or 1:02:03."
        case .focusRound: return "The round (work phase or interval), from 1; empty for a countdown."
        case .focusRounds: return "The rounds planned; empty when endless."
        case .focusRoundText: return "2/4, or 2 when endless."
        case .focusLabel: return "The focus timer's label (shortened to 24 columns)."
        case .focusProgress: return "The part of the phase passed, 0 to 100."
        case .focusCompleted: return "Work phases and active rounds completed today."
        case .target: return "Today's work target, 8:00; empty when there is none."
        case .targetProgress: return "Work today over the target in whole percent (past 100 once exceeded); empty without a target."
        case .balance: return "The overtime balance, +3:20 or -0:45."
        case .projectBudget: return "The running project's budget use, 12:30/20:00 (used in its period, then the budget); empty when it has none."
        case .client: return "The running project's client's name (shortened like {project}); empty when it has none."
        }
    }

    /// The moving values this field's text depends on.
    var times: DisplayedTimes {
        switch self {
        case .session: return .session
        case .daily: return .daily
        case .projectSession: return .projectSession
        case .projectDaily: return .projectDaily
        case .percentage: return [.projectDaily, .daily]
        case .projectBudget: return .projectDaily
        case .targetProgress, .balance: return .daily
        case .focus, .focusRemaining, .focusProgress: return .focus
        case .project, .projectID, .color, .client, .day, .state, .mark, .dueTasks, .openTasks, .focusMark, .focusState,
            .focusKind, .focusPhase, .focusPhaseName, .focusRound, .focusRounds, .focusRoundText, .focusLabel,
            .focusCompleted, .target:
            return []
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
        case .focus: return display.focus.segment
        case .focusMark: return display.focus.mark
        case .focusState: return display.focus.state.rawValue
        case .focusKind: return display.focus.kind
        case .focusPhase: return display.focus.phase
        case .focusPhaseName: return display.focus.phaseName
        case .focusRemaining: return display.focus.remaining
        case .focusRound:
            return display.focus.round.isEmpty ? "" : String(display.focus.round.prefix { $0 != "/" })
        case .focusRounds:
            guard let slash = display.focus.round.firstIndex(of: "/") else { return "" }
            return String(display.focus.round[display.focus.round.index(after: slash)...])
        case .focusRoundText: return display.focus.round
        case .focusLabel: return display.focus.label
        case .focusProgress: return String(display.focus.progress)
        case .focusCompleted: return String(display.focus.completedToday)
        case .target: return display.target
        case .targetProgress: return display.targetPercent.map(String.init) ?? ""
        case .balance: return display.balance
        case .projectBudget: return display.projectBudget
        case .client: return display.clientName
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
