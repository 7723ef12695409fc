import BiomaSystem
import ArgumentParser
import BiomaText
import BiomaWidgets
import CContract
import DBusCore
import BiomaContract

// `biomatimer task …`: the task list and its reminders (org.biomatimer.Tasks1).

struct TaskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "task", abstract: "Tasks with reminders: add, list, done, snooze, edit, delete.",
        discussion: """
            WHEN is a local time: 15:00 (today), tomorrow 09:00, 2026-11-23 09:00, or +2h from now. \
            A task with a due time reminds with a desktop notification then (Done / Snooze 10 min), \
            even when no window is open; bars count the tasks that are due.
            """,
        subcommands: [TaskAdd.self, TaskList.self, TaskDone.self, TaskReopen.self, TaskEdit.self, TaskSnooze.self, TaskDelete.self])
}

/// A call to org.biomatimer.Tasks1.
func callTasks(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
    try daemonClient().call(member, arguments, interface: ContractNames.tasksInterface)
}

/// WHEN as an instant, or a usage error that says what is accepted.
func when(_ text: String, option: String) throws -> Int64 {
    do {
        // A weekday is the next one: a due time is to come.
        return try WhenText.parse(text, now: commandNow(), zone: CommandContext.current.zone, ahead: true)
    } catch {
        throw ValidationError("\(option) \(error.description)")
    }
}

struct TaskAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a task; prints its id.")
    @Argument(help: "The title, 1–200 characters.") var title: String
    @Option(help: "When it is due, and reminds (WHEN).") var due: String?
    @Option(help: "A project's id or name.", completion: .projects) var project: String?
    @Flag(help: "Due, but no reminder.") var noRemind = false

    func validate() throws {
        if let due { _ = try when(due, option: "--due") }
        if noRemind && due == nil { throw ValidationError("--no-remind needs --due.") }
    }

    func run() throws {
        var options: [String: DBusValue] = [:]
        if let due { options["Due"] = .int64(try when(due, option: "--due")) }
        if noRemind { options["Remind"] = .boolean(false) }
        if let project { options["Project"] = .string(project) }
        say(try callTasks(BIOMATIMER_TASKS1_ADD_TASK, [.string(title), .vardict(options)]).first?.string ?? "")
    }
}

struct TaskList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List open tasks (with --all, done ones too).")
    @Flag(help: "Done tasks too.") var all = false
    @Flag(help: "JSON for scripts.") var json = false

    func run() throws {
        let client = try daemonClient()
        let tasks = TaskListing.rows(
            try client.call(BIOMATIMER_TASKS1_LIST_TASKS, [.boolean(all)], interface: ContractNames.tasksInterface).first)
        let names = try client.state(WorkStatus.self).projectNames
        let none = all ? "No tasks yet. Add one with: biomatimer task add TITLE [--due WHEN]" : "No open tasks."
        sayRows(tasks, asJSON: json, json: { Self.rowsJSON($0, names: names) }, none: none) {
            Self.sayLines($0, names: names)
        }
    }

    static func rowsJSON(_ tasks: [TaskListing], names: [String: String]) -> JSON {
        JSON.objects(tasks) { t in
            [
                "id": .string(t.id), "title": .string(t.title), "project": .string(t.project),
                "project_name": .string(names[t.project] ?? ""), "due": t.due == 0 ? .null : .int(t.due),
                "remind": .bool(t.remind), "done": .bool(t.done), "done_at": t.doneAt == 0 ? .null : .int(t.doneAt),
            ]
        }
    }

    static func sayLines(_ tasks: [TaskListing], names: [String: String]) {
        let now = commandNow()
        let describer = WhenText.Describer(now: now, zone: CommandContext.current.zone)
        for t in tasks {
            let due = t.due
            let state: String
            if t.done {
                state = "done"
            } else if due != 0 && due <= now {
                state = "due"
            } else {
                state = ""
            }
            let when = due == 0 ? "" : describer.describe(due)
            let project = names[t.project].map { "  [\(TextEscaping.singleLine($0))]" } ?? ""
            say(
                "\(Terminal.pad(t.id, 5)) \(Terminal.pad(state, 5)) \(Terminal.pad(when, 17)) "
                    + TextEscaping.singleLine(t.title) + project)
        }
    }
}

struct TaskDone: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "done", abstract: "Mark a task done.")
    @Argument(help: "The task's id (t1, t2, …).", completion: .tasks(all: false)) var id: String
    func run() throws { _ = try callTasks(BIOMATIMER_TASKS1_COMPLETE_TASK, [.string(id)]) }
}

struct TaskReopen: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reopen", abstract: "Open a done task again.")
    @Argument(help: "The task's id.", completion: .tasks(all: true)) var id: String
    func run() throws { _ = try callTasks(BIOMATIMER_TASKS1_REOPEN_TASK, [.string(id)]) }
}

struct TaskDelete: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a task.")
    @Argument(help: "The task's id.", completion: .tasks(all: true)) var id: String
    func run() throws { _ = try callTasks(BIOMATIMER_TASKS1_DELETE_TASK, [.string(id)]) }
}

struct TaskSnooze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: "Remind again later: due DURATION after its due time, or from now once that has passed (default 10m).")
    @Argument(help: "The task's id.", completion: .tasks(all: false)) var id: String
    @Argument(help: "How long: 10m, 1h30m, 90s, 1:00:00 (\(DurationText.colonForms)).") var duration: String?

    func validate() throws { _ = try length() }

    /// DURATION as µs, 0 for the default; a bad one is a usage error.
    private func length() throws -> Int64 {
        guard let duration else { return 0 }
        do {
            return try DurationText.read(duration, what: "DURATION", max: .max)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        _ = try callTasks(BIOMATIMER_TASKS1_SNOOZE_TASK, [.string(id), .int64(try length())])
    }
}

struct TaskEdit: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "edit", abstract: "Change a task's title, due time, reminder or project.")
    @Argument(help: "The task's id.", completion: .tasks(all: true)) var id: String
    @Option(help: "A new title.") var title: String?
    @Option(help: "A new due time (WHEN).") var due: String?
    @Flag(help: "No due time (and no reminder).") var noDue = false
    @Option(help: "A project's id or name.", completion: .projects) var project: String?
    @Flag(help: "No project.") var noProject = false
    @Flag(inversion: .prefixedNo, help: "Remind at the due time, or not.") var remind: Bool?

    func validate() throws {
        if let due { _ = try when(due, option: "--due") }
        if due != nil && noDue { throw ValidationError("--due and --no-due exclude each other.") }
        if project != nil && noProject { throw ValidationError("--project and --no-project exclude each other.") }
        if title == nil && due == nil && !noDue && project == nil && !noProject && remind == nil {
            throw ValidationError("Nothing to change: give --title, --due, --no-due, --project, --no-project or --[no-]remind.")
        }
    }

    func run() throws {
        var changes: [String: DBusValue] = [:]
        if let title { changes["Title"] = .string(title) }
        if let due { changes["Due"] = .int64(try when(due, option: "--due")) }
        if noDue { changes["Due"] = .int64(0) }
        if let project { changes["Project"] = .string(project) }
        if noProject { changes["Project"] = .string("") }
        if let remind { changes["Remind"] = .boolean(remind) }
        _ = try callTasks(BIOMATIMER_TASKS1_UPDATE_TASK, [.string(id), .vardict(changes)])
    }
}
