import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Task reminders end to end: the daemon on a private bus, python3-dbusmock's notification
/// server beside it, the real CLI. A reminder goes out at its instant, once; its actions work
/// when clicked; one that came due while the daemon was down goes out once, marked overdue;
/// and while a reminder waits, the daemon does not wake.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct TaskReminderTests {
    func tasks(_ f: DaemonFixture, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        let client = try BlockingBus(.address(f.bus.address))
        return try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.tasksInterface, member: member,
            arguments)
    }

    func taskProperties(_ f: DaemonFixture) throws -> [String: DBusValue] {
        let client = try BlockingBus(.address(f.bus.address))
        return try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string(ContractNames.tasksInterface)]
        ).first?.vardict ?? [:]
    }

    func listed(_ f: DaemonFixture) throws -> [[String: DBusValue]] {
        (try tasks(f, "ListTasks", [.boolean(true)]).first?.array ?? []).compactMap(\.vardict)
    }

    @Test func aReminderGoesOutOnTimeOnceAndItsActionsWork() async throws {
        let f = try DaemonFixture()
        let server = try NotificationServer(busAddress: f.bus.address)
        #expect(try f.cli(["project", "add", "Client A"]).status == 0)
        let listener = try Bus(.address(f.bus.address))
        defer { listener.close() }
        let seen = SignalLog()
        try listener.subscribe(
            MatchRule(
                path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                arg0: ContractNames.tasksInterface)
        ) { seen.add($0.arguments[1].vardict ?? [:]) }

        let added = try f.cli(["task", "add", "Call R&D <back>", "--due", "+2s", "--project", "client a"])
        #expect(added.status == 0 && added.stdout == "t1\n", "\(added.stderr)")
        let due = try #require(try listed(f).first?["Due"]?.int64)
        // One signal for the new task: one open, none due yet, the next reminder at its instant.
        #expect(seen.wait(count: 1))
        #expect(seen.all.first == ["OpenTasks": .uint32(1), "NextDue": .int64(due)])
        #expect(try server.notifications().isEmpty)

        // At the due instant: one notification, and one signal (one task due, no reminder left).
        #expect(seen.wait(count: 2, timeout: 6))
        let reached = Int64(Date().timeIntervalSince1970 * 1_000_000)
        #expect(reached >= due && reached - due < 1_500_000, "the signal came \(reached - due) µs after the instant")
        #expect(seen.all.last == ["DueTasks": .uint32(1), "NextDue": .int64(0)])
        // The notification goes out after the server's capabilities are known: it may reach
        // the server just after the signal reaches us.
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        var notes = try server.notifications()
        #expect(notes.count == 1)
        let note = try #require(notes.first)
        #expect(note.appName == "biomatimer" && note.replacesID == 0)
        #expect(note.summary == "Task due: Call R&D <back>")
        #expect(note.body.hasSuffix(" · Client A") && note.body.hasPrefix("due "), "\(note.body)")
        #expect(note.actions == ["done", "Done", "snooze", "Snooze 10 min"])
        #expect(note.hints["urgency"] == .byte(1))
        // The bars count it.
        #expect(try f.cli(["status", "--format", "{due_tasks}/{open_tasks}"]).stdout == "1/1\n")

        // "Snooze 10 min", clicked: due ten minutes on, not due now.
        try server.invoke("snooze", on: 1)
        #expect(waitUntil(timeout: 5) { (try? taskProperties(f))?["DueTasks"] == .uint32(0) })
        let snoozed = try #require(try listed(f).first?["Due"]?.int64)
        let tenMinutes = Int64(Date().timeIntervalSince1970 * 1_000_000) + 600_000_000
        #expect(abs(snoozed - tenMinutes) < 5_000_000, "snoozed to \(snoozed), expected about \(tenMinutes)")

        // A snooze from the command line before the due instant is from that instant, never
        // sooner: 1 s after the ten minutes.
        #expect(try f.cli(["task", "snooze", "t1", "1s"]).status == 0)
        #expect(try listed(f).first?["Due"]?.int64 == snoozed + 1_000_000)
        // Due again in 1 s: the reminder comes again, replacing the first.
        #expect(try f.cli(["task", "edit", "t1", "--due", "+1s"]).status == 0)
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 2 })
        notes = try server.notifications()
        #expect(notes.last?.replacesID == 1, "the second reminder replaces the first notification")

        // "Done", clicked on one of ours: the task is done and its notification closed.
        try server.invoke("done", on: 1)
        #expect(waitUntil(timeout: 5) { (try? listed(f).first?["Done"]) == .boolean(true) })
        #expect(waitUntil(timeout: 5) { (try? server.closed()) == [1] })
        #expect(try taskProperties(f)["OpenTasks"] == .uint32(0))
        // An action on a notification that is not the daemon's does nothing.
        #expect(try f.cli(["task", "reopen", "t1"]).status == 0)
        try server.invoke("done", on: 99)
        try await Task.sleep(for: .seconds(0.5))
        #expect(try listed(f).first?["Done"] == .boolean(false))
        // Nothing more was sent than the two reminders.
        #expect(try server.notifications().count == 2)
    }

    /// The daemon stopped across a due instant: at the next start the reminder goes out once,
    /// marked overdue, and never again after another restart.
    @Test func aReminderMissedWhileTheDaemonWasDownGoesOutOnceOverdue() async throws {
        let f = try DaemonFixture(movableClock: true)
        let server = try NotificationServer(busAddress: f.bus.address)
        #expect(try f.cli(["task", "add", "Water the plants", "--due", "+1s"]).status == 0)
        let pid = try #require(try f.daemonPID())
        kill(pid, SIGKILL)
        #expect(waitUntil(timeout: 5) { kill(pid, 0) != 0 })
        // While it is down, its clock passes the due instant by more than the 10 s of grace.
        try f.moveClock(by: 20)
        #expect(try server.notifications().isEmpty, "nobody was there to remind")
        // The next call starts the daemon by activation.
        #expect(try f.cli(["task", "list"]).status == 0)
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        let note = try #require(try server.notifications().first)
        #expect(note.summary == "Task overdue: Water the plants")
        #expect(note.hints["urgency"] == .byte(2))
        // Restarted again: nothing more.
        let second = try #require(try f.daemonPID())
        kill(second, SIGTERM)
        #expect(waitUntil(timeout: 5) { kill(second, 0) != 0 })
        #expect(try f.cli(["task", "list"]).status == 0)
        try await Task.sleep(for: .seconds(0.5))  // a wrong second reminder would come now
        #expect(try server.notifications().count == 1)
    }

    /// A reminder an hour away: the daemon does not wake while it waits.
    @Test func aWaitingReminderDoesNotWakeTheDaemon() async throws {
        let f = try DaemonFixture()
        let server = try NotificationServer(busAddress: f.bus.address)
        #expect(try f.cli(["task", "add", "Later", "--due", "+1h"]).status == 0)
        let pid = try #require(try f.daemonPID())
        let before = try #require(quietContextSwitches(of: pid))
        try await Task.sleep(for: .seconds(1))  // a per-second tick would show in this window
        #expect(contextSwitches(of: pid) == before, "the daemon woke while the reminder waited")
        withExtendedLifetime(server) {}
    }

    /// Without a notification server the reminders still come due (counts, signals), and
    /// nothing else is disturbed.
    @Test func noNotificationServerChangesNothingElse() throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["task", "add", "Unseen", "--due", "+1s"]).status == 0)
        #expect(waitUntil(timeout: 5) { (try? taskProperties(f))?["DueTasks"] == .uint32(1) })
        #expect(try f.cli(["toggle", "--print"]).stdout == "running\n")
        #expect(try f.cli(["task", "done", "t1"]).status == 0)
    }

    /// Bad input gets its named error and changes nothing.
    @Test func badInputIsRefusedByNameAndChangesNothing() throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["task", "add", "Keep", "--due", "+1h"]).status == 0)
        let before = try listed(f)
        let cases: [(String, [String], String)] = [
            ("AddTask", ["''", "@a{sv} {}"], "InvalidArgument"),
            ("AddTask", ["'tab\\there'", "@a{sv} {}"], "InvalidArgument"),
            ("AddTask", ["'\(String(repeating: "x", count: 201))'", "@a{sv} {}"], "InvalidArgument"),
            ("AddTask", ["'T'", "{'Project': <'nope'>}"], "NoSuchProject"),
            ("AddTask", ["'T'", "{'Colour': <'red'>}"], "InvalidArgument"),
            ("AddTask", ["'T'", "{'Due': <'soon'>}"], "InvalidArgument"),
            ("AddTask", ["'T'", "{'Due': <int64 -5>}"], "InvalidArgument"),
            ("UpdateTask", ["'t1'", "@a{sv} {}"], "InvalidArgument"),
            ("UpdateTask", ["'t9'", "{'Title': <'x'>}"], "NoSuchTask"),
            ("UpdateTask", ["'t1'", "{'Title': <''>}"], "InvalidArgument"),
            ("CompleteTask", ["'t9'"], "NoSuchTask"),
            ("ReopenTask", ["'nope'"], "NoSuchTask"),
            ("DeleteTask", ["'t9'"], "NoSuchTask"),
            ("SnoozeTask", ["'t1'", "int64 -1"], "InvalidArgument"),
            ("SnoozeTask", ["'t1'", "int64 100000000000"], "InvalidArgument"),
        ]
        for (member, arguments, error) in cases {
            let r = try runProcess(
                "/usr/bin/gdbus",
                ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
                 "--method", "\(ContractNames.tasksInterface).\(member)"] + arguments)
            #expect(r.status != 0, "\(member) \(arguments) was accepted")
            #expect(r.stderr.contains("GDBus.Error:\(ContractNames.errorPrefix)\(error): "), "\(member) \(arguments): \(r.stderr)")
        }
        #expect(try listed(f) == before)
        // The CLI: a bad WHEN is a usage error before any call.
        let r = try f.cli(["task", "add", "X", "--due", "2026-02-30 09:00"])
        #expect(r.status == 2 && r.stderr.hasPrefix("biomatimer: --due '2026-02-30 09:00' is not a time"), "\(r.stderr)")
        #expect(try listed(f) == before)
    }

    /// Deleting a project leaves its tasks, without a project.
    @Test func aDeletedProjectLeavesItsTasks() throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["project", "add", "Client A"]).status == 0)
        #expect(try f.cli(["task", "add", "Invoice", "--project", "Client A"]).status == 0)
        #expect(try listed(f).first?["Project"] == .string("p1"))
        #expect(try f.cli(["project", "delete", "Client A", "--yes"]).status == 0)
        #expect(try listed(f).first?["Project"] == .string(""))
        #expect(try listed(f).first?["Title"] == .string("Invoice"))
    }
}
