import BiomaCore
import GRDB

/// Recorded time read: today's state, a range's intervals, reports, and an iCalendar file.
extension StoreHistory {
    /// The state at `now`. A failed read of today's intervals is a `storage` error, never an
    /// empty day.
    public func snapshot(at now: Micros) throws -> TrackerSnapshot {
        let today = rules.day(containing: now)
        let closed: [Interval]
        if let cache = tracker.todayCache, cache.day == today {
            closed = cache.closed
        } else {
            let (low, high) = rules.bounds(of: today)
            closed = try readOrThrow { try Tracker.closedIntervals($0, overlapping: low, high) }
            tracker.todayCache = (today, closed)
        }
        return TrackerSnapshot(
            state: model.state, projects: model.projects, closedIntervalsOfToday: closed, rules: rules, now: now)
    }

    public func report(_ period: ReportPeriod, containing day: Day?, at now: Micros) throws -> Report {
        let range = rules.period(period, containing: day ?? rules.day(containing: now))
        return try report(from: range.from, to: range.to, at: now)
    }

    public func report(from: Day, to: Day, at now: Micros) throws -> Report {
        guard from <= to else {
            throw TrackerError.invalidArgument("The report range starts (\(from)) after it ends (\(to)).")
        }
        guard to.ordinal - from.ordinal < 366 * 200 else {
            throw TrackerError.invalidArgument("A report covers at most 200 years.")
        }
        let boundaries = rules.boundaries(from: from, to: to)
        var report = Report(
            from: from, to: to, boundaries: boundaries, intervals: try intervals(from: from, to: to, at: now),
            projects: model.projects)
        let focus = try readOrThrow {
            try StoreFocus.focusRecords($0, overlapping: boundaries.first!, boundaries.last!)
        }
        report.add(FocusTotals(focus, boundaries: boundaries))
        return report
    }

    /// The intervals overlapping the days `from...to` (not clipped), in order, the running one
    /// last and closed at `now` (left out before it has lasted any time).
    public func intervals(from: Day, to: Day, at now: Micros) throws -> [Interval] {
        guard from <= to else {
            throw TrackerError.invalidArgument("The range starts (\(from)) after it ends (\(to)).")
        }
        let (low, high) = (rules.start(of: from), rules.start(of: to.adding(days: 1)))
        var intervals = try readOrThrow { try Tracker.closedIntervals($0, overlapping: low, high) }
        if let open = model.state.open, now > open.start, open.start < high, now > low {
            intervals.append(Interval(start: open.start, end: now, projectID: open.projectID))
        }
        return intervals
    }

    /// The intervals overlapping the days `from...to` (nil: unbounded) as RFC 5545 text, one
    /// VEVENT each (the running one left out until it stops); `now` is the DTSTAMP.
    public func exportICS(from: Day?, to: Day?, at now: Micros) throws -> String {
        if let from, let to, from > to {
            throw TrackerError.invalidArgument("The export range starts (\(from)) after it ends (\(to)).")
        }
        let low = from.map(rules.start(of:)) ?? .min
        let high = to.map { rules.start(of: $0.adding(days: 1)) } ?? .max
        // The running interval is left out until it stops, as in the CSV export: one rule for
        // every export, so that an export imported again is exact.
        let rows = try readOrThrow { try IntervalRows.rows($0, overlapping: low, high) }.filter { $0.end != nil }
        let names = Dictionary(model.projects.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let events = ICalendar.events(rows: rows, projectName: { names[$0] }, now: now)
        return ICalendar.encode(events, stamp: now, name: "biomatimer")
    }
}
