import BiomaCore
import BiomaDaemon
import BiomaStore
import DBusKit
import Foundation
import GRDB
import Testing

import TestSupport

/// Two machines' daemons (two private buses, two data folders) sharing one sync folder
/// directly — the merge does not care how the files arrive — driven by the real command line,
/// busctl and gdbus; their clocks under libfaketime (Friday 2026-11-20, 09:00 UTC).
@Suite(.ownThread, .timeLimit(.minutes(3)))
struct SyncEndToEndTests {
    static let start = "2026-11-20 09:00:00"

    /// One machine: its bus, its daemon (started at `start` on its own faked clock) and its
    /// data folder.
    final class Machine {
        let f: DaemonFixture
        var process: ChildProcess
        let env: [String: String]
        let clock: String

        /// `config`: the settings file's text.
        init(clock: String = SyncEndToEndTests.start, config: String = "") throws {
            f = try DaemonFixture(activation: false)
            var env = f.environment
            env["TZ"] = "UTC"
            let home = f.bus.directory.appendingPathComponent("config-home")
            try FileManager.default.createDirectory(at: home.appendingPathComponent("biomatimer"), withIntermediateDirectories: true)
            try config.write(to: home.appendingPathComponent("biomatimer/config"), atomically: true, encoding: .utf8)
            env["XDG_CONFIG_HOME"] = home.path
            self.env = env
            self.clock = clock
            process = try f.startDaemon(at: clock, environment: env)
            guard waitUntil({ (try? f.daemonPID()) != nil }) else { throw TestSupportError("the daemon did not start") }
        }

        deinit { process.terminate() }

        /// Stops the daemon with SIGKILL and starts it again on the same data folder.
        func killAndRestart() throws {
            process.signal(SIGKILL)
            process.wait()
            process = try f.startDaemon(at: clock, environment: env)
            // The new daemon's: the bus may not yet have dropped the killed one's name.
            guard waitUntil({ (try? f.daemonPID()) == process.pid }) else { throw TestSupportError("the daemon did not restart") }
        }

        /// Stops the daemon, puts a copy of `other`'s store in place of this one's (a backup of
        /// another machine restored here; `other` is idle), and starts it again.
        func restoreBackup(of other: Machine) throws {
            process.signal(SIGKILL)
            process.wait()
            let files = FileManager.default
            for suffix in ["", "-wal", "-shm"] {
                let name = "biomatimer.sqlite" + suffix
                try? files.removeItem(at: f.dataDirectory.appendingPathComponent(name))  // may not be there
                if suffix != "-shm" {
                    try files.copyItem(
                        at: other.f.dataDirectory.appendingPathComponent(name), to: f.dataDirectory.appendingPathComponent(name))
                }
            }
            process = try f.startDaemon(at: clock, environment: env)
            // The new daemon's: the bus may not yet have dropped the killed one's name.
            guard waitUntil({ (try? f.daemonPID()) == process.pid }) else { throw TestSupportError("the daemon did not restart") }
        }

        func cli(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(DaemonFixture.binary, arguments, environment: fakeTime(env, at: clock))
        }

        @discardableResult
        func cliOK(_ arguments: [String]) throws -> ProcessResult {
            try cli(arguments).requireSuccess("biomatimer \(arguments.joined(separator: " "))")
        }

        var properties: [String: DBusValue] { (try? f.properties()) ?? [:] }

        func sync() throws -> [String: DBusValue] {
            let client = try BlockingBus(.address(f.bus.address))
            return try client.call(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                member: "GetAll", [.string("org.biomatimer.Sync1")]
            ).first?.vardict ?? [:]
        }

        func export() throws -> String { try f.method("ExportCSV", [.string(""), .string("")]).first?.string ?? "" }

        /// `task list --all --json`: each task's title and whether it is done.
        func tasks() throws -> [String: Bool] {
            let rows = try JSONSerialization.jsonObject(with: Data(cliOK(["task", "list", "--all", "--json"]).stdout.utf8))
            var tasks: [String: Bool] = [:]
            for row in rows as? [[String: Any]] ?? [] {
                if let title = row["title"] as? String { tasks[title] = row["done"] as? Bool }
            }
            return tasks
        }

