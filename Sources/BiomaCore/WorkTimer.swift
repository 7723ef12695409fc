/// The interval being recorded while work runs: from `start` until now, under a project or none.
public struct OpenSegment: Sendable, Equatable {
    public var start: Micros
    public var projectID: String?

    public init(start: Micros, projectID: String?) {
        self.start = start
        self.projectID = projectID
    }
}

/// A recorded stretch of work under one project (or none). Intervals never overlap; work time is
/// the union of all intervals, a project's time those with its id.
public struct Interval: Sendable, Equatable, Hashable {
    public var start: Micros
    public var end: Micros
    public var projectID: String?

    public init(start: Micros, end: Micros, projectID: String?) {
        (self.start, self.end, self.projectID) = (start, end, projectID)
    }
}

/// What a state change does to the recorded history; the store applies these in the same
/// transaction as the new state.
public enum SegmentChange: Sendable, Equatable {
    /// Close the open segment at this instant (a zero-length segment is dropped instead).
    case close(end: Micros)
    /// Begin recording a new segment.
    case open(OpenSegment)
    /// Delete the open segment: its time is deleted with its project (or the history).
    case discardOpen
    /// The open segment goes on under another project (nil: none), from its own start: a
    /// switch away from it came within the short interval, so it is not recorded apart.
    case reassignOpen(projectID: String?)
}

/// The work and project stopwatches: pure rules, with the clock and day rules passed in.
///
/// Invariants: `open != nil` exactly when work runs; `workRunStart` is set exactly then;
/// `projectRunStart` is set exactly when `open?.projectID` is. Instants earlier than the last
/// change (a clock stepped backwards) are treated as the last change, so no duration is negative.
public struct WorkTimer: Sendable, Equatable {
    public var open: OpenSegment?
    /// Work stopwatch value accumulated before the current run.
    public var workSession: Micros = 0
    public var workRunStart: Micros?
    /// Project stopwatch values accumulated before the current run (missing = 0).
    public var projectSessions: [String: Micros] = [:]
    public var projectRunStart: Micros?
    /// The project that was running when work stopped; resumed by the next start in the session.
    public var resumeProject: String?
    /// The last instant the session ran (nil: no session since the last reset).
    public var sessionLastActive: Micros?
    public var lastChange: Micros = 0

    public init() {}

    public var running: Bool { open != nil }
    public var activeProject: String? { open?.projectID }

    public func workSessionTime(at now: Micros) -> Micros {
        workSession + (workRunStart.map { max(0, now - $0) } ?? 0)
    }

    public func projectSessionTime(_ id: String, at now: Micros) -> Micros {
        let base = projectSessions[id] ?? 0
        guard open?.projectID == id, let since = projectRunStart else { return base }
        return base + max(0, now - since)
    }

    // MARK: Operations. Each returns the history changes to apply; [] means nothing changed.

    /// Starts or resumes work, and the project that was running when it stopped. The first start
    /// on a later day than the session's last activity begins a fresh session.
    public mutating func start(at now: Micros, rules: DayRules) -> [SegmentChange] {
        guard open == nil else { return [] }
        return begin(project: nil, at: clamp(now), rules: rules)
    }

    /// Pauses work and the running project (which the next start resumes).
    public mutating func stop(at now: Micros) -> [SegmentChange] {
        guard let segment = open, let runStart = workRunStart else { return [] }
        let now = clamp(now)
        workSession += now - runStart
        if let project = segment.projectID {
            addProjectSession(project, now - (projectRunStart ?? segment.start))
        }
        resumeProject = segment.projectID
        open = nil
        workRunStart = nil
        projectRunStart = nil
        sessionLastActive = now
        lastChange = now
        return [.close(end: now)]
    }

    /// Stops and zeroes the work session and every project session.
    public mutating func reset(at now: Micros) -> [SegmentChange] {
        let now = clamp(now)
        let changes = stop(at: now)
        workSession = 0
        projectSessions = [:]
        resumeProject = nil
        sessionLastActive = nil
        lastChange = now
        return changes
    }

    /// Runs `project`: stops the running one at the same instant, starts work if stopped.
    /// `shortInterval`: a segment switched away from sooner than this after its start is not
    /// recorded apart; it goes on under `project` from its own start (see `switchProject`).
    public mutating func startProject(_ project: String, at now: Micros, rules: DayRules, shortInterval: Micros = 0)
        -> [SegmentChange]
    {
        let now = clamp(now)
        guard let segment = open else { return begin(project: project, at: now, rules: rules) }
        if segment.projectID == project { return [] }
        return switchProject(of: segment, to: project, at: now, shortInterval: shortInterval)
    }

    /// Stops the running project; work goes on with no project.
    public mutating func stopProject(at now: Micros, shortInterval: Micros = 0) -> [SegmentChange] {
        guard let segment = open, segment.projectID != nil else { return [] }
        return switchProject(of: segment, to: nil, at: clamp(now), shortInterval: shortInterval)
    }

