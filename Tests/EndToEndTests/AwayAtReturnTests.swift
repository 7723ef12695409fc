import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// An absence is decided with the facts at the return, whether or not its decision deadline
/// fired; and what the daemon knows of it survives a restart, as do the notifications it
/// showed. The daemon runs under libfaketime with a clock file the test moves
/// (`FAKETIME_NO_CACHE=1`), so its clock jumps past `away_after` while its deadline, armed on
/// the kernel's clock, has not fired.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct AwayAtReturnTests {
    /// A daemon whose clock the test moves with `move(to:)` (seconds after where it started,
    /// at noon today).
    final class MovedDaemon: @unchecked Sendable {
        let f: DaemonFixture
        let clock: MovableClock
        var process: ChildProcess?

        init(_ f: DaemonFixture) throws {
            self.f = f
            clock = try MovableClock(
                file: f.dataDirectory.deletingLastPathComponent().appendingPathComponent(
                    "faketime-away-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"))
        }

        deinit {
            process?.terminate()
            try? FileManager.default.removeItem(at: clock.file)
        }

        func move(to offset: Int) throws { try clock.set(ahead: offset) }

        func start() throws {
            var env = clock.environment(f.environment)
            env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/system_bus_socket"
            process = try ChildProcess(
                DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path, "--away-after", "10m"], environment: env)
            guard waitUntil(timeout: 10, { (try? self.f.daemonPID()) == self.process?.pid }) else {
                throw TestSupportError("the daemon did not start")
            }
        }

        func stop() {
            guard let process else { return }
            process.signal(SIGTERM)
            _ = process.wait()
            self.process = nil
        }
    }

    func daily(_ f: DaemonFixture) throws -> Int64 { try #require(try f.properties()["DailyTotal"]?.int64) }

    /// A 15-minute lock whose decision deadline had not fired: at the return it is not work.
    @Test func aLockPastTheThresholdIsRemovedAtTheReturnThoughItsDeadlineNeverFired() throws {
        let f = try DaemonFixture(activation: false)
        let server = try NotificationServer(busAddress: f.bus.address)
        let daemon = try MovedDaemon(f)
        try daemon.start()
        #expect(try f.cli(["start"]).status == 0)
        #expect(try f.cli(["away", "lock"]).status == 0)
        let since = try #require(try f.properties()["AwaySince"]?.int64)
        // Fifteen minutes and a second pass in the daemon's clock; its deadline (ten minutes
        // on, on the kernel's clock) is far from due.
        try daemon.move(to: 901)
        #expect(try f.cli(["away", "back"]).status == 0)
        let p = try f.properties()
        #expect(p["Away"] == .string(""))
        #expect(p["Running"] == .boolean(false), "policy stop: work stopped at the lock")
        let work = try daily(f)
        #expect(work < 60_000_000, "the lock counted as work: \(work) µs")
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        #expect(try server.notifications().first?.summary == "Welcome back: work is stopped")
        // The same facts decide at any change, not only at the return: a call while still
        // away past the threshold removes the absence first.
        #expect(try f.cli(["start"]).status == 0)
        #expect(try f.cli(["away", "lock"]).status == 0)
        let second = try #require(try f.properties()["AwaySince"]?.int64)
        #expect(second > since)
        try daemon.move(to: 901 + 700)
        #expect(try f.cli(["project", "add", "Later"]).status == 0)
        #expect(try f.properties()["Running"] == .boolean(false), "the second lock was decided at the call")
        #expect(try f.properties()["Away"] == .string("lock"))
    }

    /// Locked, the daemon restarted, then back past the threshold: the absence and its start
    /// were kept; and the removed time, offered to `KeepAway`, survives another restart.
    @Test func theAbsenceAndTheTimeToGiveBackSurviveARestart() throws {
        let f = try DaemonFixture(activation: false)
        let daemon = try MovedDaemon(f)
        try daemon.start()
        #expect(try f.cli(["start"]).status == 0)
        #expect(try f.cli(["away", "lock"]).status == 0)
        let since = try #require(try f.properties()["AwaySince"]?.int64)
        daemon.stop()
        try daemon.start()
        #expect(try f.properties()["Away"] == .string("lock"), "the absence was forgotten")
        #expect(try f.properties()["AwaySince"] == .int64(since))
        try daemon.move(to: 901)
        #expect(try f.cli(["away", "back"]).status == 0)
        #expect(try f.properties()["Running"] == .boolean(false))
        #expect(try daily(f) < 60_000_000)
        daemon.stop()
        try daemon.start()
        #expect(try f.properties()["Away"] == .string(""))
        // The lock's fifteen minutes, counted after all.
        let kept = try f.cli(["away", "keep"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let total = try daily(f)
        #expect(total >= 900_000_000, "KeepAway gave back \(total) µs")
        // Once.
        daemon.stop()
        try daemon.start()
        #expect(try f.cli(["away", "keep"]).status == 1)
    }

    /// A task's reminder after a restart replaces the notification the previous run showed.
    @Test func aReminderAfterARestartReplacesItsOldNotification() throws {
        let f = try DaemonFixture(activation: false)
        let server = try NotificationServer(busAddress: f.bus.address)
        let daemon = try MovedDaemon(f)
        try daemon.start()
        #expect(try f.cli(["task", "add", "Water the plants", "--due", "+5m"]).status == 0)
        try daemon.move(to: 301)
        // A change of the task list makes the daemon look now (its deadline is on the
        // kernel's clock, not due).
        #expect(try f.cli(["task", "add", "Garden"]).status == 0)
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        let first = try #require(try server.notifications().first)
        #expect(first.replacesID == 0 && first.summary.hasSuffix("Water the plants"))
        daemon.stop()
        try daemon.start()
        #expect(try f.cli(["task", "snooze", "t1", "1m"]).status == 0)
        try daemon.move(to: 301 + 61)
        #expect(try f.cli(["task", "add", "Kitchen"]).status == 0)
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 2 })
        #expect(try server.notifications().last?.replacesID == 1, "the reminder after the restart was added beside the old one")
    }
}
