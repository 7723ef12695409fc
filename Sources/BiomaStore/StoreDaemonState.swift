import BiomaCore
import GRDB

/// An absence as the daemon follows it: why, since when, and the work removed for it so far.
public struct AwayRecord: Sendable, Equatable {
    public var reason: AwayReason
    public var since: Micros
    public var removed: Interval?

    public init(reason: AwayReason, since: Micros, removed: Interval?) {
        (self.reason, self.since, self.removed) = (reason, since, removed)
    }
}

/// What the daemon must remember across a restart beside the timers (`away_state`,
/// `shown_notification`): each write is one transaction, each read is at start.
public struct StoreDaemonState: StorePart {
    let tracker: Tracker
}

extension StoreDaemonState {
    /// The absence in progress and the last removed away time (`KeepAway`'s), as saved.
    public func savedAway() throws -> (current: AwayRecord?, lastRemoved: Interval?) {
        try readOrThrow { db in
            var current: AwayRecord?
            var last: Interval?
            for row in try Row.fetchAll(db, sql: "SELECT * FROM away_state") {
                var removed: Interval?
                if let start: Int64 = row["removed_start_us"], let end: Int64 = row["removed_end_us"] {
                    removed = Interval(start: start, end: end, projectID: row["removed_project_id"])
                }
                switch row["slot"] as String {
                case "current":
                    guard let text: String = row["reason"], let reason = AwayReason(rawValue: text),
                        let since: Int64 = row["since_us"]
                    else { continue }
                    current = AwayRecord(reason: reason, since: since, removed: removed)
                case "last_removed": last = removed
                default: break
                }
            }
            return (current, last)
        }
    }

    /// Saves the absence in progress (nil: none) and the last removed away time (nil: none).
    public func saveAway(current: AwayRecord?, lastRemoved: Interval?) throws {
        try writeOrThrow { db in
            try db.execute(sql: "DELETE FROM away_state")
            if let current {
                try db.execute(
                    sql: """
                        INSERT INTO away_state (slot, reason, since_us, removed_start_us, removed_end_us, removed_project_id)
                        VALUES ('current', ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        current.reason.rawValue, current.since, current.removed?.start, current.removed?.end,
                        current.removed?.projectID,
                    ])
            }
            if let lastRemoved {
                try db.execute(
                    sql: """
                        INSERT INTO away_state (slot, removed_start_us, removed_end_us, removed_project_id)
                        VALUES ('last_removed', ?, ?, ?)
                        """,
                    arguments: [lastRemoved.start, lastRemoved.end, lastRemoved.projectID])
            }
        }
    }

    /// The ids of the notifications shown, by owner (`away`, `focus`, `task:ID`).
    public func shownNotifications() throws -> [String: UInt32] {
        try readOrThrow { db in
            var ids: [String: UInt32] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT owner, notification_id FROM shown_notification") {
                let id: Int64 = row["notification_id"]
                ids[row["owner"]] = UInt32(clamping: id)
            }
            return ids
        }
    }

    /// Records the notification `owner` shows now, or forgets it (nil or 0).
    public func saveShownNotification(_ id: UInt32?, for owner: String) throws {
        try writeOrThrow { db in
            if let id, id > 0 {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO shown_notification (owner, notification_id) VALUES (?, ?)",
                    arguments: [owner, Int64(id)])
            } else {
                try db.execute(sql: "DELETE FROM shown_notification WHERE owner = ?", arguments: [owner])
            }
        }
    }
}

/// The daily target's notice (`target_announced`, `v8-targets`): once a day, also across a restart.
extension StoreDaemonState {
    /// The last day whose reached target was announced (nil: none yet).
    public func targetAnnouncedDay() throws -> Day? {
        try readOrThrow { db in
            try String.fetchOne(db, sql: "SELECT day FROM target_announced WHERE id = 1").flatMap(Day.init)
        }
    }

    public func saveTargetAnnounced(_ day: Day) throws {
        try writeOrThrow { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO target_announced (id, day) VALUES (1, ?)", arguments: [day.description])
        }
    }
}
