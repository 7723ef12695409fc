import BiomaCore
import BiomaStore
import CContract
import DBusKit
import Foundation

/// `org.biomatimer.Tasks1` on the daemon's object: the task list and its reminders.
///
/// Handlers run on the bus's loop thread. One deadline in the loop waits for the next instant
/// at which something happens by itself — a reminder to raise, or an open task coming due (the
/// `DueTasks` count changes) — and nothing else wakes the daemon for tasks. A reminder goes out
/// once per due instant (recorded in the store before the notification is sent, so a restart
/// never repeats it); one that came due while the daemon was down or the machine slept goes out
/// when it can, marked overdue.
public final class TasksService: ObjectInterface, @unchecked Sendable {
    private let tracker: Tracker
    private let bus: Bus
    private let clock: any TimeSource
    private let notifier: Notifier
    private let log: @Sendable (String) -> Void
    public lazy var publication = Publication(self)
    /// What `PropertiesChanged` last said (or `GetAll` would have said at the last change).
    private var published: TasksStatus
    private var deadlines: Deadlines?
    private var nextLook: Deadlines.Handle?
    /// The notification showing each task's reminder, to replace or close it, by task id;
    /// saved, so a reminder after a restart replaces the notification shown before it.
    private var notices: [String: UInt32] = [:] {
        didSet {
            for (id, notification) in notices where oldValue[id] != notification { save(notification, for: id) }
            for id in oldValue.keys where notices[id] == nil { save(nil, for: id) }
        }
    }

    public init(tracker: Tracker, bus: Bus, clock: any TimeSource, notifier: Notifier, log: @escaping @Sendable (String) -> Void) {
        (self.tracker, self.bus, self.clock, self.notifier) = (tracker, bus, clock, notifier)
        self.log = log
        published = Self.status(tracker.tasks.summary(at: clock.now()))
        do {
            for (owner, id) in try tracker.daemonState.shownNotifications() where owner.hasPrefix("task:") {
                notices[String(owner.dropFirst(5))] = id
            }
        } catch {
            log("cannot read the reminders' notifications (\(error)); a reminder may show twice")
        }
    }

    static func status(_ summary: TaskSummary) -> TasksStatus {
        var status = TasksStatus()
        status.openTasks = UInt32(clamping: summary.open)
        status.dueTasks = UInt32(clamping: summary.due)
        status.nextDue = summary.nextReminder ?? 0
        return status
    }

    private func save(_ notification: UInt32?, for task: String) {
        do {
            try tracker.daemonState.saveShownNotification(notification, for: "task:" + task)
        } catch {
            log("cannot record the reminder's notification (\(error)); after a restart it may show twice")
        }
    }

    // MARK: - Deadlines

    public func attach(_ deadlines: Deadlines) {
        self.deadlines = deadlines
        nextLook = deadlines.add { [self] _ in publish(at: clock.now()) }
        publish(at: clock.now())
    }

    /// Raises the reminders that are due, emits Tasks1's `PropertiesChanged` once with what
    /// changed, and waits for the next instant anything happens by itself.
    public func publish(at now: Micros) {
        let reminders = tracker.tasks.items.remindersDue(at: now)
        if !reminders.isEmpty {
            do {
                try tracker.tasks.markReminded(reminders.map(\.id), at: now)
                for task in reminders {
                    let late = now - (task.due ?? now) > lateAfter
                    publication.occurred(.taskDue(task, late: late), at: now)
                    remind(task, late: late)
                }
            } catch {
                log("cannot record that reminders went out (\(error)); trying again at the next change")
            }
        }
        let summary = tracker.tasks.summary(at: now)
        let status = Self.status(summary)
        bus.emitChanges(TasksStatus.table, path: ContractNames.objectPath, from: published, to: status)
        published = status
        if let deadlines, let nextLook { deadlines.schedule(nextLook, at: summary.nextDeadline) }
    }

    // MARK: - Reminders

    private func remind(_ task: TaskItem, late: Bool) {
        var notice = Notifier.Notice(
            summary: (late ? "Task overdue: " : "Task due: ") + task.title, body: body(of: task),
            actions: [(key: "done", label: "Done"), (key: "snooze", label: "Snooze 10 min")])
        notice.urgency = late ? 2 : 1
        let id = task.id
        notifier.show(
            notice, replacing: notices[id] ?? 0,
            onAction: { [self] key in action(key, on: id) },
            completion: { [self] notification in notices[id] = notification })
    }

    private func body(of task: TaskItem) -> String {
        var parts: [String] = []
        if let due = task.due { parts.append("due \(EditText.time(due, now: clock.now(), rules: tracker.rules))") }
        if let project = task.projectID.flatMap({ id in tracker.projects.first { $0.id == id } }) {
            parts.append(project.name)
        }
        return parts.joined(separator: " · ")
    }

    /// A clicked action: the method of that name (`CompleteTask`, `SnoozeTask`), published the
    /// same way.
    private func action(_ key: String, on id: String) {
        do {
            switch key {
            case "done": try completeTask(id)
            case "snooze": try snoozeTask(id, by: 0)
            default: return
            }
        } catch {
            log("the \(key) action on task \(id) failed: \(error)")
        }
    }

    // MARK: - Changes

    /// One operation at one instant, on the object's one change path (`Publication.change`);
    /// every part then publishes what changed and moves its deadlines.
    private func change<T>(_ body: (Micros) throws -> T) throws -> T {
        try publication.change(clock) { now in
            let result = try body(now)
            // Done or deleted tasks take their notification with them.
            let open = Set(tracker.tasks.items.filter { !$0.done }.map(\.id))
            for (id, notification) in notices where !open.contains(id) {
                notifier.close(notification)
                notices[id] = nil
            }
            return result
        }
    }

