import BiomaCore
import Testing

/// The task list's rules with injected instants: titles, what is due, when the next reminder
/// is, and that a reminder is raised once per due instant.
@Suite struct TaskRulesTests {
    let t0 = t("2026-11-23T10:00:00+01:00")

    @Test func titlesAreTrimmedAndChecked() throws {
        #expect(try TaskItem.validatedTitle("  Call the bank \n") == "Call the bank")
        #expect(try TaskItem.validatedTitle(String(repeating: "é", count: 200)).count == 200)
        for bad in ["", "   ", String(repeating: "x", count: 201), "tab\there", "bell\u{7}"] {
            #expect(throws: TrackerError.self, "\(bad.debugDescription)") { try TaskItem.validatedTitle(bad) }
        }
    }

    @Test func dueCountsAndTheNextReminder() {
        let tasks = [
            TaskItem(id: "t1", title: "past", due: t0 - hour, remind: true),
            TaskItem(id: "t2", title: "soon", due: t0 + 10 * minute, remind: true),
            TaskItem(id: "t3", title: "later, quiet", due: t0 + 5 * minute, remind: false),
            TaskItem(id: "t4", title: "done", due: t0 - 2 * hour, remind: true, done: true, doneAt: t0 - hour),
            TaskItem(id: "t5", title: "no due"),
        ]
        let summary = TaskSummary(tasks, at: t0)
        #expect(summary.open == 4)
        #expect(summary.due == 1)
        // The overdue reminder not yet raised is the next one; the quiet task only changes the count.
        #expect(summary.nextReminder == t0 - hour)
        #expect(summary.nextDueChange == t0 + 5 * minute)
        #expect(summary.nextDeadline == t0 - hour)
        #expect(tasks.remindersDue(at: t0).map(\.id) == ["t1"])
        #expect(tasks.remindersDue(at: t0 + 10 * minute).map(\.id) == ["t1", "t2"])
    }

    @Test func aReminderIsRaisedOncePerDueInstant() {
        var task = TaskItem(id: "t1", title: "x", due: t0, remind: true)
        #expect(task.reminderPending)
        task.remindedDue = task.due
        #expect(!task.reminderPending)
        #expect([task].remindersDue(at: t0 + hour).isEmpty)
        #expect(TaskSummary([task], at: t0 + hour).nextReminder == nil)
        // A snooze is a new due instant: pending again.
        task.due = t0 + 2 * hour
        #expect(task.reminderPending)
        #expect(TaskSummary([task], at: t0 + hour).nextDeadline == t0 + 2 * hour)
        // Done: nothing pending, not counted.
        task.done = true
        #expect(!task.reminderPending && !task.isDue(at: t0 + 3 * hour))
        #expect(TaskSummary([task], at: t0 + 3 * hour) == TaskSummary([], at: t0))
    }

    /// A snooze is from the later of now and the due instant: it never brings a reminder
    /// forward.
    @Test func aSnoozeNeverMovesTheDueInstantEarlier() throws {
        let (at1350, at1520) = (t("2026-11-23T13:50:00+01:00"), t("2026-11-23T15:20:00+01:00"))
        // Due later today: 30 min after the due instant, not after now.
        var later = TaskItem(id: "t1", title: "Call", due: at1520, remind: true, remindedDue: nil)
        try later.snooze(by: 30 * minute, at: at1350)
        #expect(later.due == t("2026-11-23T15:50:00+01:00"))
        // Overdue (the reminder went out): 30 min from now.
        var overdue = TaskItem(id: "t2", title: "Tea", due: at1350 - 50 * minute, remind: true, remindedDue: at1350 - 50 * minute)
        try overdue.snooze(by: 30 * minute, at: at1350)
        #expect(overdue.due == t("2026-11-23T14:20:00+01:00") && overdue.reminderPending)
        // Due right now, and without a due instant: from now.
        #expect(TaskItem(id: "t3", title: "x", due: at1350).snoozedDue(by: minute, at: at1350) == at1350 + minute)
        var undated = TaskItem(id: "t4", title: "x")
        try undated.snooze(by: TaskItem.defaultSnooze, at: at1350)
        #expect(undated.due == at1350 + 10 * minute && undated.remind)
        // Refused, and left as it was: a delay out of 1 s – 24 h, a task done.
        for delay in [0, microsPerSecond - 1, 24 * hour + 1] {
            var task = later
            #expect(throws: TrackerError.invalidArgument("A snooze lasts 1 s – 24 h.")) { try task.snooze(by: delay, at: at1350) }
            #expect(task == later)
        }
        var done = TaskItem(id: "t5", title: "x", due: at1520, remind: true, done: true, doneAt: at1350)
        #expect(throws: TrackerError.self) { try done.snooze(by: minute, at: at1350) }
        #expect(done.due == at1520)
    }

    @Test func unknownIdsAreNamed() {
        #expect(throws: TrackerError.noSuchTask("t7")) { try [TaskItem]().find("t7") }
    }
}
