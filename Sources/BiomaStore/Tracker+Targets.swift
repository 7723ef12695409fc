import BiomaCore
import GRDB

/// The daily work targets `target set` keeps (beating the settings file's, weekday by
/// weekday) and the sums the balance needs. The day whose reached target was last announced
/// is with the other remembered notification state (Tracker+DaemonState.swift).
extension Tracker {
    /// The stored targets by weekday (`Day.weekday`: 1 Sunday … 7 Saturday); a weekday
    /// missing takes the settings' value.
    public func storedTargets() throws -> [Int: Micros] {
        try readOrThrow { db in
            var targets: [Int: Micros] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT weekday, target_us FROM work_target") {
                targets[row["weekday"]] = row["target_us"]
            }
            return targets
        }
    }

    /// Stores targets for the weekdays given, in one transaction. Values are checked first
    /// (0 … 24 h, weekdays 1 … 7): a bad one is an `invalidArgument` and nothing changes.
    public func setTargets(_ targets: [Int: Micros]) throws {
        for (weekday, value) in targets {
            guard (1...7).contains(weekday), (0...WorkTargets.maximum).contains(value) else {
                throw TrackerError.invalidArgument("A target is 0 to 24 hours; got \(value) µs for weekday \(weekday).")
            }
        }
        try writeOrThrow { db in
            for (weekday, value) in targets.sorted(by: { $0.key < $1.key }) {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO work_target (weekday, target_us) VALUES (?, ?)",
                    arguments: [weekday, value])
            }
        }
    }

    /// The first day with recorded work (the running interval's when nothing is closed), nil
    /// when there is none.
    public func firstRecordedDay() throws -> Day? {
        // The first to end is the first to start: intervals never overlap.
        let first = try readOrThrow {
            try Int64.fetchOne($0.cachedStatement(sql: Tracker.firstStartSQL))
        }
        guard let start = [first, model.state.open?.start].compactMap({ $0 }).min() else { return nil }
        return rules.day(containing: start)
    }

    /// All work from the start of `since` to `now`, the running interval counted up to `now`:
    /// a sum in SQL (intervals never overlap); the part before today is kept until the next
    /// change, so a publication sums only today's intervals.
    public func workTotal(since: Day, at now: Micros) throws -> Micros {
        let low = rules.start(of: since)
        guard low < now else { return 0 }
        let today = max(low, min(now, rules.start(of: rules.day(containing: now))))
        let before: Micros
        if let cache = workBeforeTodayCache, cache.since == since, cache.until == today {
            before = cache.work
        } else {
            before = try closedWork(from: low, to: today)
            workBeforeTodayCache = (since, today, before)
        }
        var total = try before + closedWork(from: today, to: now)
        if let open = model.state.open, now > open.start { total += now - max(open.start, low) }
        return total
    }

    /// Closed work inside `[low, high)`.
    private func closedWork(from low: Micros, to high: Micros) throws -> Micros {
        guard low < high else { return 0 }
        return try readOrThrow { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT COALESCE(SUM(MIN(end_us, ?2) - MAX(start_us, ?1)), 0) FROM interval
                    WHERE end_us IS NOT NULL AND end_us > ?1 AND start_us < ?2
                    """, arguments: [low, high]) ?? 0
        }
    }
}
