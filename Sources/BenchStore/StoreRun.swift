import BiomaCore
import BiomaStore
import Foundation

// The store benchmark proper: ten years of history vs. an empty store (`BenchStore [output-dir]`).

struct Results {
    var changeMedian = 0.0, changeP99 = 0.0, startupFirst = 0.0, startup = 0.0, year = 0.0, all = 0.0
    var backup = 0.0
    var intervals = 0
    var edit = 0.0, undo = 0.0, week = 0.0, reset = 0.0, resetUndo = 0.0
}

/// Generates ~40 intervals a day over `firstDay..<today`, 12 projects and some time with none.
func history(projectIDs: [String]) -> [Interval] {
    var result: [Interval] = []
    result.reserveCapacity(365 * years * 40)
    var day = firstDay
    while day < today {
        let morning = rules.start(of: day) + 7 * 3600 * microsPerSecond
        for slot in 0..<40 {
            let begin = morning + Micros(slot) * 24 * 60 * microsPerSecond
            let length = Micros(10 + (slot * 7 + day.ordinal) % 13) * 60 * microsPerSecond
            let which = (slot + day.ordinal) % 13
            result.append(Interval(start: begin, end: begin + length, projectID: which == 12 ? nil : projectIDs[which]))
        }
        day = day.adding(days: 1)
    }
    return result
}

func run(_ label: String, full: Bool) throws -> Results {
    var results = Results()
    let directory = base.appendingPathComponent(label)
    var now = start
    var ids: [String] = []
    do {
        let tracker = try Tracker(dataDirectory: directory, rules: rules, now: now, bootID: bootID)
        for name in projectNames { ids.append(try tracker.catalog.addProject(name: name, color: "", at: now)) }
        if full {
            let intervals = history(projectIDs: ids)
            let load = try measure { results.intervals = try tracker.history.append(intervals, at: now) }
            print("  \(label): loaded \(results.intervals) intervals in one transaction in \(String(format: "%.0f", load)) ms")
        }
    }
    // Startup: open the store and compute today's totals. The first open of a day also takes
    // the daily backup.
    var opens: [Double] = []
    var tracker: Tracker!
    for index in 0..<6 {
        tracker = nil
        let time = try measure {
            tracker = try Tracker(dataDirectory: directory, rules: rules, now: now, bootID: bootID)
            _ = try tracker.history.snapshot(at: now)
        }
        if index == 0 { results.startupFirst = time } else { opens.append(time) }
    }
    results.startup = median(opens)
    // State changes: 500 alternating toggles and project switches, each one commit.
    var changes: [Double] = []
    for index in 0..<500 {
        now += 1_000_000
        let time = try measure {
            if index % 2 == 0 {
                try tracker.timers.startProject(ids[index % ids.count], at: now)
            } else {
                _ = try tracker.timers.toggle(at: now)
            }
        }
        changes.append(time)
    }
    results.changeMedian = median(changes)
    results.changeP99 = percentile(changes, 0.99)
    // Editing the past, five years back: an add over recorded time (--replace) and its undo,
    // 100 of each, each one commit; and listing a week's intervals. The edited week is
    // recorded in both stores (in the empty one, only that week), so both edits do the same.
    let week = rules.period(.week, containing: today.adding(days: -5 * 365))
    let (weekStart, weekEnd) = (rules.start(of: week.from), rules.start(of: week.to.adding(days: 1)))
    _ = try tracker.history.append(
        history(projectIDs: ids).filter { $0.start >= weekStart && $0.end <= weekEnd }, at: now)
    let past = rules.start(of: today.adding(days: -5 * 365)) + 9 * 3600 * microsPerSecond
    var edits: [Double] = []
    var undos: [Double] = []
    for _ in 0..<100 {
        edits.append(try measure { _ = try tracker.edits.addInterval(start: past, end: past + 1_800_000_000, project: nil, replace: true, at: now) })
        undos.append(try measure { _ = try tracker.edits.undo(at: now) })
    }
    results.edit = median(edits)
    results.undo = median(undos)
    results.week = median(try (0..<20).map { _ in try measure { _ = try tracker.edits.intervals(from: week.from, to: week.to) } })
    results.backup = try measure { try tracker.backups.backup(reason: "bench", at: now) }
    let lastYear = today.adding(days: -365)
    results.year = median(try (0..<5).map { _ in try measure { _ = try tracker.history.report(.year, containing: lastYear, at: now) } })
    results.all = median(try (0..<5).map { _ in try measure { _ = try tracker.history.report(from: firstDay, to: today, at: now) } })
    // Last: reset-history (a backup, then every row journaled in one INSERT … SELECT) and its
    // undo (every row back under its id).
    results.reset = try measure { try tracker.history.reset(at: now) }
    results.resetUndo = try measure { _ = try tracker.edits.undo(at: now) }
    return results
}
