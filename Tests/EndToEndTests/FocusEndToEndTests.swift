import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Focus timers end to end: the daemon on a private bus, python3-dbusmock's notification
/// server beside it, the real CLI, busctl and gdbus.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct FocusEndToEndTests {
    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    func focus(_ f: DaemonFixture, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        let client = try BlockingBus(.address(f.bus.address))
        return try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.focusInterface, member: member,
            arguments)
    }

    func focusProperties(_ f: DaemonFixture) throws -> [String: DBusValue] {
        let client = try BlockingBus(.address(f.bus.address))
        return try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string(ContractNames.focusInterface)]
        ).first?.vardict ?? [:]
    }

    /// Focus1's PropertiesChanged and PhaseEnded signals, each with the instant it arrived.
    final class FocusSignals: @unchecked Sendable {
        let bus: Bus
        let changes = SignalLog()
        let ended = SignalLog()
        private let lock = NSLock()
        private var endedAt: [Int64] = []

        init(_ f: DaemonFixture) throws {
            bus = try Bus(.address(f.bus.address))
            try bus.subscribe(
                MatchRule(
                    path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                    arg0: ContractNames.focusInterface)
            ) { [changes] in changes.add($0.arguments[1].vardict ?? [:]) }
            try bus.subscribe(MatchRule(path: ContractNames.objectPath, interface: ContractNames.focusInterface, member: "PhaseEnded")) {
                [self] message in
                lock.lock()
                endedAt.append(FocusEndToEndTests.now())
                lock.unlock()
                ended.add(message.arguments.first?.vardict ?? [:])
            }
        }

        var arrivals: [Int64] {
            lock.lock()
            defer { lock.unlock() }
            return endedAt
        }

        deinit { bus.close() }
    }

    @Test func aCountdownEndsOnTimeWithOneSignalPerTransitionAndAnAlarm() async throws {
        let f = try DaemonFixture()
        let server = try NotificationServer(busAddress: f.bus.address)
        try f.cliOK(["status"])  // the daemon runs before the listener subscribes
        let signals = try FocusSignals(f)
        let started = try f.cli(["focus", "countdown", "2s", "--label", "Tea <green>"])
        #expect(started.status == 0, "\(started.stderr)")
        #expect(signals.changes.wait(count: 1))
        let first = try #require(signals.changes.all.first)
        #expect(first["State"] == .string("running") && first["Kind"] == .string("countdown"))
        #expect(first["Label"] == .string("Tea <green>") && first["Rounds"] == .uint32(1))
        let endsAt = try #require(first["PhaseEndsAt"]?.int64)

        // The end: one PhaseEnded at PhaseEndsAt, and one PropertiesChanged. It is sent after
        // the phase's end is committed (fsynced), so on a loaded machine it may come a little
        // late: half a second is the bound here, which a once-a-second tick would miss half the
        // time; `make bench` measures the lateness itself (median and p99).
        #expect(signals.ended.wait(count: 1, timeout: 5))
        let arrival = try #require(signals.arrivals.first)
        #expect(arrival >= endsAt && arrival - endsAt < 500_000, "PhaseEnded came \(arrival - endsAt) µs after PhaseEndsAt")
        let end = try #require(signals.ended.all.first)
        #expect(end["Kind"] == .string("countdown") && end["Phase"] == .string("countdown"))
        #expect(end["End"] == .int64(endsAt) && end["Completed"] == .boolean(true) && end["Late"] == .boolean(false))
        #expect(end["Next"] == .string(""))
        #expect(signals.changes.wait(count: 2))
        try await Task.sleep(for: .seconds(0.3))
        #expect(signals.changes.all.count == 2, "no signal per second: \(signals.changes.all)")
        #expect(signals.changes.all.last?["State"] == .string("done"))
        #expect(signals.changes.all.last?["PhaseEndsAt"] == .int64(0))

        // The alarm: critical, with the sound, and "+1 min" that works when clicked.
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        let note = try #require(try server.notifications().first)
        #expect(note.summary == "Tea <green>: Time is up")
        #expect(note.hints["urgency"] == .byte(2) && note.hints["sound-name"] == .string("alarm-clock-elapsed"))
        #expect(note.actions == ["extend", "+1 min"])
        // A click on a notification that is not the daemon's does nothing.
        try server.invoke("extend", on: 77)
        try await Task.sleep(for: .seconds(0.5))
        #expect(try focusProperties(f)["State"] == .string("done"))
        try server.invoke("extend", on: 1)
        #expect(waitUntil(timeout: 5) { (try? focusProperties(f))?["State"] == .string("running") })
        let remaining = try #require(try focusProperties(f)["Remaining"]?.int64)
        #expect(remaining > 55_000_000 && remaining <= 60_000_000)
        #expect(try f.cli(["focus", "stop"]).status == 0)
        #expect(try focusProperties(f)["State"] == .string("off"))
    }

    @Test func aPomodoroDrivesItsProjectAndItsNotificationsReplaceEachOther() async throws {
        let f = try DaemonFixture()
        let server = try NotificationServer(busAddress: f.bus.address)
        #expect(try f.cli(["project", "add", "Writing"]).status == 0)
        let r = try f.busctl([
            "call", ContractNames.busName, ContractNames.objectPath, ContractNames.focusInterface, "StartPomodoro", "a{sv}", "4",
            "Work", "x", "2000000", "ShortBreak", "x", "4000000", "Project", "s", "writing", "Label", "s", "Essay",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try f.properties()["ActiveProjectName"] == .string("Writing"))
        #expect(try f.properties()["Running"] == .boolean(true))
        #expect(try focusProperties(f)["Project"] == .string("p1"))

        // The work phase ends: a break starts by itself and work stops. (The break is four
        // seconds, so a loaded machine still sees it and its notification before it ends.)
        #expect(waitUntil(timeout: 5) { (try? focusProperties(f))?["Phase"] == .string("short-break") })
        #expect(try f.properties()["Running"] == .boolean(false))
        #expect(waitUntil(timeout: notificationWait) { ((try? server.notifications().count) ?? 0) >= 1 })
        var notes = try server.notifications()
        #expect(notes[0].summary == "Essay: Work 1 done")
        #expect(notes[0].body == "Short break 0:04 started. · Writing")
        #expect(notes[0].actions == ["skip", "Skip break", "extend", "+1 min"])
        #expect(notes[0].replacesID == 0)

        // The break ends: work waits for confirmation; the notification replaces the first.
        #expect(waitUntil(timeout: 5) { (try? focusProperties(f))?["State"] == .string("waiting") })
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 2 })
        notes = try server.notifications()
        #expect(notes[1].replacesID == 1)
        #expect(notes[1].actions == ["start", "Start", "skip", "Skip"])
        #expect(try focusProperties(f)["Round"] == .uint32(2))

        // "Start", clicked: work and its project run again.
        try server.invoke("start", on: 1)
        #expect(waitUntil(timeout: 5) { (try? focusProperties(f))?["State"] == .string("running") })
        #expect(try f.properties()["ActiveProjectName"] == .string("Writing"))

        // Stopping work by hand pauses the focus timer; the two never disagree.
        #expect(try f.cli(["stop"]).status == 0)
        #expect(try focusProperties(f)["State"] == .string("paused"))
        // Resuming the focus timer runs the project again.
        #expect(try f.cli(["focus", "toggle"]).status == 0)
        #expect(try f.properties()["ActiveProjectName"] == .string("Writing"))
        #expect(try f.cli(["focus", "stop"]).status == 0)
        #expect(try f.properties()["Running"] == .boolean(false))

        // The report counts the completed pomodoro and its focus time, per day and project.
        let report = try #require(try f.method("Report", [.string("day"), .string("")]).first?.vardict)
        let day = try #require(report["Focus"]?.array?.first?.vardict)
        #expect(day["Completed"] == .uint32(1))
        #expect((day["FocusTime"]?.int64 ?? 0) >= 2_000_000)
        #expect(report["Projects"]?.array?.first?.vardict?["Completed"] == .uint32(1))
        #expect(try focusProperties(f)["CompletedToday"] == .uint32(1))
        let history = try #require(try focus(f, "FocusHistory", [.string(""), .string("")]).first?.array)
        #expect(history.compactMap { $0.vardict?["Phase"]?.string }.prefix(2) == ["work", "short-break"])
        #expect(history.first?.vardict?["Planned"] == .int64(2_000_000))
    }

    /// kill -9 mid-phase: the restarted daemon has the same PhaseEndsAt. A phase that ended
    /// while it was down is announced once, late, and the next waits.
    @Test func theFocusTimerSurvivesKillAndMissedPhasesAreNotReplayed() async throws {
        let f = try DaemonFixture()
        let server = try NotificationServer(busAddress: f.bus.address)
        #expect(try f.cli(["focus", "intervals", "1h", "10m", "--rounds", "3", "--label", "Gym"]).status == 0)
        let endsAt = try #require(try focusProperties(f)["PhaseEndsAt"]?.int64)
        var pid = try #require(try f.daemonPID())
        kill(pid, SIGKILL)
        #expect(waitUntil(timeout: 5) { kill(pid, 0) != 0 })
        var p = try focusProperties(f)  // activation starts it again
        #expect(p["PhaseEndsAt"] == .int64(endsAt) && p["State"] == .string("running") && p["Phase"] == .string("active"))

        // Down for three hours (the daemon's clock moved by libfaketime): one late end.
        pid = try #require(try f.daemonPID())
        kill(pid, SIGKILL)
        #expect(waitUntil(timeout: 5) { kill(pid, 0) != 0 })
        let signals = try FocusSignals(f)
        var env = f.environment
        env["FAKETIME"] = "+3h"
        env["LD_PRELOAD"] = libfaketime
        let later = try f.startDaemon(environment: env)
        #expect(signals.ended.wait(count: 1, timeout: 10))
        let end = try #require(signals.ended.all.first)
        #expect(end["Late"] == .boolean(true) && end["End"] == .int64(endsAt) && end["Next"] == .string("rest"))
        p = try focusProperties(f)
        #expect(p["State"] == .string("waiting") && p["Phase"] == .string("rest") && p["PhaseEndsAt"] == .int64(0))
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        let note = try #require(try server.notifications().first)
        #expect(note.summary == "Gym: Active 1/3 done (while biomatimer was not running)")
        #expect(note.actions == ["start", "Start", "skip", "Skip"])
        later.terminate()
        // Started again: nothing more is announced.
        let again = try f.startDaemon(environment: env)
        defer { again.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) == again.pid }, "the daemon did not start again")
        try await Task.sleep(for: .seconds(0.5))
        #expect(signals.ended.all.count == 1)
        #expect(try server.notifications().count == 1)
        #expect(try focusProperties(f)["State"] == .string("waiting"))
    }

    /// A pomodoro work phase across midnight under libfaketime: the history has it once, the
    /// reports split its time between the two days and count it on the day it ended. The daemon
    /// starts five seconds before midnight, so the phase starts before it on a loaded machine.
    @Test func aPhaseAcrossMidnightSplits() throws {
        let f = try DaemonFixture(activation: false)
        var env = f.environment
        env["TZ"] = "UTC"
        let daemon = try f.startDaemon(at: "2026-11-22 23:59:55", environment: env)
        defer { daemon.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) != nil }, "the daemon did not start under faketime")
        _ = try focus(f, "StartPomodoro", [.vardict(["Work": .int64(8_000_000)])])
        #expect(waitUntil(timeout: 20) { (try? focusProperties(f))?["Phase"] == .string("short-break") })
        let first = try #require(try f.method("Report", [.string("day"), .string("2026-11-22")]).first?.vardict)
        let second = try #require(try f.method("Report", [.string("day"), .string("2026-11-23")]).first?.vardict)
        let a = try #require(first["Focus"]?.array?.first?.vardict)
        let b = try #require(second["Focus"]?.array?.first?.vardict)
        let before = a["FocusTime"]?.int64 ?? 0
        let after = b["FocusTime"]?.int64 ?? 0
        #expect(before > 1_000_000 && before <= 5_100_000, "\(before)")
        #expect(before + after == 8_000_000)
        #expect(a["Completed"] == .uint32(0) && b["Completed"] == .uint32(1))
        let history = try #require(
            try focus(f, "FocusHistory", [.string("2026-11-22"), .string("2026-11-23")]).first?.array)
        #expect(history.count == 1)
        // `focus history` reads it through the same table: JSON for scripts, and a line a phase.
        let json = try f.cliOK(["focus", "history", "--from", "2026-11-22", "--to", "2026-11-23", "--json"], environment: env)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows.first?["kind"] as? String == "pomodoro" && rows.first?["phase"] as? String == "work")
        #expect(rows.first?["round"] as? Int == 1 && rows.first?["completed"] as? Bool == true)
        #expect(rows.first?["planned"] as? Int == 8_000_000)
        let (start, end) = (rows.first?["start"] as? Int ?? 0, rows.first?["end"] as? Int ?? 0)
        #expect(end - start == 8_000_000, "\(json.stdout)")
        let table = try f.cliOK(["focus", "history", "--from", "2026-11-22", "--to", "2026-11-23"], environment: env).stdout
        #expect(table.split(separator: "\n").count == 1 && table.contains("Work") && table.hasSuffix("0:08  done\n"), "\(table)")
    }

    /// Bad input gets its named error and changes nothing.
    @Test func badInputIsRefusedByNameAndChangesNothing() throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["focus", "preset", "add", "Tea", "countdown", "--duration", "4m"]).status == 0)
        let cases: [(String, [String], String)] = [
            ("Pause", [], "NoFocus"),
            ("Skip", [], "NoFocus"),
            ("Extend", ["int64 60000000"], "NoFocus"),
            ("StopFocus", [], "NoFocus"),
            ("StartCountdown", ["int64 999999", "@a{sv} {}"], "InvalidArgument"),
            ("StartCountdown", ["int64 86400000001", "@a{sv} {}"], "InvalidArgument"),
            ("StartCountdown", ["int64 60000000", "{'Colour': <'red'>}"], "InvalidArgument"),
            ("StartCountdown", ["int64 60000000", "{'Label': <int64 5>}"], "InvalidArgument"),
            ("StartCountdown", ["int64 60000000", "{'Project': <'nope'>}"], "NoSuchProject"),
            ("StartPomodoro", ["{'Work': <'25m'>}"], "InvalidArgument"),
            ("StartPomodoro", ["{'LongBreakEvery': <uint32 0>}"], "InvalidArgument"),
            ("StartPomodoro", ["{'Duration': <int64 60000000>}"], "InvalidArgument"),
            ("StartIntervals", ["int64 0", "int64 0", "uint32 3", "@a{sv} {}"], "InvalidArgument"),
            ("StartIntervals", ["int64 60000000", "int64 -1", "uint32 3", "@a{sv} {}"], "InvalidArgument"),
            ("StartPreset", ["'Coffee'"], "NoSuchPreset"),
            ("AddPreset", ["'X'", "'stopwatch'", "@a{sv} {}"], "InvalidArgument"),
            ("AddPreset", ["'tea'", "'countdown'", "{'Duration': <int64 60000000>}"], "NameTaken"),
            ("AddPreset", ["'Y'", "'countdown'", "{'Work': <int64 60000000>}"], "InvalidArgument"),
            ("UpdatePreset", ["'Coffee'", "{'Name': <'Z'>}"], "NoSuchPreset"),
            ("UpdatePreset", ["'Tea'", "{'Duration': <int64 0>}"], "InvalidArgument"),
            ("DeletePreset", ["'f9'"], "NoSuchPreset"),
            ("FocusHistory", ["'2026-13-01'", "''"], "InvalidArgument"),
        ]
        let presets = try focus(f, "ListPresets")
        for (member, arguments, error) in cases {
            let r = try runProcess(
                "/usr/bin/gdbus",
                ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
                 "--method", "\(ContractNames.focusInterface).\(member)"] + arguments)
            #expect(r.status != 0, "\(member) \(arguments) was accepted")
            #expect(r.stderr.contains("GDBus.Error:\(ContractNames.errorPrefix)\(error): "), "\(member) \(arguments): \(r.stderr)")
        }
        #expect(try focusProperties(f)["State"] == .string("off"))
        #expect(try focus(f, "ListPresets") == presets)
        // The CLI: a bad duration is a usage error before any call.
        let bad = try f.cli(["focus", "countdown", "5 minutes"])
        #expect(bad.status == 2 && bad.stderr.hasPrefix("biomatimer: DURATION `5 minutes` is not a length"), "\(bad.stderr)")
        #expect(try f.cli(["focus", "pomodoro", "--work", "25h"]).status == 2)
        // The front and the tool refuse alike.
        let front = try f.cli(["focus", "skip"])
        let tool = try runProcess(
            productsDirectory.appendingPathComponent("biomatimer-tool").path, ["focus", "skip"], environment: f.environment)
        #expect(front.status == 1 && front.stderr == tool.stderr && tool.status == 1, "\(front.stderr) / \(tool.stderr)")
        #expect(front.stderr.contains("Nothing is running") || front.stderr.contains("no focus timer"), "\(front.stderr)")
    }

    /// Presets: a keybinding starts one by name; the label is the preset's name.
    @Test func presetsStartByNameAndListWithTheirOptions() throws {
        let f = try DaemonFixture()
        let add = try f.cli(["focus", "preset", "add", "Gym", "intervals", "--active", "40s", "--rest", "20s", "--rounds", "8"])
        #expect(add.status == 0 && add.stdout == "f1\n", "\(add.stderr)")
        #expect(try f.cli(["focus", "preset", "edit", "gym", "--rounds", "6"]).status == 0)
        let list = try f.cli(["focus", "preset", "list"])
        #expect(list.stdout == "f1   Gym                  intervals  0:40 active, 0:20 rest, 6 rounds\n", "\(list.stdout)")
        #expect(try f.cli(["focus", "start", "GYM"]).status == 0)
        let p = try focusProperties(f)
        #expect(p["Label"] == .string("Gym") && p["Rounds"] == .uint32(6) && p["Kind"] == .string("intervals"))
        let status = try f.cli(["focus", "status"])
        // 0:40 just after the start (0:39 on a slow machine).
        #expect(status.stdout.hasPrefix("Focus: Active 1/6, 0:") && status.stdout.hasSuffix(" left · Gym\n"), "\(status.stdout)")
        #expect(try f.cli(["focus", "preset", "delete", "Gym"]).status == 0)
        #expect(try f.cli(["focus", "preset", "list"]).stdout.hasPrefix("No presets"))
    }

    /// While a phase runs, the daemon does not wake until it ends.
    @Test func aRunningPhaseDoesNotWakeTheDaemon() async throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["focus", "countdown", "25m"]).status == 0)
        let pid = try #require(try f.daemonPID())
        let before = try #require(quietContextSwitches(of: pid))
        try await Task.sleep(for: .seconds(1))  // a per-second tick would show in this window
        #expect(contextSwitches(of: pid) == before, "the daemon woke while the phase ran")
    }

    /// No notification server: the phases go on. The settings' phase-end command runs with
    /// the phase in its environment.
    @Test func withoutANotificationServerTheTimerGoesOnAndTheCommandRuns() throws {
        let config = try makeTemporaryDirectory("biomatimer-config")
        defer { try? FileManager.default.removeItem(at: config) }
        let out = config.appendingPathComponent("ended")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("biomatimer"), withIntermediateDirectories: true)
        try "phase_end_command = echo \"$BIOMATIMER_KIND $BIOMATIMER_PHASE $BIOMATIMER_LABEL # $BIOMATIMER_NEXT\" >> \(out.path)\n"
            .write(to: config.appendingPathComponent("biomatimer/config"), atomically: true, encoding: .utf8)
        let f = try DaemonFixture(activation: false)
        var env = f.environment
        env["XDG_CONFIG_HOME"] = config.path
        let daemon = try f.startDaemon(environment: env)
        defer { daemon.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) != nil })
        #expect(try f.cli(["focus", "countdown", "1s", "--label", "Tea"]).status == 0)
        #expect(waitUntil(timeout: 5) { (try? focusProperties(f))?["State"] == .string("done") })
        #expect(waitUntil(timeout: 5) { (try? String(contentsOf: out, encoding: .utf8)) == "countdown countdown Tea # \n" })
    }
}
