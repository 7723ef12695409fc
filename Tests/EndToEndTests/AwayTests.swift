import BiomaCore
import BiomaDaemon
import BiomaStore
import DBusKit
import Foundation
import Testing

import TestSupport

/// Time away is not work: a lock or an idle session past `away_after` is removed from work
/// from its start, a shorter one counts, `KeepAway` counts it after all; the policy decides
/// what happens on return. End to end through the CLI's `away` commands (as swayidle's hooks
/// call them), with python3-dbusmock's notification server for the offer on return.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct AwayTests {
    func property(_ f: DaemonFixture, _ name: String) throws -> DBusValue? { try f.properties()[name] }

    /// The instant the running session began (it began at 0): `UpdatedAt − SessionTime`.
    func workStart(_ f: DaemonFixture) throws -> Int64 {
        let p = try f.properties()
        return try #require(p["UpdatedAt"]?.int64) - (try #require(p["SessionTime"]?.int64))
    }

    @Test func aLongAbsenceIsRemovedFromItsStartAndCanBeCountedAfterAll() async throws {
        let f = try DaemonFixture(extraDaemonArguments: "--away-after 2s", movableClock: true)
        let server = try NotificationServer(busAddress: f.bus.address)
        let monitor = try PropertiesMonitor(environment: f.environment)
        #expect(try f.cli(["project", "add", "Client A"]).status == 0)
        #expect(try f.cli(["project", "start", "Client A"]).status == 0)
        let started = try workStart(f)
        // Three seconds pass on the daemon's clock (and the CLI's, which shares it).
        try f.moveClock(by: 3)
        let signalsBefore = monitor.waitFor(2).count
        // Idle for the last 3 s: past the 2 s threshold, so removed from its start, 3 s before
        // the daemon's now.
        let expectedSince = f.daemonNow - 3_000_000
        let r = try f.cli(["away", "idle", "--since", "-3s"], environment: f.clockEnvironment)
        #expect(r.status == 0, "\(r.stderr)")
        let p = try f.properties()
        #expect(p["Running"] == .boolean(false))
        #expect(p["Away"] == .string("idle"))
        let awaySince = try #require(p["AwaySince"]?.int64)
        #expect(abs(awaySince - expectedSince) < 1_000_000, "AwaySince \(awaySince), expected about \(expectedSince)")
        // Work stopped exactly where the absence began.
        let daily = try #require(p["DailyTotal"]?.int64)
        #expect(daily == max(0, awaySince - started), "DailyTotal \(daily) µs, work ran \(awaySince - started) µs before it")
        // One signal for it, with the state and the absence together.
        let signals = monitor.waitFor(signalsBefore + 1)
        #expect(signals.count == signalsBefore + 1)
        #expect(signals.last?["Away"] as? String == "idle" && signals.last?["Running"] as? Bool == false)

        // Back: not away any more; a notification offers to resume or to count the time.
        #expect(try f.cli(["away", "back"]).status == 0)
        #expect(try property(f, "Away") == .string("") && property(f, "AwaySince") == .int64(0))
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        let note = try #require(try server.notifications().first)
        #expect(note.summary == "Welcome back: work is stopped")
        #expect(note.actions == ["resume", "Resume", "keep", "Count the time away", "keep-project:p1", "Count it for Client A"])
        #expect(note.body.hasPrefix("Not counted as work: ") && note.body.hasSuffix(" idle."), "\(note.body)")

        // "Count the time away", clicked: the removed time is work after all, under its project.
        try server.invoke("keep", on: 1)
        #expect(waitUntil(timeout: 5) { ((try? property(f, "DailyTotal"))??.int64 ?? 0) >= 3_000_000 })
        let report = try f.method("Report", [.string("day"), .string("")]).first?.vardict ?? [:]
        let projects = (report["Projects"]?.array ?? []).compactMap(\.vardict)
        #expect(projects.first?["Total"]?.int64 ?? 0 >= 3_000_000, "the kept time is the project's")
        // Nothing left to count: NothingToUndo, nothing changed.
        let again = try f.cli(["away", "keep"])
        #expect(again.status == 1 && again.stderr == "biomatimer: No away time was removed from work: nothing to count.\n")
        #expect(try property(f, "Running") == .boolean(false), "policy stop: work stays stopped")
    }

    /// The welcome back offers the first projects: "Count it for Errands" counts the removed
    /// time as work on Errands; `away keep --project` does the same; an unknown project is
    /// refused and changes nothing.
    @Test func timeAwayCountedForAProject() throws {
        let f = try DaemonFixture(extraDaemonArguments: "--away-after 1s")
        let server = try NotificationServer(busAddress: f.bus.address)
        for name in ["Client A", "Errands", "Admin", "Later"] { try f.cliOK(["project", "add", name]) }
        func total(_ name: String) throws -> Int64 {
            let report = try f.method("Report", [.string("day"), .string("")]).first?.vardict ?? [:]
            return (report["Projects"]?.array ?? []).compactMap(\.vardict).first { $0["Name"]?.string == name }?["Total"]?.int64 ?? 0
        }
        try f.cliOK(["start"])
        try f.cliOK(["away", "idle", "--since", "-5s"])
        try f.cliOK(["away", "back"])
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        let note = try #require(try server.notifications().first)
        // The first three projects of the list, after resume and keep.
        #expect(
            note.actions == [
                "resume", "Resume", "keep", "Count the time away", "keep-project:p1", "Count it for Client A",
                "keep-project:p2", "Count it for Errands", "keep-project:p3", "Count it for Admin",
            ])
        try server.invoke("keep-project:p2", on: 1)
        #expect(waitUntil(timeout: 5) { ((try? total("Errands")) ?? 0) > 0 })
        #expect(try total("Client A") == 0)
        // Again, from the command line: an unknown project first (refused, nothing changes).
        try f.cliOK(["start"])
        try f.cliOK(["away", "idle", "--since", "-5s"])
        try f.cliOK(["away", "back"])
        let before = try f.durableState()
        let refused = try f.cli(["away", "keep", "--project", "Nope"])
        #expect(refused.status == 1 && refused.stderr.contains("Nope"), "\(refused.stderr)")
        #expect(try f.durableState() == before)
        try f.cliOK(["away", "keep", "--project", "admin"])
        #expect(try total("Admin") > 0)
        #expect(try f.cli(["away", "keep", "--project", "Admin"]).status == 1, "nothing left to count")
    }

    @Test func aShortAbsenceCountsAsWork() async throws {
        let f = try DaemonFixture(extraDaemonArguments: "--away-after 1m")
        let server = try NotificationServer(busAddress: f.bus.address)
        #expect(try f.cli(["start"]).status == 0)
        #expect(try f.cli(["away", "lock"]).status == 0)
        #expect(try property(f, "Away") == .string("lock"))
        try await Task.sleep(for: .seconds(1))
        #expect(try f.cli(["away", "back"]).status == 0)
        #expect(try property(f, "Running") == .boolean(true))
        #expect(try property(f, "Away") == .string(""))
        #expect(((try property(f, "DailyTotal"))?.int64 ?? 0) >= 1_000_000)
        try await Task.sleep(for: .seconds(0.3))
        #expect(try server.notifications().isEmpty, "nothing removed, nothing to offer")
        #expect(try f.cli(["away", "keep"]).status == 1)
    }

    /// Still locked when the threshold passes: work stops then, at the lock's start.
    @Test func theThresholdIsADeadlineInTheLoop() async throws {
        let f = try DaemonFixture(extraDaemonArguments: "--away-after 2s")
        #expect(try f.cli(["start"]).status == 0)
        let started = try workStart(f)
        try await Task.sleep(for: .seconds(0.5))
        #expect(try f.cli(["away", "lock"]).status == 0)
        let locked = try #require(try property(f, "AwaySince")?.int64)
        if Int64(Date().timeIntervalSince1970 * 1_000_000) - locked < 1_500_000 {
            #expect(try property(f, "Running") == .boolean(true), "not yet: the lock is younger than away_after")
        }
        #expect(waitUntil(timeout: 10) { (try? property(f, "Running")) == .boolean(false) })
        let daily = try #require(try property(f, "DailyTotal")?.int64)
        #expect(daily == max(0, locked - started), "stopped at the lock's start: \(daily) µs of \(locked - started)")
    }

    @Test func pauseResumesOnReturnAndKeepChangesNothing() async throws {
        let paused = try DaemonFixture(extraDaemonArguments: "--away pause --away-after 1s")
        let server = try NotificationServer(busAddress: paused.bus.address)
        #expect(try paused.cli(["start"]).status == 0)
        #expect(try paused.cli(["away", "idle", "--since", "-5s"]).status == 0)
        #expect(try property(paused, "Running") == .boolean(false))
        #expect(try paused.cli(["away", "back"]).status == 0)
        #expect(try property(paused, "Running") == .boolean(true), "pause: work goes on by itself")
        #expect(waitUntil(timeout: notificationWait) { (try? server.notifications().count) == 1 })
        #expect(try server.notifications().first?.actions == ["keep", "Count the time away"])

        let kept = try DaemonFixture(extraDaemonArguments: "--away keep --away-after 1s")
        #expect(try kept.cli(["start"]).status == 0)
        #expect(try kept.cli(["away", "idle", "--since", "-5s"]).status == 0)
        #expect(try property(kept, "Running") == .boolean(true), "keep: away time counts")
        #expect(try kept.cli(["away", "back"]).status == 0)
        #expect(try property(kept, "Running") == .boolean(true))
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        let f = try DaemonFixture()
        #expect(try f.cli(["start"]).status == 0)
        let before = try f.durableState()
        let future = Int64(Date().timeIntervalSince1970 * 1_000_000) + 3_600_000_000
        let cases: [([String], String)] = [
            (["'sleep'", "0"], "InvalidArgument"), (["'nap'", "0"], "InvalidArgument"),
            (["'idle'", "\(future)"], "InvalidArgument"), (["'lock'", "-- -5"], "InvalidArgument"),
        ]
        for (arguments, error) in cases {
            let r = try runProcess(
                "/usr/bin/gdbus",
                ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
                 "--method", "\(ContractNames.interface).AwayBegin"] + arguments.flatMap { $0.split(separator: " ").map(String.init) })
            #expect(r.stderr.contains("GDBus.Error:\(ContractNames.errorPrefix)\(error): "), "\(arguments): \(r.stderr)")
        }
        #expect(try property(f, "Away") == .string(""))
        // Back when not away: nothing happens.
        #expect(try f.cli(["away", "back"]).status == 0)
        let keep = try runProcess(
            "/usr/bin/gdbus",
            ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
             "--method", "\(ContractNames.interface).KeepAway"])
        #expect(keep.stderr.contains("GDBus.Error:\(ContractNames.errorPrefix)NothingToUndo: "), "\(keep.stderr)")
        #expect(try f.durableState() == before)
        // A bad --since is a usage error.
        let r = try f.cli(["away", "idle", "--since", "a while ago"])
        #expect(r.status == 2 && r.stderr.hasPrefix("biomatimer: --since 'a while ago' is not a time"), "\(r.stderr)")
    }
}

