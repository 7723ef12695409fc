import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// One event loop per process: the daemon with a session bus and a system bus (python3-dbusmock's
/// logind on a private one) runs two threads, the loop and the main thread waiting for the exit
/// code; `biomatimer watch`, its clicks read too, runs two. Counted in `/proc/PID/task` of the
/// real binaries, after each has done the work of every source it polls.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct ThreadCountTests {
    static func threads(_ pid: pid_t) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count
    }

    @Test func theDaemonOnASessionAndASystemBusRunsTwoThreads() throws {
        let f = try DaemonFixture(activation: false)
        let system = try PrivateBus()
        let logind = try LogindTests.Logind(system)
        var env = f.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = system.address
        let daemon = try ChildProcess(
            DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path, "--away-after", "1h"], environment: env)
        defer { daemon.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) != nil }, "the daemon did not start")
        #expect(try f.daemonPID() == daemon.pid)
        // Both connections in use: the delay lock taken on the system bus, a call on the
        // session bus, a lock from logind followed through to the timer, a sleep and a wake.
        #expect(waitUntil(timeout: 5) { (try? logind.inhibitors()) == [["sleep", "biomatimer", "delay"]] })
        #expect(try f.cli(["start"]).status == 0)
        try logind.call(logind.session, "org.freedesktop.login1.Session", "SetLockedHint", [.boolean(true)])
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Away"]) == .string("lock") })
        try logind.call(logind.session, "org.freedesktop.login1.Session", "SetLockedHint", [.boolean(false)])
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Away"]) == .string("") })
        try logind.prepareForSleep(true)
        #expect(waitUntil(timeout: 5) { (try? logind.inhibitors()) == [] }, "the delay lock is released after the stop")
        try logind.prepareForSleep(false)
        #expect(waitUntil(timeout: 5) { (try? logind.inhibitors()) == [["sleep", "biomatimer", "delay"]] }, "a new lock")
        let count = try Self.threads(daemon.pid)
        #expect(count <= 2, "the daemon runs \(count) threads")
        // And it still ends cleanly, both connections closed by the one loop.
        daemon.signal(SIGTERM)
        #expect(daemon.wait() == 0)
    }

    @Test func theWatchRunsTwoThreads() throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["start"]).status == 0)
        var env = f.environment
        env["BLOCK_INTERVAL"] = "persist"
        let watcher = try watch(f, ["--format", "i3blocks"], environment: env, pipeInput: true)
        defer { watcher.stop() }
        // Redrawn once a second through the loop's deadlines.
        let first = try #require(watcher.lines.next(timeout: 10), "no line; stderr: \(watcher.errors)")
        #expect(watcher.lines.next(timeout: 3) { $0 != first.text } != nil, "no redraw a second later")
        // A click read from stdin on the loop: the timer stops.
        let click = #"{"name":"biomatimer","instance":"","full_text":"x","button":1,"x":3,"y":4}"#
        watcher.process.stdin?.write(Data((click + "\n").utf8))
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Running"]) == .boolean(false) }, "left click toggles")
        let count = try Self.threads(watcher.process.pid)
        #expect(count <= 2, "the watch runs \(count) threads")
    }
}
