import Foundation

/// A task on the list, with an optional due instant and a reminder at that instant.
///
/// A reminder is raised once per due instant: `remindedDue` keeps the instant whose reminder
/// went out, so neither a restart nor a second look raises it again, and a snooze (a new due
/// instant) makes it pending again.
public struct TaskItem: Sendable, Equatable {
    public var id: String
    public var title: String
    public var projectID: String?
    public var due: Micros?
    public var remind: Bool
    public var done: Bool
    public var doneAt: Micros?
    /// The due instant whose reminder has been raised, nil when none has.
    public var remindedDue: Micros?

    public init(
        id: String, title: String, projectID: String? = nil, due: Micros? = nil, remind: Bool = false, done: Bool = false,
        doneAt: Micros? = nil, remindedDue: Micros? = nil
    ) {
        (self.id, self.title, self.projectID, self.due) = (id, title, projectID, due)
        (self.remind, self.done, self.doneAt) = (remind, done, doneAt)
        self.remindedDue = remindedDue
    }

    public static let maxTitleLength = 200
    /// How long a snooze lasts when none is given.
    public static let defaultSnooze: Micros = 10 * 60 * microsPerSecond

    /// Trims the title and checks it: 1–200 characters, no control characters.
    public static func validatedTitle(_ raw: String) throws(TrackerError) -> String {
        let title = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw .invalidArgument("Task titles cannot be empty: give 1–200 characters.") }
        guard title.count <= maxTitleLength else {
            throw .invalidArgument("Task titles are 1–200 characters after trimming; this one has \(title.count).")
        }
        guard !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("Task titles cannot contain control characters (tabs, line breaks, …): \(TextEscaping.visible(raw)).")
        }
        return title
    }

    /// The due instant a snooze of `delay` at `now` gives: `delay` after the later of now and
    /// the due instant, so a snooze never brings a reminder forward (a task due at 15:20,
    /// snoozed 30 min at 13:50, is due at 15:50; one due since 13:00, at 14:20). A task
    /// without a due instant is due `delay` from now.
    public func snoozedDue(by delay: Micros, at now: Micros) -> Micros {
        max(now, due ?? now) + delay
    }

    /// Snoozes the task at `now` (`snoozedDue`), reminding again then. A delay outside 1 s –
    /// 24 h, or a task done, is refused and the task is left as it was.
    public mutating func snooze(by delay: Micros, at now: Micros) throws(TrackerError) {
        guard delay >= microsPerSecond, delay <= 24 * 3600 * microsPerSecond else {
            throw .invalidArgument("A snooze lasts 1 s – 24 h.")
        }
        guard !done else { throw .invalidArgument("Task \(id) is done: reopen it to snooze it.") }
        due = snoozedDue(by: delay, at: now)
        remind = true
    }

    /// Open, with a due instant at or before `now`.
    public func isDue(at now: Micros) -> Bool {
        guard !done, let due else { return false }
        return due <= now
    }

    /// Open, reminding, and the reminder for the current due instant not yet raised.
    public var reminderPending: Bool { !done && remind && due != nil && remindedDue != due }
}

/// What the task list shows at an instant: the three properties of `org.biomatimer.Tasks1`,
/// and the next instant at which any of it changes by itself.
public struct TaskSummary: Sendable, Equatable {
    /// Tasks not done.
    public var open: Int
    /// Open tasks whose due instant has passed.
    public var due: Int
    /// The next reminder instant (pending reminders, overdue ones included), nil for none.
    public var nextReminder: Micros?
    /// The next instant after `now` at which an open task comes due (its count changes), nil
    /// for none.
    public var nextDueChange: Micros?

    public init(_ tasks: [TaskItem], at now: Micros) {
        open = tasks.count { !$0.done }
        due = tasks.count { $0.isDue(at: now) }
        nextReminder = tasks.filter(\.reminderPending).compactMap(\.due).min()
        nextDueChange = tasks.filter { !$0.done }.compactMap(\.due).filter { $0 > now }.min()
    }

    /// When the daemon must next look: a reminder to raise or a count to publish.
    public var nextDeadline: Micros? {
        [nextReminder, nextDueChange].compactMap { $0 }.min()
    }
}

extension Array where Element == TaskItem {
    /// The task with that id.
    public func find(_ id: String) throws(TrackerError) -> TaskItem {
        guard let task = first(where: { $0.id == id }) else { throw .noSuchTask(id) }
        return task
    }

    /// The reminders to raise at `now`: pending, and due by now; in due order.
    public func remindersDue(at now: Micros) -> [TaskItem] {
        filter { $0.reminderPending && ($0.due ?? .max) <= now }.sorted { ($0.due!, $0.id) < ($1.due!, $1.id) }
    }
}
