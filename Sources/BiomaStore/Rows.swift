import BiomaCore
import Foundation
import GRDB

/// The SQL behind the tracker: interval changes, the stopwatch row, projects, loading.
extension Tracker {
    static func apply(_ changes: [SegmentChange], openBefore: OpenSegment?, _ db: Database) throws {
        var open = openBefore
        for change in changes {
            switch change {
            case .close(let end):
                if let segment = open, end > segment.start {
                    try db.cachedStatement(sql: "UPDATE interval SET end_us = ? WHERE end_us IS NULL")
                        .execute(arguments: [end])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM interval WHERE end_us IS NULL").execute()
                }
                open = nil
            case .open(let segment):
                try db.cachedStatement(
                    sql: "INSERT INTO interval (start_us, end_us, project_id) VALUES (?, NULL, ?)"
                ).execute(arguments: [segment.start, segment.projectID])
                open = segment
            case .discardOpen:
                try db.cachedStatement(sql: "DELETE FROM interval WHERE end_us IS NULL").execute()
                open = nil
            case .reassignOpen(let projectID):
                try db.cachedStatement(sql: "UPDATE interval SET project_id = ? WHERE end_us IS NULL")
                    .execute(arguments: [projectID])
                open?.projectID = projectID
            }
        }
    }

    static func persist(before: Model, after: Model, bootID: String, now: Micros, _ db: Database) throws {
        let s = after.state
        try db.cachedStatement(
            sql: """
                UPDATE timer_state SET work_session_us = ?, work_run_start_us = ?,
                    project_run_start_us = ?, resume_project_id = ?, session_last_active_us = ?,
                    last_change_us = ?, heartbeat_us = ?, boot_id = ? WHERE id = 1
                """
        ).execute(arguments: [
            s.workSession, s.workRunStart, s.projectRunStart, s.resumeProject, s.sessionLastActive,
            s.lastChange, max(now, s.lastChange), bootID,
        ])
        let ids = Set(before.state.projectSessions.keys).union(s.projectSessions.keys)
        for id in ids where before.state.projectSessions[id] != s.projectSessions[id] {
            try db.cachedStatement(sql: "UPDATE project SET session_us = ? WHERE id = ?")
                .execute(arguments: [s.projectSessions[id] ?? 0, id])
        }
        if before.focus != after.focus { try StoreFocus.saveFocus(after.focus, db) }
        if before.nextTaskNumber != after.nextTaskNumber {
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('next_task_number', ?)",
                arguments: [String(after.nextTaskNumber)])
        }
        if before.nextProjectNumber != after.nextProjectNumber {
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('next_project_number', ?)",
                arguments: [String(after.nextProjectNumber)])
        }
    }

    static func insertProject(name: String, color: String, into model: inout Model, _ db: Database) throws -> String {
        let valid = try Project.validatedName(name)
        let color = color.isEmpty ? Project.nextColor(after: model.projects) : try Project.validatedColor(color)
        if model.projects.contains(where: { Project.nameKey($0.name) == Project.nameKey(valid) }) {
            throw TrackerError.nameTaken(valid)
        }
        let id = "p\(model.nextProjectNumber)"
        model.nextProjectNumber += 1
        let project = Project(id: id, name: valid, color: color, position: model.projects.count)
        try db.execute(
            sql: "INSERT INTO project (id, name, name_key, color, position) VALUES (?, ?, ?, ?, ?)",
            arguments: [id, valid, Project.nameKey(valid), color, project.position])
        model.projects.append(project)
        return id
    }

    /// Closed intervals overlapping [low, high), in order. Intervals never overlap, so they are
    /// those ending in (low, high] plus at most one ending later: two bounded index ranges.
    static let overlapSQL =
        "SELECT start_us, end_us, project_id, note, tags FROM interval WHERE end_us > ? AND end_us <= ? ORDER BY end_us"
    static let afterSQL = "SELECT start_us, end_us, project_id, note, tags FROM interval WHERE end_us > ? ORDER BY end_us LIMIT 1"
    /// The start of the first closed interval (the first to end: intervals never overlap).
    static let firstStartSQL = "SELECT start_us FROM interval WHERE end_us IS NOT NULL ORDER BY end_us LIMIT 1"

    static func closedIntervals(_ db: Database, overlapping low: Micros, _ high: Micros) throws -> [Interval] {
        var result: [Interval] = []
        try forEachClosedInterval(db, overlapping: low, high) { result.append($0) }
        return result
    }

    /// `closedIntervals`, one at a time from a cursor: nothing but the current row in memory.
    static func forEachClosedInterval(
        _ db: Database, overlapping low: Micros, _ high: Micros, _ body: (Interval) throws -> Void
    ) throws {
        try forEachClosedInterval(db, overlapping: low, high) { interval, _ in try body(interval) }
    }

    /// The same with each interval's note.
    static func forEachClosedInterval(
        _ db: Database, overlapping low: Micros, _ high: Micros, _ body: (Interval, String?) throws -> Void
    ) throws {
        try forEachClosedInterval(db, overlapping: low, high) { interval, note, _ in try body(interval, note) }
    }

    /// The same with each interval's note and tags (as stored).
    static func forEachClosedInterval(
        _ db: Database, overlapping low: Micros, _ high: Micros, _ body: (Interval, String?, String?) throws -> Void
    ) throws {
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: overlapSQL), arguments: [low, high])
        while let row = try rows.next() {
            let start: Int64 = row[0]
            if start < high { try body(Interval(start: start, end: row[1], projectID: row[2]), row[3], row[4]) }
        }
        if high < .max,
            let row = try Row.fetchOne(
                db.cachedStatement(sql: afterSQL), arguments: [high])
        {
            let start: Int64 = row[0]
            if start < high { try body(Interval(start: start, end: row[1], projectID: row[2]), row[3], row[4]) }
        }
    }

    static func load(_ db: Database) throws -> (Model, heartbeat: Micros?, boot: String?, lastBackup: String?) {
        var model = Model()
        var sessions: [String: Micros] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT id, name, color, position, session_us, budget_us, budget_period FROM project ORDER BY position, id")
        {
            let id: String = row[0]
            var budget: Budget?
            if let amount: Int64 = row[5], let period = (row[6] as String?).flatMap(BudgetPeriod.init(rawValue:)) {
                budget = Budget(amount: amount, period: period)
            }
            model.projects.append(Project(id: id, name: row[1], color: row[2], position: model.projects.count, budget: budget))
            let session: Int64 = row[4]
            if session != 0 { sessions[id] = session }
        }
        var state = WorkTimer()
        state.projectSessions = sessions
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT work_session_us, work_run_start_us, project_run_start_us, resume_project_id,
                        session_last_active_us, last_change_us, heartbeat_us, boot_id FROM timer_state WHERE id = 1
                    """)
        else { throw TrackerError.storage("The timer state row is missing.") }
        state.workSession = row[0]
        state.workRunStart = row[1]
        state.projectRunStart = row[2]
        state.resumeProject = row[3]
        state.sessionLastActive = row[4]
        state.lastChange = row[5]
        if let open = try Row.fetchOne(db, sql: "SELECT start_us, project_id FROM interval WHERE end_us IS NULL") {
            state.open = OpenSegment(start: open[0], projectID: open[1])
            if state.workRunStart == nil { state.workRunStart = state.open?.start }
            if state.open?.projectID != nil, state.projectRunStart == nil { state.projectRunStart = state.open?.start }
        } else {
            state.workRunStart = nil
            state.projectRunStart = nil
        }
        model.state = state
        let next = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'next_project_number'")
        let highest = model.projects.compactMap { Int($0.id.dropFirst()) }.max() ?? 0
        model.nextProjectNumber = max(next.flatMap { Int($0) } ?? 1, highest + 1)
        for row in try Row.fetchAll(
            db,
            sql: "SELECT id, title, project_id, due_us, remind, done, done_us, reminded_due_us FROM task ORDER BY created_us, id")
        {
            model.tasks.append(
                TaskItem(
                    id: row[0], title: row[1], projectID: row[2], due: row[3], remind: row[4], done: row[5], doneAt: row[6],
                    remindedDue: row[7]))
        }
        let nextTask = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'next_task_number'")
        let highestTask = model.tasks.compactMap { Int($0.id.dropFirst()) }.max() ?? 0
        model.nextTaskNumber = max(nextTask.flatMap { Int($0) } ?? 1, highestTask + 1)
        (model.focus, model.presets) = try StoreFocus.loadFocus(db)
        let lastBackup = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_daily_backup'")
        return (model, row[6], row[7], lastBackup)
    }
}