        /// The id `log --json --date 2026-11-20` gives the interval with `note`.
        func interval(withNote note: String) throws -> String? {
            let rows = try JSONSerialization.jsonObject(
                with: Data(cliOK(["log", "--json", "--date", "2026-11-20"]).stdout.utf8))
            return (rows as? [[String: Any]] ?? []).first { $0["note"] as? String == note }?["id"] as? String
        }
    }

    static func sharedFolder() throws -> URL { try makeTemporaryDirectory("biomatimer-sync") }

    /// Waits until `a` and `b` export the same history and `also` holds; false after 10 s.
    /// Whether A and B end with the same history (and `also`) within `timeout` seconds: it
    /// returns as soon as they do, so a generous limit costs nothing on an idle machine and
    /// keeps a loaded one (a full suite on 2 cores) from failing a test that only took longer.
    static func converge(_ a: Machine, _ b: Machine, timeout: TimeInterval = 30, _ also: () throws -> Bool = { true }) -> Bool {
        waitUntil(timeout: timeout) {
            let (x, y) = ((try? a.export()) ?? "a", (try? b.export()) ?? "b")
            return x == y && ((try? also()) ?? false)
        }
    }

    @Test func changesTravelBothWays() throws {
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        let b = try Machine()
        // gdbus, a client nobody here wrote, sees B's Merged signal.
        let monitor = try ChildProcess(
            "/usr/bin/gdbus", ["monitor", "--address", b.f.bus.address, "--dest", ContractNames.busName],
            environment: b.env)
        defer { monitor.terminate(grace: 1) }
        let lines = LineReader(monitor)
        // gdbus says who owns the name (or that nobody does) once it is listening.
        var listening = false
        while let line = lines.next(timeout: 10) {
            if line.text.contains("is owned by") || line.text.contains("does not have an owner") {
                listening = true
                break
            }
        }
        #expect(listening, "gdbus monitor did not start listening")
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try b.cliOK(["sync", "enable", folder.path, "--name", "Laptop"])
        // A project and a start on A reach B: B's Timer1 says it runs, under that project.
        try a.cliOK(["project", "add", "Client A", "--color", "#ff8800"])
        try a.cliOK(["project", "start", "Client A"])
        #expect(waitUntil { b.properties["Running"]?.bool == true && b.properties["ActiveProjectName"]?.string == "Client A" })
        var merged = false
        while let line = lines.next(timeout: 5) {
            if line.text.contains("org.biomatimer.Sync1.Merged") {
                merged = true
                break
            }
        }
        #expect(merged, "gdbus saw no Merged signal on B")
        // Stopped on B: A stops too.
        try b.cliOK(["stop"])
        #expect(waitUntil { a.properties["Running"]?.bool == false })
        // Edits, deletes, undo and tasks, made on both sides.
        try b.cliOK(["add", "07:00-08:00", "--date", "2026-11-20", "--project", "Client A", "--note", "early"])
        try b.cliOK(["add", "06:00-06:30", "--date", "2026-11-20"])
        #expect(Self.converge(a, b) { try a.export().contains("early") })
        let early = try #require(try a.interval(withNote: "early"))
        try a.cliOK(["edit", early, "--note", "early call"])
        try b.cliOK(["task", "add", "Send invoice"])
        #expect(Self.converge(a, b) { try a.tasks()["Send invoice"] == false })
        try a.cliOK(["task", "done", "t1"])
        try b.cliOK(["undo"])  // B's last edit: the 06:00 interval, gone on both.
        #expect(Self.converge(a, b) { try !b.export().contains("06:30") && b.export().contains("early call") })
        #expect(waitUntil { (try? b.tasks()["Send invoice"]) == true })
        // Sync status on both names both devices, nothing behind, no problem.
        for machine in [a, b] {
            let status = try machine.cliOK(["sync", "status", "--json"]).stdout
            #expect(status.contains("\"name\":\"Desk\"") && status.contains("\"name\":\"Laptop\""))
            #expect(status.contains("\"behind\":0"))
            #expect(!status.contains("\"problem\":\""))
        }
        // History reset on B empties A's.
        try b.cliOK(["reset-history", "--yes"])
        #expect(Self.converge(a, b) { try a.export().split(whereSeparator: \.isNewline).count == 1 })
    }

