// The timer state a renderer displays: the properties of /org/biomatimer/Timer1
// (see dbus-api.md) as one value, plus whether the daemon is there at all.

/// A snapshot of the daemon's published state. The time values hold at `updatedAt`;
/// `advanced(to:)` gives the live values at another instant, as the D-Bus contract says.
public struct WidgetState: Sendable, Equatable {
    /// The daemon owns its bus name. When false every other field is meaningless.
    public var online: Bool
    /// `Running`: the work timer is running.
    public var running: Bool
    /// `UpdatedAt`: µs since the Unix epoch at which the time values below hold.
    public var updatedAt: Int64
    /// `SessionTime`: the work stopwatch, µs.
    public var sessionTime: Int64
    /// `DailyTotal`: work time in the current day, µs.
    public var dailyTotal: Int64
    /// `Day`: the current day, `YYYY-MM-DD`.
    public var day: String
    /// `ActiveProject`: the running project's id, `""` when none.
    public var activeProject: String
    /// `ActiveProjectName`: its name, `""` when none.
    public var activeProjectName: String
    /// `ActiveProjectColor`: `#RRGGBB`, `""` when none.
    public var activeProjectColor: String
    /// `ProjectSessionTime`: the running project's session value, µs.
    public var projectSessionTime: Int64
    /// `ProjectDailyTotal`: the running project's time today, µs.
    public var projectDailyTotal: Int64

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
        self.online = online
        self.running = running
        self.updatedAt = updatedAt
        self.sessionTime = sessionTime
        self.dailyTotal = dailyTotal
        self.day = day
        self.activeProject = activeProject
        self.activeProjectName = activeProjectName
        self.activeProjectColor = activeProjectColor
        self.projectSessionTime = projectSessionTime
        self.projectDailyTotal = projectDailyTotal
    }

    /// The daemon is not on the bus.
    public static let offline = WidgetState(online: false)

    /// Whether a project is running (the contract's "ActiveProject is not empty").
    public var hasProject: Bool { !activeProject.isEmpty }

    /// Whether any displayed value moves with the clock: the work values while `running`,
    /// the project values while a project is active. Offline states never move.
    public var isTicking: Bool { online && (running || hasProject) }

    /// The state with its live values at `now`: `value + (now − updatedAt)` for the work
    /// values while running and for the project values while a project is active, and
    /// `updatedAt = now`. A `now` before `updatedAt` (a clock step back) counts as no time,
    /// so a display never shows less than the daemon published.
    public func advanced(to now: Int64) -> WidgetState {
        guard online else { return self }
        let elapsed = Self.elapsed(from: updatedAt, to: now)
        var live = self
        live.updatedAt = Swift.max(now, updatedAt)
        if running {
            live.sessionTime = Self.adding(sessionTime, elapsed)
            live.dailyTotal = Self.adding(dailyTotal, elapsed)
        }
        if hasProject {
            live.projectSessionTime = Self.adding(projectSessionTime, elapsed)
            live.projectDailyTotal = Self.adding(projectDailyTotal, elapsed)
        }
        return live
    }

    /// Live `SessionTime` at `now`.
    public func liveSessionTime(at now: Int64) -> Int64 {
        running ? Self.adding(sessionTime, Self.elapsed(from: updatedAt, to: now)) : sessionTime
    }

    /// Live `DailyTotal` at `now`.
    public func liveDailyTotal(at now: Int64) -> Int64 {
        running ? Self.adding(dailyTotal, Self.elapsed(from: updatedAt, to: now)) : dailyTotal
    }

    /// Live `ProjectSessionTime` at `now`.
    public func liveProjectSessionTime(at now: Int64) -> Int64 {
        hasProject
            ? Self.adding(projectSessionTime, Self.elapsed(from: updatedAt, to: now)) : projectSessionTime
    }

    /// Live `ProjectDailyTotal` at `now`.
    public func liveProjectDailyTotal(at now: Int64) -> Int64 {
        hasProject
            ? Self.adding(projectDailyTotal, Self.elapsed(from: updatedAt, to: now)) : projectDailyTotal
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
public enum TimerPhase: String, Sendable, Equatable, CaseIterable {
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
    public var phase: TimerPhase {
        if !online { return .offline }
        if running { return .running }
        return sessionTime >= 1_000_000 ? .paused : .idle
    }
}
