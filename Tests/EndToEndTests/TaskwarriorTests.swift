import BiomaDaemon
import BiomaInstall
import DBusKit
import Foundation
import Testing

import TestSupport

/// Taskwarrior's on-modify hook with the real `task` (Debian's taskwarrior) in a temporary
/// TASKDATA and TASKRC, the hook installed as `biomatimer install --taskwarrior` writes it,
/// against the real daemon on a private bus.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct TaskwarriorTests {
    final class Taskwarrior {
        let data: URL
        let rc: URL
        var env: [String: String]

        init(bus: [String: String]) throws {
            data = try makeTemporaryDirectory("biomatimer-taskdata")
            rc = data.appendingPathComponent("taskrc")
            // No questions, no colour, no news: what a script sees (hooks' feedback on stderr).
            try "confirmation=off\ncolor=off\nnews.version=2.6.0\n".write(to: rc, atomically: true, encoding: .utf8)
            env = bus
            env["TASKDATA"] = data.path
            env["TASKRC"] = rc.path
            let hooks = Installer.taskwarriorHooksFolder(environment: env)
            try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
            try writeExecutable(Installer.taskwarriorHook(front: DaemonFixture.binary), to: URL(fileURLWithPath: hooks + "/on-modify.biomatimer"))
        }

        deinit { try? FileManager.default.removeItem(at: data) }

        @discardableResult
        func task(_ arguments: [String]) throws -> ProcessResult {
            try runProcess("/usr/bin/task", arguments, environment: env).requireSuccess("task \(arguments.joined(separator: " "))")
        }
    }

    /// What runs: the project's name ("" for none) and the running interval's note, or nil.
    static func running(_ f: DaemonFixture) throws -> (project: String, note: String)? {
        let p = try f.properties()
        guard p["Running"] == .boolean(true) else { return nil }
        let day = p["Day"]?.string ?? ""
        let intervals = try f.method("ListIntervals", [.string(day), .string(day)]).first?.array ?? []
        let open = intervals.compactMap(\.vardict).last { $0["End"] == .int64(0) }
        return (p["ActiveProjectName"]?.string ?? "", open?["Note"]?.string ?? "")
    }

    @Test func taskStartAndStopDriveTheTimer() throws {
        let f = try DaemonFixture()
        let tw = try Taskwarrior(bus: f.environment)
        try tw.task(["add", "project:ACME", "Write", "report"])
        try tw.task(["add", "Read", "mail"])

        let started = try tw.task(["1", "start"])
        #expect(started.stderr.contains("biomatimer: tracking ACME: Write report"), "\(started.stdout) \(started.stderr)")
        var now = try Self.running(f)
        #expect(now?.project == "ACME" && now?.note == "Write report", "\(String(describing: now))")
        // The project was made on first use, coloured from its name.
        let projects = try f.method("ListProjects").first?.array ?? []
        #expect(projects.compactMap(\.vardict).first { $0["Name"] == .string("ACME") }?["Color"] != .string("#007AFF"))

        try tw.task(["1", "stop"])
        #expect(try Self.running(f) == nil)

        // Another task started while one runs: switched.
        try tw.task(["1", "start"])
        try tw.task(["2", "start"])
        now = try Self.running(f)
        #expect(now?.project == "" && now?.note == "Read mail", "\(String(describing: now))")
        // Stopping a task that does not run leaves the one that does.
        try tw.task(["1", "stop"])
        #expect(try Self.running(f)?.note == "Read mail")
        try tw.task(["2", "stop"])
        #expect(try Self.running(f) == nil)

        // Done while running: stopped.
        try tw.task(["1", "start"])
        #expect(try Self.running(f)?.project == "ACME")
        try tw.task(["1", "done"])
        #expect(try Self.running(f) == nil)
        // Deleted while running: stopped.
        try tw.task(["add", "project:ACME", "Plan", "the", "week"])
        try tw.task(["+LATEST", "start"])
        #expect(try Self.running(f)?.note == "Plan the week")
        try tw.task(["+LATEST", "delete"])
        #expect(try Self.running(f) == nil)
        // Taskwarrior kept every modification.
        let export = try tw.task(["export"]).stdout
        #expect(export.contains("\"status\":\"completed\"") && export.contains("Read mail"))
    }

    /// No daemon and no bus: `task` still succeeds, with biomatimer's one line as feedback.
    @Test func withoutABusTaskStillSucceeds() throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/biomatimer-test-bus"
        env["XDG_RUNTIME_DIR"] = "/nonexistent"
        let tw = try Taskwarrior(bus: env)
        try tw.task(["add", "project:ACME", "Write", "report"])
        let started = try tw.task(["1", "start"])
        let feedback = (started.stdout + started.stderr).split(separator: "\n").filter { $0.hasPrefix("biomatimer") }
        #expect(feedback.count == 1 && feedback.first?.contains("cannot reach the D-Bus session bus") == true, "\(started.stdout) \(started.stderr)")
        #expect(try tw.task(["_get", "1.start"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty == false)
        try tw.task(["1", "done"])
    }

    /// Where `install --taskwarrior` puts the hook: hooks.location, else hooks/ in TASKDATA or
    /// data.location, else ~/.task/hooks; the installed hook is the shipped one naming the front.
    @Test func theHooksFolderAndTheShippedHook() throws {
        let home = try makeTemporaryDirectory("biomatimer-home")
        defer { try? FileManager.default.removeItem(at: home) }
        #expect(Installer.taskwarriorHooksFolder(environment: ["HOME": home.path]) == home.path + "/.task/hooks")
        #expect(Installer.taskwarriorHooksFolder(environment: ["HOME": home.path, "TASKDATA": "/d"]) == "/d/hooks")
        try "data.location=~/tasks  # mine\n".write(to: home.appendingPathComponent(".taskrc"), atomically: true, encoding: .utf8)
        #expect(Installer.taskwarriorHooksFolder(environment: ["HOME": home.path]) == home.path + "/tasks/hooks")
        try "data.location=~/tasks\nhooks.location = /h\n".write(to: home.appendingPathComponent("rc"), atomically: true, encoding: .utf8)
        #expect(Installer.taskwarriorHooksFolder(environment: ["HOME": home.path, "TASKRC": home.path + "/rc"]) == "/h")

        let shipped = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Sources/BiomaInstall/taskwarrior/on-modify.biomatimer"), encoding: .utf8)
        #expect(Installer.taskwarriorHookTemplate == shipped)
        let installed = Installer.taskwarriorHook(front: "/opt/it's/bin/biomatimer")
        #expect(installed == shipped.replacingOccurrences(of: "\nbiomatimer=biomatimer\n", with: "\nbiomatimer='/opt/it'\\''s/bin/biomatimer'\n"))
    }
}
