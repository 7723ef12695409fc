import BiomaCore
import Foundation
import GRDB

/// The task list: each change one transaction, like every other change.
public struct StoreTasks: StorePart {
    let tracker: Tracker
}

extension StoreTasks {
    /// The tasks, in the order they were added.
    public var items: [TaskItem] { model.tasks }

    public func summary(at now: Micros) -> TaskSummary { TaskSummary(model.tasks, at: now) }

    /// Adds a task; returns its id (`t1`, `t2`, …). `remind` defaults to true when `due` is set.
    public func add(title: String, due: Micros?, remind: Bool?, project: String?, at now: Micros) throws -> String {
        let title = try TaskItem.validatedTitle(title)
        if let due { try Self.checkInstant(due, "Due") }
        var id = ""
        try change(at: now) { model, db in
            let projectID = try project.map { try model.projects.resolve($0).id }
            id = "t\(model.nextTaskNumber)"
            model.nextTaskNumber += 1
            let task = TaskItem(id: id, title: title, projectID: projectID, due: due, remind: remind ?? (due != nil))
            model.tasks.append(task)
            try StoreTasks.saveTask(task, created: now, db)
            return []
        }
        return id
    }

    /// What `update` may change; nil leaves a field as it is.
    public struct TaskChanges: Sendable {
        public var title: String?
        /// `.some(nil)` removes the due instant.
        public var due: Micros??
        public var remind: Bool?
        /// `.some(nil)` removes the project.
        public var project: String??
        public init(title: String? = nil, due: Micros?? = nil, remind: Bool? = nil, project: String?? = nil) {
            (self.title, self.due, self.remind, self.project) = (title, due, remind, project)
        }
    }

    public func update(_ id: String, _ changes: TaskChanges, at now: Micros) throws {
        let title = try changes.title.map { try TaskItem.validatedTitle($0) }
        if case .some(.some(let due)) = changes.due { try Self.checkInstant(due, "Due") }
        try changeTask(id, at: now) { task, projects in
            if let title { task.title = title }
            if let due = changes.due {
                task.due = due
                // A task given a due instant (and no word on reminding) reminds.
                if due != nil && changes.remind == nil && task.remindedDue == nil { task.remind = true }
            }
            if let remind = changes.remind { task.remind = remind }
            if let project = changes.project { task.projectID = try project.map { try projects.resolve($0).id } }
        }
    }

    public func complete(_ id: String, at now: Micros) throws {
        try changeTask(id, at: now) { task, _ in
            if !task.done {
                task.done = true
                task.doneAt = now
            }
        }
    }

    public func reopen(_ id: String, at now: Micros) throws {
        try changeTask(id, at: now) { task, _ in
            task.done = false
            task.doneAt = nil
        }
    }

    /// Snoozes the task (`TaskItem.snooze`): due `delay` after the later of now and its due
    /// instant, reminding again then.
    public func snooze(_ id: String, by delay: Micros, at now: Micros) throws {
        try changeTask(id, at: now) { task, _ in
            try task.snooze(by: delay, at: now)
            try Self.checkInstant(task.due ?? 0, "Due")
        }
    }

    public func delete(_ id: String, at now: Micros) throws {
        try change(at: now) { model, db in
            _ = try model.tasks.find(id)
            model.tasks.removeAll { $0.id == id }
            try db.execute(sql: "DELETE FROM task WHERE id = ?", arguments: [id])
            return []
        }
    }

    /// Records that the reminders of `ids` went out for their current due instants, so they
    /// are never raised again for those instants.
    public func markReminded(_ ids: [String], at now: Micros) throws {
        try change(at: now) { model, db in
            for index in model.tasks.indices where ids.contains(model.tasks[index].id) {
                model.tasks[index].remindedDue = model.tasks[index].due
                try StoreTasks.saveTask(model.tasks[index], created: now, db)
            }
            return []
        }
    }

    /// One task changed by `body` in one transaction; unknown ids are `noSuchTask`.
    private func changeTask(_ id: String, at now: Micros, _ body: (inout TaskItem, [Project]) throws -> Void) throws {
        try change(at: now) { model, db in
            guard let index = model.tasks.firstIndex(where: { $0.id == id }) else { throw TrackerError.noSuchTask(id) }
            let projects = model.projects
            try body(&model.tasks[index], projects)
            try StoreTasks.saveTask(model.tasks[index], created: now, db)
            return []
        }
    }

    static func checkInstant(_ instant: Micros, _ what: String) throws {
        // Years 1970 to 9999: what the store, the reports and every client can show.
        guard instant >= 0, instant < 253_402_300_800 * microsPerSecond else {
            throw TrackerError.invalidArgument("\(what) \(instant) µs is not an instant between 1970 and 9999.")
        }
    }

    /// Inserts the task, or updates it keeping its creation instant.
    static func saveTask(_ task: TaskItem, created: Micros, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO task (id, title, project_id, due_us, remind, done, done_us, reminded_due_us, created_us)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET title = excluded.title, project_id = excluded.project_id,
                    due_us = excluded.due_us, remind = excluded.remind, done = excluded.done,
                    done_us = excluded.done_us, reminded_due_us = excluded.reminded_due_us
                """
        ).execute(arguments: [
            task.id, task.title, task.projectID, task.due, task.remind, task.done, task.doneAt, task.remindedDue, created,
        ])
    }
}