    /// Ends the open segment at `now` (adding the running project's run to its session) and
    /// opens the next one with `project` (nil: work without one). A segment left sooner than
    /// `shortInterval` after its start (three quick `project next` over a bar) is not recorded
    /// apart: it goes on under `project` from its own start, so its seconds go to the project
    /// that stays and the one left gets none of them.
    private mutating func switchProject(of segment: OpenSegment, to project: String?, at now: Micros, shortInterval: Micros)
        -> [SegmentChange]
    {
        if now - segment.start < shortInterval {
            open = OpenSegment(start: segment.start, projectID: project)
            projectRunStart = project == nil ? nil : segment.start
            lastChange = now
            return [.reassignOpen(projectID: project)]
        }
        if let previous = segment.projectID {
            addProjectSession(previous, now - (projectRunStart ?? segment.start))
        }
        let next = OpenSegment(start: now, projectID: project)
        open = next
        projectRunStart = project == nil ? nil : now
        lastChange = now
        return [.close(end: now), .open(next)]
    }

    /// Zeroes one project's session (it keeps running if it runs).
    public mutating func resetProject(_ project: String, at now: Micros) {
        let now = clamp(now)
        projectSessions[project] = nil
        if open?.projectID == project { projectRunStart = now }
        lastChange = now
    }

    /// The project deleted with its recorded time: a running segment of it is discarded and work
    /// goes on with no project.
    public mutating func deleteProject(_ project: String, at now: Micros) -> [SegmentChange] {
        let now = clamp(now)
        projectSessions[project] = nil
        if resumeProject == project { resumeProject = nil }
        lastChange = now
        guard open?.projectID == project else { return [] }
        let next = OpenSegment(start: now, projectID: nil)
        open = next
        projectRunStart = nil
        return [.discardOpen, .open(next)]
    }

    /// All recorded time deleted: a running segment restarts at `now` under the same project.
    /// The stopwatches are not history and keep their values.
    public mutating func resetHistory(at now: Micros) -> [SegmentChange] {
        let now = clamp(now)
        lastChange = now
        guard let segment = open else { return [] }
        let next = OpenSegment(start: now, projectID: segment.projectID)
        open = next
        return [.discardOpen, .open(next)]
    }

    /// Another device changed what runs (sync merged its operations; the history is already
    /// written): `new` is the open interval now, nil when none runs, and `stoppedAt` where the
    /// one that ran here ended. The stopwatches follow as if the change had been made here: a
    /// stopped run is added to the sessions, a started one runs from its start (or from the
    /// last change, if that is later).
    public mutating func follow(open new: OpenSegment?, stoppedAt: Micros?, rules: DayRules) {
        guard new != open else { return }
        if let current = open, let new, new.start == current.start {
            // The same run, its project edited on the other device: the stopwatches keep theirs.
            open = new
            projectRunStart = new.projectID == nil ? nil : (projectRunStart ?? workRunStart)
            return
        }
        if open != nil { _ = stop(at: stoppedAt ?? lastChange) }
        guard let new else { return }
        _ = begin(project: nil, at: clamp(new.start), rules: rules)
        open = new
        projectRunStart = new.projectID == nil ? nil : workRunStart
    }

    /// The project `step` places after the running one in `order`, wrapping; with none running,
    /// +1 is the first and −1 the last. Nil when `order` is empty or `step` is 0.
    public func cycleTarget(step: Int, order: [String]) -> String? {
        guard !order.isEmpty, step != 0 else { return nil }
        let count = order.count
        let index: Int
        if let active = activeProject, let current = order.firstIndex(of: active) {
            index = current + step
        } else {
            index = step > 0 ? step - 1 : count + step
        }
        return order[((index % count) + count) % count]
    }

    // MARK: -

    private func clamp(_ now: Micros) -> Micros { max(now, lastChange) }

    /// Adds to a project's session; a session at zero has no entry (missing means 0), as the
    /// store loads it, so a state and its reloaded copy are equal.
    mutating func addProjectSession(_ project: String, _ duration: Micros) {
        let total = (projectSessions[project] ?? 0) + duration
        projectSessions[project] = total == 0 ? nil : total
    }

    private mutating func begin(project explicit: String?, at now: Micros, rules: DayRules)
        -> [SegmentChange]
    {
        if let last = sessionLastActive, rules.day(containing: now) > rules.day(containing: last) {
            workSession = 0
            projectSessions = [:]
            resumeProject = nil
        }
        let project = explicit ?? resumeProject
        resumeProject = nil
        let next = OpenSegment(start: now, projectID: project)
        open = next
        workRunStart = now
        projectRunStart = project == nil ? nil : now
        sessionLastActive = now
        lastChange = now
        return [.open(next)]
    }
}
