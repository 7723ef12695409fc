import BiomaCore
import GRDB

/// The daily work targets `target set` keeps (beating the settings file's, weekday by
/// weekday) and the sums the balance needs. The day whose reached target was last announced
/// is with the other remembered notification state (`StoreDaemonState`).
public struct StoreTargets: StorePart {
    let tracker: Tracker
}

extension StoreTargets {
    /// The stored targets by weekday (`Day.weekday`: 1 Sunday … 7 Saturday), the value that
    /// holds now; a weekday missing takes the settings' value.
    public func storedTargets() throws -> [Int: Micros] {
        try storedTargetHistories().mapValues(\.current)
    }

    /// Each stored weekday's targets by the day they took effect (`TargetHistory`). A row
    /// whose history is missing or unreadable (written by a version before histories, or by
    /// a peer running one) holds its value always; a row whose value a peer changed without
    /// its history holds the new value from the history's last day.
    public func storedTargetHistories() throws -> [Int: TargetHistory] {
        try readOrThrow { db in
            var histories: [Int: TargetHistory] = [:]
            // Read at every publication: one statement, prepared once.
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT weekday, target_us, history FROM work_target")) {
                let target: Micros = row["target_us"]
                var history = (row["history"] as String?).flatMap { TargetHistory(text: $0) } ?? TargetHistory()
                if history.entries.isEmpty {
                    history = TargetHistory(always: target)
                } else if history.current != target {
                    history = history.holding(target)
                }
                histories[row["weekday"]] = history
            }
            return histories
        }
    }

    /// Stores targets for the weekdays given, from `day` on (the days before keep what they
    /// had), in one transaction. Values are checked first (0 … 24 h, weekdays 1 … 7): a bad
    /// one is an `invalidArgument` and nothing changes.
    public func setTargets(_ targets: [Int: Micros], from day: Day) throws {
        for (weekday, value) in targets {
            guard (1...7).contains(weekday), (0...WorkTargets.maximum).contains(value) else {
                throw TrackerError.invalidArgument("A target is 0 to 24 hours; got \(value) µs for weekday \(weekday).")
            }
        }
        let histories = try storedTargetHistories()
        try writeOrThrow { db in
            for (weekday, value) in targets.sorted(by: { $0.key < $1.key }) {
                var history = histories[weekday] ?? TargetHistory()
                history.set(value, from: day)
                try db.execute(
                    sql: """
                        INSERT INTO work_target (weekday, target_us, history) VALUES (?1, ?2, ?3)
                        ON CONFLICT (weekday) DO UPDATE SET target_us = ?2, history = ?3
                        """,
                    arguments: [weekday, value, history.text])
            }
        }
    }

    /// The settings file's targets with the day the daemon first read each value: a weekday
    /// whose value differs from the one last seen (or was never seen) gets it from `day` on,
    /// recorded here (on this device only: the file is this machine's). `settings` holds the
    /// file's values (their entries from always).
    public func configTargets(_ settings: WorkTargets, seenFrom day: Day) throws -> WorkTargets {
        let seen = try readOrThrow { db in
            var seen: [Int: TargetHistory] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT weekday, history FROM config_target_seen") {
                seen[row["weekday"]] = (row["history"] as String?).flatMap { TargetHistory(text: $0) }
            }
            return seen
        }
        var histories: [TargetHistory] = []
        var changed: [Int: TargetHistory] = [:]
        for weekday in 1...7 {
            var history = seen[weekday] ?? TargetHistory()
            let value = settings.byWeekday[weekday - 1]
            if history.current != value {
                history.set(value, from: day)
                changed[weekday] = history
            }
            histories.append(history)
        }
        // A start with the file as last read writes nothing.
        if !changed.isEmpty {
            try writeOrThrow { db in
                for (weekday, history) in changed.sorted(by: { $0.key < $1.key }) {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO config_target_seen (weekday, history) VALUES (?, ?)",
                        arguments: [weekday, history.text])
                }
            }
        }
        return WorkTargets(histories: histories)
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
        if let cache = tracker.workBeforeTodayCache, cache.since == since, cache.until == today {
            before = cache.work
        } else {
            before = try closedWork(from: low, to: today)
            tracker.workBeforeTodayCache = (since, today, before)
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