    /// A target set on one machine takes effect on the other when it is merged, with the
    /// same publication as a local change (no restart): B's `DailyTarget` and `Balance` move,
    /// and `target show` on B says it counts from the day it was set on A.
    @Test func aTargetSetOnOneMachineTakesEffectOnTheOther() throws {
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        let b = try Machine()
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try b.cliOK(["sync", "enable", folder.path, "--name", "Laptop"])
        try b.cliOK(["add", "06:00-08:00", "--date", "2026-11-20"])
        #expect(Self.converge(a, b) { try a.export().contains("T06:00") })
        #expect(b.properties["DailyTarget"] == .int64(0))
        try a.cliOK(["target", "set", "8h"])
        #expect(waitUntil(timeout: 30) { b.properties["DailyTarget"] == .int64(8 * hour) }, "\(b.properties)")
        #expect(b.properties["Balance"] == .int64(2 * hour - 8 * hour))
        let show = try b.cliOK(["target", "show"]).stdout
        #expect(show.contains("Fri  8:00   store, from Friday 20 November 2026\n"), "\(show)")
        // And back: Friday changed on B shows on A.
        try b.cliOK(["target", "set", "--fri", "4h"])
        #expect(waitUntil(timeout: 30) { a.properties["DailyTarget"] == .int64(4 * hour) }, "\(a.properties)")
    }

