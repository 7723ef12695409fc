import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Sleep, lock and idle from logind, as the real daemon sees them: python3-dbusmock's `logind`
/// template on a private system bus, the daemon under libfaketime so the test moves its clock
/// an hour while the machine "sleeps", and the mock notification server for the offer on
/// return. And a daemon with no system bus at all.
@Suite(.ownThreadLong, .timeLimit(.minutes(2)))
struct LogindTests {
    /// The mock logind on `bus`, with a session of this uid.
    final class Logind: @unchecked Sendable {
        let process: ChildProcess
        let address: String
        let session = "/org/freedesktop/login1/session/c1"

        init(_ bus: PrivateBus) throws {
            address = bus.address
            var env = ProcessInfo.processInfo.environment
            env["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
            process = try ChildProcess(
                "/usr/bin/timeout", ["120", "/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "logind"],
                environment: env)
            let client = try BlockingBus(.address(bus.address))
            guard waitUntil(timeout: 10, { (try? client.nameOwner("org.freedesktop.login1")) != nil }) else {
                throw TestSupportError("python3-dbusmock's logind did not start")
            }
            _ = try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "AddSession", [
                .string("c1"), .string("seat0"), .uint32(getuid()), .string("tester"), .boolean(true),
            ])
        }

        deinit { process.terminate(grace: 1) }

        @discardableResult
        func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
            try BlockingBus(.address(address)).call(
                destination: "org.freedesktop.login1", path: path, interface: interface, member: member, arguments,
                autoStart: false)
        }

        func prepareForSleep(_ sleeping: Bool) throws {
            try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock", "EmitSignal", [
                .string("org.freedesktop.login1.Manager"), .string("PrepareForSleep"), .signature("b"),
                .array(.variant, [.variant(.boolean(sleeping))]),
            ])
        }

        /// The inhibitor locks held, as (what, who, mode).
        func inhibitors() throws -> [[String]] {
            (try call("/org/freedesktop/login1", "org.freedesktop.login1.Manager", "ListInhibitors").first?.array ?? [])
                .compactMap { $0.fields?.prefix(4).compactMap(\.string) }.map { [$0[0], $0[1], $0[3]] }
        }
    }

    @Test func sleepFromLogindIsNotWorkAndLockIsAway() async throws {
        let f = try DaemonFixture(activation: false)
        let system = try PrivateBus()
        let logind = try Logind(system)
        let server = try NotificationServer(busAddress: f.bus.address)
        let clock = try MovableClock(
            file: f.dataDirectory.deletingLastPathComponent().appendingPathComponent("faketime-\(getpid())"))
        defer { try? FileManager.default.removeItem(at: clock.file) }
        var env = clock.environment(f.environment)
        env["DBUS_SYSTEM_BUS_ADDRESS"] = system.address
        let daemon = try ChildProcess(
            DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path, "--away-after", "1h"], environment: env)
        defer { daemon.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) != nil }, "the daemon did not start")
        // It holds a delay lock on sleep.
        #expect(waitUntil(timeout: 5) { (try? logind.inhibitors()) == [["sleep", "biomatimer", "delay"]] })

        let day = try #require(try f.properties()["Day"]?.string)
        #expect(try f.cli(["start"]).status == 0)
        try await Task.sleep(for: .seconds(1))
        // The machine is about to sleep: work stops, and the lock is let go once it has.
        try logind.prepareForSleep(true)
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Away"]) == .string("sleep") })
        #expect(try f.properties()["Running"] == .boolean(false))
        #expect(waitUntil(timeout: 5) { (try? logind.inhibitors()) == [] }, "the delay lock is released after the stop")
        // An hour passes asleep.
        try clock.set(ahead: 3600)
        try await Task.sleep(for: .seconds(0.3))
        try logind.prepareForSleep(false)
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Away"]) == .string("") })
        #expect(waitUntil(timeout: 5) { (try? logind.inhibitors()) == [["sleep", "biomatimer", "delay"]] }, "a new lock")
        // The hour is not work: the day holds the second or two before the sleep.
        let report = try f.method("Report", [.string("day"), .string(day)]).first?.vardict ?? [:]
        let work = try #require(report["WorkTotal"]?.int64)
        #expect(work >= 900_000 && work < 60_000_000, "work \(work) µs; the sleeping hour was counted")
        // One offer on return, and only one: the clock gap does not record the same sleep again.
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        #expect(try server.notifications().first?.summary == "Welcome back: work is stopped")
        #expect(try f.cli(["start"]).status == 0)
        try await Task.sleep(for: .seconds(0.5))
        #expect(try server.notifications().count == 1)

        // The session locks and unlocks (LockedHint on the session's own object).
        try logind.call(logind.session, "org.freedesktop.login1.Session", "SetLockedHint", [.boolean(true)])
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Away"]) == .string("lock") })
        try logind.call(logind.session, "org.freedesktop.login1.Session", "SetLockedHint", [.boolean(false)])
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Away"]) == .string("") })
        #expect(try f.properties()["Running"] == .boolean(true), "a short lock counts as work")
    }

    /// No system bus at all: everything else works, and the daemon says once what it cannot
    /// watch.
    @Test func noSystemBusChangesNothingElse() async throws {
        let f = try DaemonFixture(activation: false)
        var env = f.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/system_bus_socket"
        let daemon = try ChildProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: env)
        #expect(waitUntil { (try? f.daemonPID()) != nil }, "the daemon did not start")
        #expect(try f.cli(["toggle", "--print"]).stdout == "running\n")
        #expect(try f.cli(["away", "lock"]).status == 0)
        #expect(try f.properties()["Away"] == .string("lock"))
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
        let log = String(decoding: daemon.stderr?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let lines = log.split(separator: "\n").filter { $0.contains("system bus") }
        #expect(lines.count == 1, "\(log)")
        #expect(lines.first?.hasPrefix("biomatimer daemon: no system bus at unix:path=/nonexistent/system_bus_socket") == true)
    }
}
