import BiomaCore
import Foundation
@_exported import TestSupport

/// The history a store would hold, kept in memory by applying the same segment changes.
struct MemoryHistory {
    var closed: [Interval] = []
    var open: OpenSegment?

    mutating func apply(_ changes: [SegmentChange]) {
        for change in changes {
            switch change {
            case .close(let end):
                if let open, end > open.start {
                    closed.append(Interval(start: open.start, end: end, projectID: open.projectID))
                }
                open = nil
            case .open(let segment): open = segment
            case .discardOpen: open = nil
            case .reassignOpen(let projectID): open?.projectID = projectID
            }
        }
    }

    /// Closed intervals plus the open one up to `now`.
    func intervals(at now: Micros) -> [Interval] {
        var all = closed
        if let open, now > open.start { all.append(Interval(start: open.start, end: now, projectID: open.projectID)) }
        return all
    }
}

/// The core rules with an in-memory history, driven like the store drives them.
struct Harness {
    var rules: DayRules
    var state = WorkTimer()
    var history = MemoryHistory()
    var projects: [Project] = []

    init(rules: DayRules, projects: [String] = ["a", "b", "c"]) {
        self.rules = rules
        self.projects = projects.enumerated().map {
            Project(id: $0.element, name: $0.element.uppercased(), color: "#112233", position: $0.offset)
        }
    }

    mutating func start(_ now: Micros) { history.apply(state.start(at: now, rules: rules)) }
    mutating func stop(_ now: Micros) { history.apply(state.stop(at: now)) }
    mutating func reset(_ now: Micros) { history.apply(state.reset(at: now)) }
    mutating func startProject(_ id: String, _ now: Micros, shortInterval: Micros = 0) {
        history.apply(state.startProject(id, at: now, rules: rules, shortInterval: shortInterval))
    }
    mutating func stopProject(_ now: Micros) { history.apply(state.stopProject(at: now)) }

    func snapshot(_ now: Micros) -> TrackerSnapshot {
        TrackerSnapshot(
            state: state, projects: projects, closedIntervalsOfToday: history.closed, rules: rules, now: now)
    }

    func report(_ from: Day, _ to: Day, at now: Micros) -> Report {
        Report(
            from: from, to: to, boundaries: rules.boundaries(from: from, to: to),
            intervals: history.intervals(at: now), projects: projects)
    }
}
