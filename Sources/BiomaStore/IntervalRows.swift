import BiomaCore
import GRDB

/// The `interval` table's rows as edits read and write them: by id, overlapping a range
/// (bounded index ranges on start and end), the running one, the next id, a plan's changes.
enum IntervalRows {
    static let rowSQL = "SELECT id, start_us, end_us, project_id, note, tags FROM interval"

    static func intervalRow(_ row: Row) -> IntervalRow {
        IntervalRow(id: row[0], start: row[1], end: row[2], projectID: row[3], note: row[4], tags: row[5])
    }

    static func row(_ db: Database, id: Int64) throws -> IntervalRow? {
        try Row.fetchOne(db.cachedStatement(sql: rowSQL + " WHERE id = ?"), arguments: [id]).map(intervalRow)
    }

    /// The running interval's row, if one runs.
    static func runningRow(_ db: Database) throws -> IntervalRow? {
        try Row.fetchOne(db.cachedStatement(sql: rowSQL + " WHERE end_us IS NULL")).map(intervalRow)
    }

    /// The running interval's row, or an `invalidArgument` that none runs: "start the timer
    /// first, or" `instead` (what to do for a recorded interval).
    static func runningRow(_ db: Database, orElse instead: String) throws -> IntervalRow {
        guard let open = try runningRow(db) else {
            throw TrackerError.invalidArgument("No interval is running: start the timer first, or \(instead).")
        }
        return open
    }

    /// Every row overlapping [low, high), the running one included, by start: rows ending in
    /// (low, high], at most one ending later, and the running one: bounded index ranges.
    static func rows(_ db: Database, overlapping low: Micros, _ high: Micros) throws -> [IntervalRow] {
        var result: [IntervalRow] = []
        let cursor = try Row.fetchCursor(
            db.cachedStatement(sql: rowSQL + " WHERE end_us > ? AND end_us <= ? ORDER BY end_us"), arguments: [low, high])
        while let row = try cursor.next() {
            let interval = intervalRow(row)
            if interval.start < high { result.append(interval) }
        }
        if high < .max,
            let row = try Row.fetchOne(
                db.cachedStatement(sql: rowSQL + " WHERE end_us > ? ORDER BY end_us LIMIT 1"), arguments: [high])
        {
            let interval = intervalRow(row)
            if interval.start < high { result.append(interval) }
        }
        if let open = try runningRow(db), open.start < high { result.append(open) }
        return result.sorted { $0.start < $1.start }
    }

    /// The id the next inserted row gets (ids are never reused: AUTOINCREMENT).
    static func nextID(_ db: Database) throws -> Int64 {
        let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'interval'") ?? 0
        let highest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM interval") ?? 0
        return max(seq, highest) + 1
    }

    static func applyRows(_ changes: [RowChange], _ db: Database) throws {
        for change in changes {
            if let after = change.after {
                let sql =
                    change.before == nil
                    ? "INSERT INTO interval (start_us, end_us, project_id, note, tags, id) VALUES (?, ?, ?, ?, ?, ?)"
                    : "UPDATE interval SET start_us = ?, end_us = ?, project_id = ?, note = ?, tags = ? WHERE id = ?"
                try db.cachedStatement(sql: sql).execute(arguments: [
                    after.start, after.end, after.projectID, after.note, after.tags, change.id,
                ])
            } else {
                try db.cachedStatement(sql: "DELETE FROM interval WHERE id = ?").execute(arguments: [change.id])
            }
        }
    }
}
