// The timer state a renderer displays: the properties of /org/biomatimer/Timer1
// (see dbus/README.md) as one value, plus whether the daemon is there at all.

import BiomaContract

/// A snapshot of the daemon's published state. The time values hold at `updatedAt`;
/// `advanced(to:)` gives the live values at another instant, as the D-Bus contract says.
///
/// The published values live in `timer` (one stored property per D-Bus property of
/// `org.biomatimer.Timer1`, see `WorkStatus.table`); they read as if they were the state's
/// own (`state.running`, `state.sessionTime`).
@dynamicMemberLookup
public struct WidgetState: Sendable, Equatable {
    /// The daemon owns its bus name. When false every other field is meaningless.
    public var online: Bool
    /// The properties of `org.biomatimer.Timer1`.
    public var timer: WorkStatus
    /// The properties of `org.biomatimer.Tasks1`.
    public var tasks = TasksStatus()
    /// The properties of `org.biomatimer.Focus1`.
    public var focus = FocusStatus()

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<WorkStatus, Value>) -> Value {
        get { timer[keyPath: keyPath] }
        set { timer[keyPath: keyPath] = newValue }
    }

    public init(online: Bool = true, timer: WorkStatus) {
        self.online = online
        self.timer = timer
    }

    public init(
        online: Bool = true,
        running: Bool = false,
        updatedAt: Int64 = 0,
        sessionTime: Int64 = 0,
        dailyTotal: Int64 = 0,
        day: String = "",
        activeProject: String = "",
        activeProjectName: String = "",
        activeProjectColor: String = "",
        projectSessionTime: Int64 = 0,
        projectDailyTotal: Int64 = 0
    ) {
        var timer = WorkStatus()
        timer.running = running
        timer.updatedAt = updatedAt
        timer.sessionTime = sessionTime
        timer.dailyTotal = dailyTotal
        timer.day = day
        timer.activeProject = activeProject
        timer.activeProjectName = activeProjectName
        timer.activeProjectColor = activeProjectColor
        timer.projectSessionTime = projectSessionTime
        timer.projectDailyTotal = projectDailyTotal
        self.init(online: online, timer: timer)
    }

    /// The daemon is not on the bus.
    public static let offline = WidgetState(online: false)

    /// Whether a project is running (the contract's "ActiveProject is not empty").
    public var hasProject: Bool { !timer.activeProject.isEmpty }

    /// Whether any displayed value moves with the clock: the work values while `running`,
    /// the project values while a project is active. Offline states never move.
    public var isTicking: Bool { online && (timer.running || hasProject) }

    /// The state with its live values at `now`: `value + (now − updatedAt)` for the work
    /// values while running and for the project values while a project is active, and
    /// `updatedAt = now`; `Balance` and `TargetProgress` move with the work values. A `now` before `updatedAt` (a clock step back) counts as no time,
    /// so a display never shows less than the daemon published.
    public func advanced(to now: Int64) -> WidgetState {
        guard online else { return self }
        let elapsed = Self.elapsed(from: timer.updatedAt, to: now)
        var live = self
        live.updatedAt = Swift.max(now, timer.updatedAt)
        if timer.running {
            live.sessionTime = Self.adding(timer.sessionTime, elapsed)
            live.dailyTotal = Self.adding(timer.dailyTotal, elapsed)
            live.balance = Self.adding(timer.balance, elapsed)
            if timer.dailyTarget > 0 { live.targetProgress = Double(live.dailyTotal) / Double(timer.dailyTarget) }
        }
        if hasProject {
            live.projectSessionTime = Self.adding(timer.projectSessionTime, elapsed)
            live.projectDailyTotal = Self.adding(timer.projectDailyTotal, elapsed)
            if timer.projectBudget > 0 { live.projectBudgetUsed = Self.adding(timer.projectBudgetUsed, elapsed) }
        }
        return live
    }

    /// Live `SessionTime` at `now`.
    public func liveSessionTime(at now: Int64) -> Int64 {
        timer.running ? Self.adding(timer.sessionTime, Self.elapsed(from: timer.updatedAt, to: now)) : timer.sessionTime
    }

    /// Live `DailyTotal` at `now`.
    public func liveDailyTotal(at now: Int64) -> Int64 {
        timer.running ? Self.adding(timer.dailyTotal, Self.elapsed(from: timer.updatedAt, to: now)) : timer.dailyTotal
    }

    /// Live `ProjectSessionTime` at `now`.
    public func liveProjectSessionTime(at now: Int64) -> Int64 {
        hasProject
            ? Self.adding(timer.projectSessionTime, Self.elapsed(from: timer.updatedAt, to: now)) : timer.projectSessionTime
    }

    /// Live `ProjectDailyTotal` at `now`.
    public func liveProjectDailyTotal(at now: Int64) -> Int64 {
        hasProject
            ? Self.adding(timer.projectDailyTotal, Self.elapsed(from: timer.updatedAt, to: now)) : timer.projectDailyTotal
    }

    static func elapsed(from start: Int64, to end: Int64) -> Int64 {
        let (difference, overflow) = end.subtractingReportingOverflow(start)
        if overflow { return end > start ? Int64.max : 0 }
        return Swift.max(0, difference)
    }

    static func adding(_ value: Int64, _ elapsed: Int64) -> Int64 {
        let (sum, overflow) = value.addingReportingOverflow(elapsed)
        return overflow ? Int64.max : sum
    }
}

/// What the widget shows, in the words of the CSS classes and the template's `{state}`.
public enum WorkPhase: String, Sendable, Equatable, CaseIterable {
    /// Work runs (with or without a project).
    case running
    /// Work is stopped with time on the stopwatch.
    case paused
    /// Work is stopped and the stopwatch is at zero.
    case idle
    /// The daemon is not on the bus.
    case offline
}

extension WidgetState {
    /// The phase shown. "Time on the stopwatch" means at least one displayed second, so a
    /// stopwatch stopped at 0.4 s reads as idle, matching its `0:00:00`.
    public var phase: WorkPhase {
        if !online { return .offline }
        if timer.running { return .running }
        return timer.sessionTime >= 1_000_000 ? .paused : .idle
    }
}