    /// `CompleteTask` (and the reminder's "Done").
    func completeTask(_ id: String) throws { try change { try tracker.tasks.complete(id, at: $0) } }

    /// `SnoozeTask`, 0 for the default delay (and the reminder's "Snooze").
    func snoozeTask(_ id: String, by delay: Micros) throws {
        try change { try tracker.tasks.snooze(id, by: delay == 0 ? TaskItem.defaultSnooze : delay, at: $0) }
    }

    // MARK: - The interface

    public func interface() -> DBusInterface {
        DBusInterface(
            TasksStatus.table, state: { [self] in Self.status(tracker.tasks.summary(at: clock.now())) },
            methods: [
                DBusMethod(BIOMATIMER_TASKS1_ADD_TASK, in: [.init("title", "s"), .init("options", "a{sv}")], out: [.init("id", "s")]) {
                    [self] in try addTask($0)
                },
                DBusMethod.action(BIOMATIMER_TASKS1_UPDATE_TASK, in: [.init("task", "s"), .init("changes", "a{sv}")]) {
                    [self] in try updateTask($0)
                },
                DBusMethod.action(BIOMATIMER_TASKS1_COMPLETE_TASK, in: [.init("task", "s")]) { [self] in
                    try completeTask($0.arguments[0].string!)
                },
                DBusMethod.action(BIOMATIMER_TASKS1_REOPEN_TASK, in: [.init("task", "s")]) { [self] call in
                    let id = call.arguments[0].string!
                    try change { try tracker.tasks.reopen(id, at: $0) }
                },
                DBusMethod.action(BIOMATIMER_TASKS1_DELETE_TASK, in: [.init("task", "s")]) { [self] call in
                    let id = call.arguments[0].string!
                    try change { try tracker.tasks.delete(id, at: $0) }
                },
                DBusMethod.action(BIOMATIMER_TASKS1_SNOOZE_TASK, in: [.init("task", "s"), .init("delay", "x")]) { [self] in
                    try snoozeTask($0.arguments[0].string!, by: $0.arguments[1].int64!)
                },
                DBusMethod(BIOMATIMER_TASKS1_LIST_TASKS, in: [.init("include_done", "b")], out: [.init("tasks", "aa{sv}")]) { [self] call in
                    let includeDone = call.arguments[0].bool ?? false
                    return [TaskListing.list(tracker.tasks.items.filter { includeDone || !$0.done }.map(Self.listing))]
                },
            ])
    }

    private func addTask(_ call: MethodCall) throws -> [DBusValue] {
        let options = try Options(call.arguments[1].vardict ?? [:], allowed: ["Due", "Remind", "Project"])
        let title = call.arguments[0].string!
        let due = try options.instant("Due")
        let remind = try options.bool("Remind")
        let project = try options.string("Project")
        return [.string(try change { try tracker.tasks.add(title: title, due: due, remind: remind, project: project, at: $0) })]
    }

    private func updateTask(_ call: MethodCall) throws {
        let options = try Options(
            call.arguments[1].vardict ?? [:], allowed: ["Title", "Due", "Remind", "Project"])
        guard !options.values.isEmpty else {
            throw DaemonAPI.invalidArgument("No changes given: use the keys Title, Due, Remind or Project.")
        }
        var changes = StoreTasks.TaskChanges()
        changes.title = try options.string("Title")
        // Due 0 and Project "" remove them.
        if let due = try options.int64("Due") { changes.due = .some(due == 0 ? nil : due) }
        changes.remind = try options.bool("Remind")
        if let project = try options.string("Project") { changes.project = .some(project.isEmpty ? nil : project) }
        let id = call.arguments[0].string!
        try change { try tracker.tasks.update(id, changes, at: $0) }
    }

    static func listing(_ task: TaskItem) -> TaskListing {
        var row = TaskListing()
        (row.id, row.title, row.project) = (task.id, task.title, task.projectID ?? "")
        (row.due, row.remind, row.done, row.doneAt) = (task.due ?? 0, task.remind, task.done, task.doneAt ?? 0)
        return row
    }
}

/// An `a{sv}` of options: unknown keys and values of the wrong type are `InvalidArgument`.
struct Options: Sendable {
    let values: [String: DBusValue]

    init(_ values: [String: DBusValue], allowed: [String]) throws {
        for key in values.keys where !allowed.contains(key) {
            throw DaemonAPI.invalidArgument("Unknown option \(quoted(key)): use \(allowed.joined(separator: ", ")).")
        }
        self.values = values
    }

    private func typed<T>(_ key: String, _ signature: String, _ read: (DBusValue) -> T?) throws -> T? {
        guard let value = values[key] else { return nil }
        guard let typed = read(value) else {
            throw DaemonAPI.invalidArgument("\(key) must be of type \(signature), not \(value.signature).")
        }
        return typed
    }

    func string(_ key: String) throws -> String? { try typed(key, "s") { $0.string } }
    func bool(_ key: String) throws -> Bool? { try typed(key, "b") { $0.bool } }
    func int64(_ key: String) throws -> Int64? {
        try typed(key, "x") {
            if case .int64(let v) = $0 { return v }
            return nil
        }
    }
    func uint32(_ key: String) throws -> UInt32? {
        try typed(key, "u") {
            if case .uint32(let v) = $0 { return v }
            return nil
        }
    }
    /// An instant option: `x` µs since the epoch, more than 0.
    func instant(_ key: String) throws -> Int64? {
        guard let value = try int64(key) else { return nil }
        guard value > 0 else { throw DaemonAPI.invalidArgument("\(key) must be an instant after 1970 (µs since the epoch).") }
        return value
    }
}