/// A sleep nobody announced: the service in-process with a clock and a suspend gap the test
/// moves, as a resume moves them. Work stops where the sleep began, once.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct SuspendGapTests {
    @Test func aSleepSeenInTheClockGapStopsWorkWhereItBegan() throws {
        let bus = try PrivateBus()
        let data = try makeTemporaryDirectory("biomatimer-suspend")
        defer { try? FileManager.default.removeItem(at: data) }
        let t0 = t("2026-11-23T17:00:00+01:00")
        let clock = ManualClock(t0)
        let suspend = FakeSuspend()
        let tracker = try Tracker(dataDirectory: data, rules: berlin, now: t0, bootID: "b")
        let service = try Bus(.address(bus.address))
        defer { service.close() }
        let parts = DaemonParts(tracker: tracker, bus: service, clock: clock, data: data, suspendClock: suspend)
        let timer = parts.timer
        try parts.object.export(on: service)
        try service.requestName(ContractNames.busName)
        let client = try BlockingBus(.address(bus.address))
        func call(_ member: String) throws -> [DBusValue] {
            try client.call(destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: member)
        }
        func daily() throws -> Micros {
            try client.call(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "Get", [.string(ContractNames.interface), .string("DailyTotal")]
            ).first?.int64 ?? -1
        }
        /// A day's work as the store has it, read on the loop thread (the tracker's one thread).
        func workTotal(_ day: Day) throws -> Micros {
            try service.sync { () throws(BusError) in
                Result { try tracker.history.report(.day, containing: day, at: clock.now()).workTotal }
            }.get()
        }
        _ = try call("Start")
        // An hour of work, then the lid closes for 15 hours; the clock and the gap move on.
        clock.set(t0 + hour)
        suspend.sleep(15 * hour)
        clock.set(t0 + 16 * hour)
        // The next look (here: a call; in the daemon, the resume also fires the day timer).
        _ = try call("Stop")
        #expect(try daily() == 0, "the new day has no work: the night was asleep")
        let worked = try workTotal(day("2026-11-23"))
        #expect(worked == hour, "the sleep is not work: \(worked / minute) min")
        // Once: another look with no new sleep changes nothing.
        try service.sync { () throws(BusError) in timer.away.checkSuspend() }
        #expect(try workTotal(day("2026-11-23")) == hour)
        // A pause shorter than the clocks' jitter is no sleep.
        _ = try call("Start")
        suspend.sleep(2_000_000)
        clock.set(t0 + 16 * hour + minute)
        _ = try call("Stop")
        #expect(try workTotal(day("2026-11-24")) == minute)
    }
}