    /// A bulk change with sync on (an import of several writes' worth of operations) is
    /// answered once it is recorded; its operations follow a slice per turn of the loop, in
    /// order, a change made meanwhile after them, and the peer ends with the same history.
    @Test func aBulkImportReachesThePeerInOrderAfterItsAnswer() throws {
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        let b = try Machine()
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try b.cliOK(["sync", "enable", folder.path, "--name", "Laptop"])
        // Half-hour intervals, one an hour from 2026-01-01 (long before the faked now).
        let count = StoreSync.drainSlice * 4 + 3
        let first: Micros = 1_767_225_600_000_000
        let rows = (0..<count).map { n in
            IntervalCSV.Row(
                projectName: n % 2 == 0 ? "Bulk" : "Other", color: "#FF8800", start: first + Micros(n) * 3_600_000_000,
                end: first + Micros(n) * 3_600_000_000 + 1_800_000_000)
        }
        let file = a.f.bus.directory.appendingPathComponent("bulk.csv")
        try (IntervalCSV.header + "\r\n" + IntervalCSV.encodeRows(rows, timeZone: TimeZone(identifier: "UTC")!))
            .write(to: file, atomically: true, encoding: .utf8)
        #expect(try a.cliOK(["import", file.path]).stdout.contains("\(count)"))
        try a.cliOK(["start"])
        // Two thousand intervals stamped a slice per turn on A and merged a slice per turn on
        // B, each check two exports: under a full suite's load this takes tens of seconds.
        #expect(
            Self.converge(a, b, timeout: 120) {
                let lines = try b.export().split(whereSeparator: \.isNewline).count
                return b.properties["Running"]?.bool == true && lines == count + 1
            })
        // A's log: every operation once, numbered from 1 without a gap, the start last.
        let directory = folder.appendingPathComponent("devices").appendingPathComponent(try #require(try a.sync()["DeviceId"]?.string))
        let lines = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("ops-") }.sorted()
            .flatMap { try String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8).split(separator: "\n") }
        let sequences = lines.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["seq"] as? Int
        }
        #expect(sequences == Array(1...lines.count))
        #expect(lines.filter { $0.contains("\"kind\":\"interval\"") }.count == count + 1)
        #expect(lines.last?.contains("\"kind\":\"interval\"") == true && lines.last?.contains("\"end\":null") == true)
    }

    @Test func offlineHistoriesJoinedWithAClockFiveMinutesAhead() throws {
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        // B's clock is five minutes ahead of A's.
        let b = try Machine(clock: "2026-11-20 09:05:00")
        let (shownOnA, shownOnB) = (try NotificationServer(busAddress: a.f.bus.address), try NotificationServer(busAddress: b.f.bus.address))
        /// The notifications saying two machines timed the same minutes.
        func timedTwice(_ server: NotificationServer) -> [String] {
            ((try? server.notifications()) ?? []).map(\.body).filter { $0.contains("both timed") }
        }
        // Each has a history of its own first.
        try a.cliOK(["project", "add", "Client A"])
        try a.cliOK(["add", "10:00-11:30", "--date", "2026-11-19", "--project", "Client A"])
        try b.cliOK(["project", "add", "Errands"])
        try b.cliOK(["add", "11:00-12:00", "--date", "2026-11-19", "--project", "Errands", "--note", "post office"])
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try b.cliOK(["sync", "enable", folder.path, "--name", "Laptop"])
        // Both end with the same history, byte for byte; B's later-started interval kept
        // 11:00–11:30, A's was cut at 11:00.
        #expect(Self.converge(a, b) { try a.export().contains("Errands") && b.export().contains("Client A") })
        let csv = try a.export()
        #expect(csv.contains("2026-11-19T10:00:00+00:00,2026-11-19T11:00:00+00:00"), "\(csv)")
        #expect(csv.contains("2026-11-19T11:00:00+00:00,2026-11-19T12:00:00+00:00"), "\(csv)")
        // Each machine says so once, naming both and the one kept.
        let said = "Laptop and Desk both timed 2026-11-19 11:00–11:30: kept Laptop's."
        #expect(waitUntil { timedTwice(shownOnA) == [said] && timedTwice(shownOnB) == [said] })
        // Concurrent starts: A starts, then B (whose clock is ahead) starts too; one runs on both.
        try a.cliOK(["start"])
        try b.cliOK(["start"])
        #expect(waitUntil {
            let (x, y) = (a.properties, b.properties)
            return x["Running"]?.bool == true && y["Running"]?.bool == true && (try? a.export()) == (try? b.export())
        })
        try a.cliOK(["stop"])
        #expect(Self.converge(a, b) { a.properties["Running"]?.bool == false && b.properties["Running"]?.bool == false })
        // A run stopped by a newer start is not news, and nothing merged again says it twice.
        #expect(timedTwice(shownOnA) == [said] && timedTwice(shownOnB) == [said], "\(timedTwice(shownOnA)) \(timedTwice(shownOnB))")
        // No two intervals overlap on either machine.
        for machine in [a, b] {
            let rows = try machine.export().split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let spans = rows.map { (String($0[2]), String($0[3])) }.sorted { $0.0 < $1.0 }
            for (x, y) in zip(spans, spans.dropFirst()) { #expect(x.1 <= y.0, "\(x) overlaps \(y)") }
        }
    }

    @Test func faultsStopNothingElse() throws {
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        // B turns sync on from its settings file.
        let b = try Machine(config: "sync_dir = \(folder.path)\n")
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        #expect(try b.sync()["Enabled"]?.bool == true)
        #expect(try b.sync()["Folder"]?.string == folder.path)
        let devices = folder.appendingPathComponent("devices")
        // A peer whose log is garbage: skipped with a message; nothing else stops.
        let broken = devices.appendingPathComponent("00000000-0000-4000-8000-0000000000ff")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try "this is not an operation\n".write(to: broken.appendingPathComponent("ops-000001.jsonl"), atomically: true, encoding: .utf8)
        try a.cliOK(["project", "add", "Client A"])
        #expect(waitUntil { (try? b.cliOK(["project", "list"]).stdout.contains("Client A")) == true })
        #expect(waitUntil { (try? b.cliOK(["sync", "status"]).stdout.contains("problem:")) == true })
        // A half-written last line (a copy in progress) is read once it is whole.
        let peer = "00000000-0000-4000-8000-0000000000c0"
        let half = devices.appendingPathComponent(peer)
        try FileManager.default.createDirectory(at: half, withIntermediateDirectories: true)
        let line =
            ##"{"v":1,"seq":1,"op":"019ab000-0000-7000-8000-000000000001","hlc":[1763629200000000,0],"dev":"\##(peer)","##
            + ##""kind":"project","id":"019ab000-0000-7000-8000-0000000000aa","set":{"color":"#112233","deleted":false,"name":"Half","position":9}}"##
        let segment = half.appendingPathComponent("ops-000001.jsonl")
        try String(line.prefix(60)).write(to: segment, atomically: false, encoding: .utf8)
        try a.cliOK(["add", "07:00-08:00", "--date", "2026-11-20"])
        #expect(Self.converge(a, b) { try b.export().contains("07:00") })
        #expect(try !b.cliOK(["project", "list"]).stdout.contains("Half"))
        let handle = try FileHandle(forWritingTo: segment)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((String(line.dropFirst(60)) + "\n").utf8))
        try handle.close()
        #expect(waitUntil { (try? b.cliOK(["project", "list"]).stdout.contains("Half")) == true })
        // The same segment copied again (written whole once more): nothing is applied twice.
        let aID = try a.sync()["DeviceId"]?.string ?? ""
        let log = devices.appendingPathComponent(aID).appendingPathComponent("ops-000001.jsonl")
        try String(contentsOf: log, encoding: .utf8).write(to: log, atomically: true, encoding: .utf8)
        try a.cliOK(["add", "02:00-02:30", "--date", "2026-11-20"])
        #expect(Self.converge(a, b) { try b.export().contains("02:30") })
        // The folder goes away (unmounted): A keeps timing; when it is back, B gets everything.
        let away = folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + ".away")
        try FileManager.default.moveItem(at: folder, to: away)
        try a.cliOK(["add", "05:00-06:00", "--date", "2026-11-20", "--note", "offline"])
        #expect(try a.export().contains("offline"))
        #expect(waitUntil { (try? a.cliOK(["sync", "status"]).stdout.contains("cannot write")) == true })
        try FileManager.default.moveItem(at: away, to: folder)
        try a.cliOK(["add", "04:00-04:30", "--date", "2026-11-20"])
        #expect(Self.converge(a, b) { try b.export().contains("offline") && b.export().contains("04:30") })
        // kill -9 of B, then a restart: its log is read again from its cursor, nothing twice.
        try b.killAndRestart()
        try a.cliOK(["add", "03:00-03:30", "--date", "2026-11-20"])
        #expect(Self.converge(a, b) { try b.export().contains("03:30") })
        // Header, 07:00, 05:00, 04:00, 03:00, 02:00: each once.
        let csv = try b.export()
        #expect(csv.split(whereSeparator: \.isNewline).count == 6, "\(csv)")
    }

    /// A data folder copied to a second machine (a restored backup) writes under the first
    /// one's id: noticed once the first one's log has gone on without it. With sync on at
    /// start-up, the copy takes a new id and says so; asked to enable, it answers
    /// `SyncIdentity` (with the new id taken) and the next enable joins. Nothing is lost.
    @Test func aCopiedDataFolderTakesAnIdOfItsOwn() throws {
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        let id = { (machine: Machine) in try machine.sync()["DeviceId"]?.string ?? "" }
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try a.cliOK(["add", "07:00-08:00", "--date", "2026-11-20"])
        // With sync on in the copy: noticed at start-up.
        let c = try Machine()
        try c.restoreBackup(of: a)
        try a.cliOK(["add", "08:00-08:30", "--date", "2026-11-20"])
        try c.killAndRestart()
        #expect(try id(c) != id(a) && !id(c).isEmpty)
        #expect(try c.cliOK(["sync", "status"]).stdout.contains("copied from another machine"))
        try c.cliOK(["add", "01:00-01:30", "--date", "2026-11-20"])
        #expect(Self.converge(a, c) { try a.export().contains("01:30") && c.export().contains("08:30") })
        // With sync off in the copy: Enable answers SyncIdentity, then joins.
        try a.cliOK(["sync", "disable"])
        let d = try Machine()
        try d.restoreBackup(of: a)
        try a.cliOK(["sync", "enable", folder.path])
        try a.cliOK(["add", "02:00-02:30", "--date", "2026-11-20"])
        let refused = try d.cli(["sync", "enable", folder.path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("copy of another machine's"), "\(refused.stderr)")
        let joined = try runProcess(
            "/usr/bin/gdbus",
            ["call", "--address", d.f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
             "--method", "org.biomatimer.Sync1.Enable", folder.path, ""])
        #expect(joined.status == 0, "the second Enable joins: \(joined.stderr)")
        #expect(try ![id(a), id(c)].contains(id(d)))
        #expect(Self.converge(a, d) { try d.export().contains("02:30") && a.export() == c.export() })
    }

    /// A folder that turns read-only under the daemon (a read-only bind mount over it: root
    /// writes through permissions; for any other user, its write permission taken away): the
    /// timer goes on, `sync status` says why nothing is written, and once the folder can be
    /// written again the daemon's next try (2 s after the failure, with no change to bring it)
    /// gives the peer everything.
    @Test func aReadOnlyFolderKeepsTimingAndCatchesUp() throws {
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Machine()
        let b = try Machine()
        try a.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try b.cliOK(["sync", "enable", folder.path, "--name", "Laptop"])
        let mine = folder.appendingPathComponent("devices").appendingPathComponent(try #require(try a.sync()["DeviceId"]?.string))
        let readOnly = try ReadOnlyDirectory(mine)
        try a.cliOK(["add", "05:00-06:00", "--date", "2026-11-20", "--note", "while read-only"])
        #expect(try a.export().contains("while read-only"))
        #expect(waitUntil { (try? a.cliOK(["sync", "status"]).stdout.contains("cannot write")) == true })
        #expect(try !b.export().contains("while read-only"))
        try readOnly.undo()
        #expect(Self.converge(a, b) { try b.export().contains("while read-only") })
        #expect(try !a.cliOK(["sync", "status"]).stdout.contains("cannot write"))
        try a.cliOK(["add", "07:00-07:30", "--date", "2026-11-20"])
        #expect(Self.converge(a, b) { try b.export().contains("07:30") })
    }

    /// kill -9 while a peer's log is being merged: each slice (a turn of the loop's worth of
    /// lines) is one transaction with its cursor, so what the killed daemon kept is whole
    /// slices, and its restart applies the rest once. The first segment alone measures the CPU
    /// time of merging a segment; the kill comes half of that into the other two, on a slow or
    /// a fast machine.
    @Test func killedWhileMergingAppliesEveryOperationOnce() throws {
        let count = SyncLog.linesPerSegment * 2 + 1
        let peer = "00000000-0000-4000-8000-0000000000d1"
        let base = Micros(1_763_280_000_000_000)  // 2025-11-16: well before the faked clock
        var segments: [String] = []
        for n in 1...count {
            if (n - 1) % SyncLog.linesPerSegment == 0 { segments.append("") }
            let start = base + Micros(n) * 120_000_000
            segments[segments.count - 1] +=
                SyncOperation(
                    sequence: Int64(n), id: "019ab000-0000-7000-8000-" + String(format: "%012x", n),
                    clock: HybridTime(wall: start, counter: 0, device: peer), entity: .interval,
                    entityID: "019ab000-0000-7000-9000-" + String(format: "%012x", n),
                    fields: ["start": .int(start), "end": .int(start + 60_000_000), "note": .string("n\(n)")]
                ).line + "\n"
        }
        let folder = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = folder.appendingPathComponent("devices/\(peer)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        /// Puts segments in as Syncthing does: each written aside and renamed in.
        func deliver(_ indices: [Int]) throws {
            for index in indices {
                try Data(segments[index].utf8).write(
                    to: directory.appendingPathComponent(SyncLog.segmentName(index + 1)), options: .atomic)
            }
        }
        /// How far B has read the peer's log (Sync1's `Devices`): one cheap call.
        func readUpTo(_ machine: Machine) -> Int64 {
            let rows = ((try? machine.sync())?["Devices"]?.array ?? []).compactMap(\.vardict)
            return rows.first { $0["Id"]?.string == peer }?["ReadUpTo"]?.int64 ?? -1
        }
        func cpuTicks(_ pid: pid_t) -> Int {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            return fields.count > 12 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        }
        let b = try Machine(config: "sync_dir = \(folder.path)\n")
        let pid = try #require(try b.f.daemonPID())
        // The first segment, and its CPU time.
        var start = cpuTicks(pid)
        try deliver([0])
        #expect(waitUntil(timeout: 60) { readUpTo(b) == Int64(SyncLog.linesPerSegment) })
        let batch = cpuTicks(pid) - start
        // The rest arrives; B is killed half a segment's merging later.
        start = cpuTicks(pid)
        try deliver([1, 2])
        #expect(waitUntil(timeout: 60) { cpuTicks(pid) - start >= max(batch / 2, 1) })
        b.process.signal(SIGKILL)
        b.process.wait()
        // What it kept: whole slices, each with its cursor, and not all of them.
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(
            path: b.f.dataDirectory.appendingPathComponent("biomatimer.sqlite").path, configuration: configuration)
        let (kept, cursor) = try database.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM interval") ?? -1,
                try Int.fetchOne(db, sql: "SELECT sequence FROM sync_peer WHERE device = ?", arguments: [peer]) ?? 0
            )
        }
        try database.close()
        #expect(kept == cursor, "the intervals kept are the slices the cursor says were read")
        #expect(
            kept >= SyncLog.linesPerSegment && kept < count,
            "killed while the other segments were merged (the first took \(batch) ticks)")
        // Restarted, it applies the rest, each operation once.
        b.process = try b.f.startDaemon(at: b.clock, environment: b.env)
        #expect(waitUntil(timeout: 60) { readUpTo(b) == Int64(count) })
        let rows = try b.export().split(whereSeparator: \.isNewline).dropFirst()
        #expect(rows.count == count)
        #expect(Set(rows.map { $0.split(separator: ",").last ?? "" }).count == count, "every note once")
        #expect(try b.sync()["Behind"]?.int == 0)
    }

    /// The real engine: two Syncthing instances on loopback (`Tests/harness/syncthing-pair.py`)
    /// carry the folder between the two machines' own copies of it; a start on the desk
    /// reaches the laptop's bar.
    @Test func syncthingCarriesAStartToTheOtherBar() throws {
        let pair = try SyncthingPair()
        let (pathA, pathB) = (pair.desk, pair.laptop)
        let a = try Machine()
        let b = try Machine()
        try a.cliOK(["sync", "enable", pathA, "--name", "Desk"])
        try b.cliOK(["sync", "enable", pathB, "--name", "Laptop"])
        try a.cliOK(["project", "add", "Client A"])
        try a.cliOK(["project", "start", "Client A"])
        // The laptop's bar line (the island) shows the project the desk started.
        #expect(
            waitUntil(timeout: 45) { (try? b.cliOK(["status", "--format", "island"]).stdout.contains("Client A")) == true },
            "\((try? b.cli(["status", "--format", "island"]).stdout) ?? "")")
        #expect(b.properties["Running"]?.bool == true)
        // Syncthing never carried a database: the laptop's copy of the folder holds logs only.
        let carried = FileManager.default.enumerator(atPath: pathB)?.allObjects as? [String] ?? []
        #expect(!carried.contains { $0.contains(".sqlite") })
        #expect(carried.contains { $0.hasSuffix("ops-000001.jsonl") })
    }
}

/// A directory made read-only for a test, and writable again by `undo()` (or when dropped).
final class ReadOnlyDirectory {
    let path: String
    private var undone = false

    init(_ url: URL) throws {
        path = url.path
        if geteuid() == 0 {
            try runProcess("/bin/mount", ["--bind", path, path]).requireSuccess("mount --bind")
            try runProcess("/bin/mount", ["-o", "remount,bind,ro", path]).requireSuccess("mount -o remount,bind,ro")
        } else {
            guard chmod(path, 0o555) == 0 else { throw TestSupportError("chmod \(path): errno \(errno)") }
        }
        // Whoever runs this test cannot write there now.
        guard access(path, W_OK) != 0 || geteuid() == 0, !FileManager.default.createFile(atPath: path + "/probe", contents: nil)
        else { throw TestSupportError("\(path) is still writable") }
    }

    func undo() throws {
        guard !undone else { return }
        undone = true
        if geteuid() == 0 {
            try runProcess("/bin/umount", [path]).requireSuccess("umount")
        } else {
            guard chmod(path, 0o755) == 0 else { throw TestSupportError("chmod \(path): errno \(errno)") }
        }
    }

    deinit { try? undo() }  // a test that failed half way still leaves no mount behind
}
