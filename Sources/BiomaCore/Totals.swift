/// A project's stopwatch and today's total.
public struct ProjectTimes: Sendable, Equatable {
    public var session: Micros
    public var dailyTotal: Micros
    public var running: Bool
}

/// Everything a status bar shows, valid at `updatedAt`.
public struct TrackerSnapshot: Sendable, Equatable {
    public var running: Bool
    public var updatedAt: Micros
    public var sessionTime: Micros
    public var dailyTotal: Micros
    public var day: Day
    public var activeProject: Project?
    public var projectSessionTime: Micros
    public var projectDailyTotal: Micros
    /// In list order.
    public var projects: [Project]
    /// By project id, for every project.
    public var projectTimes: [String: ProjectTimes]
    /// The instant the current day ends.
    public var nextDayBoundary: Micros

    /// Assembles the snapshot from the stopwatches and the closed intervals overlapping the day
    /// that contains `now` (others are ignored; parts outside the day are clipped).
    public init(
        state: WorkTimer, projects: [Project], closedIntervalsOfToday: [Interval], rules: DayRules,
        now: Micros
    ) {
        let today = rules.day(containing: now)
        let (dayStart, dayEnd) = rules.bounds(of: today)
        var totals = DayTotals()
        for interval in closedIntervalsOfToday {
            totals.add(interval.start, interval.end, interval.projectID, within: dayStart, dayEnd)
        }
        if let open = state.open {
            totals.add(open.start, max(open.start, now), open.projectID, within: dayStart, dayEnd)
        }
        self.running = state.running
        self.updatedAt = now
        self.sessionTime = state.workSessionTime(at: now)
        self.dailyTotal = totals.work
        (self.day, self.projects, self.nextDayBoundary) = (today, projects, dayEnd)
        var times: [String: ProjectTimes] = [:]
        for project in projects {
            times[project.id] = ProjectTimes(
                session: state.projectSessionTime(project.id, at: now),
                dailyTotal: totals.byProject[project.id] ?? 0,
                running: state.activeProject == project.id)
        }
        self.projectTimes = times
        let active = state.activeProject.flatMap { id in projects.first { $0.id == id } }
        self.activeProject = active
        self.projectSessionTime = active.map { times[$0.id]?.session ?? 0 } ?? 0
        self.projectDailyTotal = active.map { times[$0.id]?.dailyTotal ?? 0 } ?? 0
    }
}

/// Work and per-project time clipped to a window.
public struct DayTotals: Sendable, Equatable {
    public var work: Micros = 0
    public var noProject: Micros = 0
    public var byProject: [String: Micros] = [:]

    public init() {}

    public mutating func add(
        _ start: Micros, _ end: Micros, _ project: String?, within low: Micros, _ high: Micros
    ) {
        let length = min(end, high) - max(start, low)
        guard length > 0 else { return }
        work += length
        if let project { byProject[project, default: 0] += length } else { noProject += length }
    }
}

public struct ProjectTotal: Sendable, Equatable {
    public var id: String
    public var name: String
    public var color: String
    public var total: Micros
    /// Share of the work total, 0…100.
    public var percent: Double
    /// Focus work phases and rounds completed under the project.
    public var completed = 0

    public init(id: String, name: String, color: String, total: Micros, percent: Double) {
        (self.id, self.name, self.color, self.total) = (id, name, color, total)
        self.percent = percent
    }
}

extension ProjectTotal {
    /// The projects of `totals` in legend order, as reports and the picture of the day show
    /// them: largest total first, ties in list order; each with its name, colour and share of
    /// the work.
    public static func ranked(_ totals: DayTotals, projects: [Project]) -> [ProjectTotal] {
        let work = totals.work
        let byId = Dictionary(projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return totals.byProject.map { id, total in
            let project = byId[id]
            return ProjectTotal(
                id: id, name: project?.name ?? id, color: project?.color ?? Project.defaultColor,
                total: total, percent: work > 0 ? Double(total) * 100 / Double(work) : 0)
        }
        .sorted {
            if $0.total != $1.total { return $0.total > $1.total }
            return (byId[$0.id]?.position ?? .max, $0.id) < (byId[$1.id]?.position ?? .max, $1.id)
        }
    }
}

public struct DayTotal: Sendable, Equatable {
    public var day: Day
    public var workTotal: Micros
    /// Focus work phases (pomodoros) and rounds completed that day.
    public var focusCompleted = 0
    /// Time in focus phases (work, countdown, active) that day.
    public var focusTime: Micros = 0
}

/// Work over a range of days (inclusive), every interval split at the day boundaries.
public struct Report: Sendable, Equatable {
    public var from: Day
    public var to: Day
    public var workTotal: Micros
    public var noProjectTotal: Micros
    /// Projects with time in the range, largest total first (ties in list order).
    public var projects: [ProjectTotal]
    /// Every day of the range, in order.
    public var days: [DayTotal]
}

extension Report {
    /// Aggregates `intervals` (any order; the running one already closed at "now") over the
    /// days `from...to`, whose starts (and the end of `to`) are `boundaries`.
    public init(
        from: Day, to: Day, boundaries: [Micros], intervals: [Interval], projects: [Project]
    ) {
        precondition(boundaries.count == to.ordinal - from.ordinal + 2)
        var perDay = [Micros](repeating: 0, count: boundaries.count - 1)
        var totals = DayTotals()
        let low = boundaries.first!
        let high = boundaries.last!
        for interval in intervals {
            let start = max(interval.start, low)
            let end = min(interval.end, high)
            guard end > start else { continue }
            totals.add(start, end, interval.projectID, within: low, high)
            // The last boundary at or before `start`, by binary search.
            var lo = 0
            var hi = perDay.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if boundaries[mid] <= start { lo = mid } else { hi = mid - 1 }
            }
            var index = lo
            var cursor = start
            while cursor < end {
                let cut = min(end, boundaries[index + 1])
                perDay[index] += cut - cursor
                cursor = cut
                index += 1
            }
        }
        self.init(
            from: from, to: to, workTotal: totals.work, noProjectTotal: totals.noProject,
            projects: ProjectTotal.ranked(totals, projects: projects),
            days: perDay.enumerated().map { DayTotal(day: from.adding(days: $0.offset), workTotal: $0.element) })
    }
}

extension Report {
    /// Adds the focus history's counts: per day, and per project for projects in the report.
    public mutating func add(_ focus: FocusTotals) {
        for index in days.indices where index < focus.completed.count {
            days[index].focusCompleted = focus.completed[index]
            days[index].focusTime = focus.focusTime[index]
        }
        for index in projects.indices { projects[index].completed = focus.completedByProject[projects[index].id] ?? 0 }
    }
}