/// One change path for every part: a change made through another interface (here a task
/// added through Tasks1) obeys the same rules as the work timer's own, so a sleep nobody
/// announced is recorded before it, and work stops where the sleep began.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct ChangePathTests {
    @Test func aTasksChangeRecordsAnUnnoticedSleepFirst() throws {
        let bus = try PrivateBus()
        let data = try makeTemporaryDirectory("biomatimer-change-path")
        defer { try? FileManager.default.removeItem(at: data) }
        let t0 = t("2026-11-23T09:00:00+01:00")
        let clock = ManualClock(t0)
        let suspend = FakeSuspend()
        let tracker = try Tracker(dataDirectory: data, rules: berlin, now: t0, bootID: "b")
        let service = try Bus(.address(bus.address))
        defer { service.close() }
        try DaemonParts(tracker: tracker, bus: service, clock: clock, data: data, suspendClock: suspend).object.export(on: service)
        try service.requestName(ContractNames.busName)
        let client = try BlockingBus(.address(bus.address))
        _ = try client.call(destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: "Start")
        // An hour of work, then the machine sleeps two hours; the next change is a task's.
        clock.set(t0 + hour)
        suspend.sleep(2 * hour)
        clock.set(t0 + 3 * hour)
        _ = try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.biomatimer.Tasks1", member: "AddTask",
            [.string("Write the report"), .vardict([:])])
        let (running, worked) = try service.sync { () throws(BusError) in
            Result { (tracker.workTimer.running, try tracker.history.report(.day, containing: day("2026-11-23"), at: clock.now()).workTotal) }
        }.get()
        #expect(!running, "the sleep stopped work before the task was added")
        #expect(worked == hour, "the sleep is not work: \(worked / minute) min")
    }
}
