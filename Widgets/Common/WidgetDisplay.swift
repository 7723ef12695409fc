// The values every renderer shows, computed once from a state at an instant: live times
// formatted, names made single-line and shortened, the colour validated. Renderers only
// arrange and escape these.

import BiomaText

/// What a bar displays at one instant. All strings are plain text, not yet escaped.
public struct WidgetDisplay: Sendable, Equatable {
    public var phase: WorkPhase
    /// Whether a project is running (and so coloured and named).
    public var hasProject: Bool
    public var mark: String
    public var separator: String
    /// Work session, `H:MM:SS`.
    public var session: String
    /// Work total today, `H:MM:SS`.
    public var daily: String
    /// Project session, `H:MM:SS` (`0:00:00` without a project).
    public var projectSession: String
    /// Project total today, `H:MM:SS`.
    public var projectDaily: String
    /// The project's name (its id if the name is empty), single-line and shortened.
    public var projectName: String
    /// The same, not shortened: for tooltips, where there is room.
    public var projectFullName: String
    /// The project's id, single-line (not shortened: scripts match on it).
    public var projectId: String
    /// The running project's client's name, single-line and shortened; `""` for none.
    public var clientName: String
    /// `#rrggbb` or nil when there is no project or its colour is not `#RRGGBB`.
    public var color: String?
    /// The running project's share of today's work, 0–100, from the displayed seconds.
    public var percentage: Int
    /// `YYYY-MM-DD`, single-line.
    public var day: String
    /// Open tasks whose due instant has passed (0 offline).
    public var dueTasks: Int
    /// Open tasks (0 offline).
    public var openTasks: Int
    /// `⚑2` when tasks are due, else empty.
    public var dueMark: String
    /// The focus timer (inactive when there is none or the daemon is offline).
    public var focus: FocusDisplay
    /// Today's work target (`8:00`), empty when none (or offline).
    public var target: String
    /// Work today over the target in whole percent from the displayed seconds (may exceed
    /// 100), nil with no target.
    public var targetPercent: Int?
    /// Work today as `6:12` beside the target, empty when none.
    public var targetWorked: String
    /// The balance, `+3:20` or `-0:45` (empty offline).
    public var balance: String
    /// Whether today's target is met.
    public var targetReached: Bool { (targetPercent ?? 0) >= 100 }
    /// The running project's budget use, `12:30/20:00`, empty when it has none (or offline).
    public var projectBudget: String
    /// The lines of the daemon's settings file it could not use, `FILE:LINE: what is wrong`,
    /// each single-line (none offline).
    public var configProblems: [String]

    public init(_ state: WidgetState, now: Int64, options: RenderOptions) {
        let glyphs = options.glyphs
        let live = state.advanced(to: now)
        phase = state.phase
        hasProject = state.online && state.hasProject
        mark = glyphs.mark(for: state)
        separator = glyphs.separator
        session = DurationFormat.hms(live.sessionTime)
        daily = DurationFormat.hms(live.dailyTotal)
        projectSession = DurationFormat.hms(live.projectSessionTime)
        projectDaily = DurationFormat.hms(live.projectDailyTotal)
        day = TextEscaping.singleLine(state.day)
        dueTasks = state.online ? Int(state.tasks.dueTasks) : 0
        openTasks = state.online ? Int(state.tasks.openTasks) : 0
        dueMark = dueTasks > 0 ? "\(glyphs.tasksDue)\(dueTasks)" : ""
        focus = FocusDisplay(state, now: now, options: options)
        configProblems = state.online ? state.configProblems.map(TextEscaping.singleLine) : []
        (target, targetPercent, targetWorked, balance) = Self.targets(state, live)
        projectBudget =
            state.online && state.hasProject && state.projectBudget > 0
            ? "\(DurationClock.hoursMinutes(live.projectBudgetUsed))/\(DurationClock.hoursMinutes(state.projectBudget))" : ""
        if hasProject {
            let name = state.activeProjectName.isEmpty ? state.activeProject : state.activeProjectName
            projectFullName = TextEscaping.singleLine(name)
            projectName = DisplayWidth.truncate(
                projectFullName, to: options.maxNameWidth, ellipsis: glyphs.ellipsis)
            projectId = TextEscaping.singleLine(state.activeProject)
            clientName = DisplayWidth.truncate(
                TextEscaping.singleLine(state.activeClient), to: options.maxNameWidth, ellipsis: glyphs.ellipsis)
            color = ProjectColor.normalized(state.activeProjectColor)
            // From whole displayed seconds, so the percentage changes only when the
            // displayed times do (see nextRedraw).
            let dailySeconds = DurationFormat.wholeSeconds(live.dailyTotal)
            let projectSeconds = DurationFormat.wholeSeconds(live.projectDailyTotal)
            let share =
                dailySeconds == 0
                ? 0
                : projectSeconds.multipliedReportingOverflow(by: 100).overflow
                    ? 100 : projectSeconds * 100 / dailySeconds
            percentage = Int(Swift.min(100, Swift.max(0, share)))
        } else {
            projectFullName = ""
            projectName = ""
            projectId = ""
            clientName = ""
            color = nil
            percentage = 0
        }
    }

    /// `0:05:30 (2:45:15)`: the work session and today's total; with a target today
    /// `0:05:30 (6:12/8:00)`, work today over the target.
    public var workTimes: String { target.isEmpty ? "\(session) (\(daily))" : "\(session) (\(targetWorked)/\(target))" }

    /// The target fields of a state and its live values at the instant displayed.
    private static func targets(_ state: WidgetState, _ live: WidgetState)
        -> (target: String, percent: Int?, worked: String, balance: String)
    {
        guard state.online else { return ("", nil, "", "") }
        let balance = DurationClock.signed(live.balance)
        let target = state.dailyTarget
        guard target > 0 else { return ("", nil, "", balance) }
        // From whole displayed seconds, as the project share: it changes only with them.
        let seconds = DurationFormat.wholeSeconds(live.dailyTotal)
        let percent = Int(clamping: seconds.multipliedReportingOverflow(by: 100_000_000).overflow ? Int64.max : seconds * 100_000_000 / target)
        return (DurationClock.hoursMinutes(target), percent, DurationClock.hoursMinutes(live.dailyTotal), balance)
    }
}
