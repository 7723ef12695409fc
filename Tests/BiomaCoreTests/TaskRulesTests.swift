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

    @Test func unknownIdsAreNamed() {
        #expect(throws: TrackerError.noSuchTask("t7")) { try [TaskItem]().find("t7") }
    }
}
