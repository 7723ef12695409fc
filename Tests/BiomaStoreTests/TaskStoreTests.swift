import BiomaCore
import Foundation
import Testing

@testable import BiomaStore
import StoreTestSupport

/// Tasks in the store: each change one transaction that survives a reopen, failures change
/// nothing, a deleted project leaves its tasks, and reminders stay raised.
@Suite struct TaskStoreTests {
    @Test func tasksSurviveAReopenWithEveryField() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-23T10:00:00+01:00")
            var tracker: Tracker! = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            let p = try tracker.catalog.addProject(name: "Client A", color: "", at: now)
            #expect(try tracker.tasks.add(title: " Call ", due: now + hour, remind: nil, project: "client a", at: now) == "t1")
            #expect(try tracker.tasks.add(title: "Quiet", due: now + hour, remind: false, project: nil, at: now) == "t2")
            #expect(try tracker.tasks.add(title: "Someday", due: nil, remind: nil, project: nil, at: now) == "t3")
            try tracker.tasks.complete("t3", at: now + minute)
            try tracker.tasks.markReminded(["t1"], at: now + hour)
            let before = tracker.tasks.items
            #expect(before[0] == TaskItem(id: "t1", title: "Call", projectID: p, due: now + hour, remind: true, remindedDue: now + hour))
            #expect(before[1].remind == false)
            #expect(before[2].done && before[2].doneAt == now + minute)
            tracker = nil
            tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now + 2 * hour, bootID: boot)
            #expect(tracker.tasks.items == before)
            // Ids go on after the highest ever given, even after a delete.
            try tracker.tasks.delete("t3", at: now + 2 * hour)
            #expect(try tracker.tasks.add(title: "Next", due: nil, remind: nil, project: nil, at: now + 2 * hour) == "t4")
        }
    }

    @Test func failuresChangeNothing() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-23T10:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            _ = try tracker.tasks.add(title: "Keep", due: now + hour, remind: nil, project: nil, at: now)
            let before = try tracker.dumpForTesting()
            #expect(before.contains("task "), "the dump sees the task table")
            let attempts: [() throws -> Void] = [
                { _ = try tracker.tasks.add(title: "", due: nil, remind: nil, project: nil, at: now) },
                { _ = try tracker.tasks.add(title: "X", due: nil, remind: nil, project: "nope", at: now) },
                { _ = try tracker.tasks.add(title: "X", due: -1, remind: nil, project: nil, at: now) },
                { try tracker.tasks.update("t9", StoreTasks.TaskChanges(title: "x"), at: now) },
                { try tracker.tasks.update("t1", StoreTasks.TaskChanges(title: "\u{1B}[31m"), at: now) },
                { try tracker.tasks.complete("t9", at: now) },
                { try tracker.tasks.snooze("t1", by: 0, at: now) },
                { try tracker.tasks.delete("nope", at: now) },
            ]
            for attempt in attempts { #expect(throws: TrackerError.self) { try attempt() } }
            #expect(try tracker.dumpForTesting() == before)
        }
    }

    /// The dump that "failures change nothing" compares holds every table of the schema: a
    /// row in any table shows in it.
    @Test func theDumpCoversEveryTable() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-23T10:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            let tables = try tracker.tableNamesForTesting()
            #expect(Set(tables).isSuperset(of: [
                "project", "interval", "timer_state", "meta", "task", "focus_phase", "focus_preset", "focus_timer",
                "edit_journal", "edit_journal_row",
            ]))
            let empty = try tracker.dumpForTesting()
            _ = try tracker.tasks.add(title: "Seen", due: nil, remind: nil, project: nil, at: now)
            let dump = try tracker.dumpForTesting()
            #expect(dump != empty)
            #expect(dump.split(separator: "\n").contains { $0.hasPrefix("task ") && $0.contains("Seen") })
        }
    }

    @Test func aDeletedProjectLeavesItsTasksWithoutOne() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-23T10:00:00+01:00")
            var tracker: Tracker! = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            let p = try tracker.catalog.addProject(name: "Gone", color: "", at: now)
            _ = try tracker.tasks.add(title: "Invoice", due: nil, remind: nil, project: p, at: now)
            try tracker.catalog.deleteProject(p, at: now)
            #expect(tracker.tasks.items.map(\.projectID) == [nil])
            tracker = nil
            tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            #expect(tracker.tasks.items.map(\.projectID) == [nil], "the store agrees with memory")
        }
    }

    @Test func snoozeAndEditsMoveTheReminder() throws {
        try withTemporaryDirectory { dir in
            let now = t("2026-11-23T10:00:00+01:00")
            let tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            _ = try tracker.tasks.add(title: "Tea", due: now, remind: nil, project: nil, at: now)
            try tracker.tasks.markReminded(["t1"], at: now)
            #expect(tracker.tasks.summary(at: now).nextReminder == nil)
            try tracker.tasks.snooze("t1", by: TaskItem.defaultSnooze, at: now + minute)
            #expect(tracker.tasks.summary(at: now + minute).nextReminder == now + minute + TaskItem.defaultSnooze)
            try tracker.tasks.update("t1", StoreTasks.TaskChanges(due: .some(nil)), at: now + minute)
            #expect(tracker.tasks.summary(at: now + minute) == TaskSummary([TaskItem(id: "t1", title: "Tea")], at: now + minute))
        }
    }

    /// A task due at 15:20 snoozed 30 min at 13:50 is due at 15:50, not 14:20, in the store
    /// and after a reopen.
    @Test func aSnoozeBeforeTheDueInstantMovesItLater() throws {
        try withTemporaryDirectory { dir in
            let (now, due) = (t("2026-11-23T13:50:00+01:00"), t("2026-11-23T15:20:00+01:00"))
            var tracker: Tracker! = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            _ = try tracker.tasks.add(title: "Call", due: due, remind: nil, project: nil, at: now)
            try tracker.tasks.snooze("t1", by: 30 * minute, at: now)
            #expect(tracker.tasks.items.first?.due == t("2026-11-23T15:50:00+01:00"))
            #expect(tracker.tasks.summary(at: now).nextReminder == t("2026-11-23T15:50:00+01:00"))
            tracker = nil
            tracker = try Tracker(dataDirectory: dir, rules: berlin, now: now, bootID: boot)
            #expect(tracker.tasks.items.first?.due == t("2026-11-23T15:50:00+01:00"))
        }
    }
}
