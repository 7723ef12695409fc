import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// A full disk, for real: the daemon's data folder (or the sync folder) on a small tmpfs that a
/// filler file fills up to its last page, so SQLite and the sync log meet ENOSPC from the
/// kernel, not a simulated limit (`DurabilityTests.fullDiskFailsCleanlyAndLeavesStateAsItWas`
/// simulates one with `max_page_count`). A change on a full disk is refused with the store's
/// message and changes nothing; once space returns the same change works, and a daemon killed
/// and started again shows the same history: no recorded time is lost. Needs root (mount(8));
/// CI runs as root.
@Suite(.ownThread, .timeLimit(.minutes(5)))
struct FullDiskTests {
    /// What a refused write prints: `StoreErrors.swift`'s sentence for SQLITE_FULL, for the
    /// database in `dataDirectory`.
    static func diskFullMessage(_ dataDirectory: URL) -> String {
        "biomatimer: Cannot write the database at \(dataDirectory.appendingPathComponent("biomatimer.sqlite").path): "
            + "the disk is full (free some space and try again). Nothing was changed.\n"
    }

    // MARK: - 1. Changes on a full disk

    /// Work runs on project A; the disk fills; starting B and toggling are refused with the
    /// disk-full message (exit 1) and change nothing, also in a daemon started again while the
    /// disk is still full; once space returns, the run of A is the one started before (same
    /// interval, same start, its time counting from that start), the toggle that stops it
    /// works, and a daemon killed and started again shows exactly that history.
    @Test func aFullDiskRefusesChangesAndKeepsTheRunningTime() throws {
        let f = try DaemonFixture()
        let disk = try Tmpfs(mountingOn: f.dataDirectory, size: 4 << 20)
        defer {
            Self.killDaemon(f)
            disk.unmount()
        }
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "add", "Client B"])
        try f.cliOK(["project", "start", "Client A"])
        let running = try #require(try Self.intervals(f).last)
        #expect(running.end == 0 && running.project == "p1", "\(running)")

        try disk.fill()
        #expect(disk.available == 0, "the filler left \(disk.available) bytes")
        let message = Self.diskFullMessage(f.dataDirectory)
        let before = try f.durableState()
        let pid = try #require(try f.daemonPID())
        let refusedAt = Self.now()
        for command in [["project", "start", "Client B"], ["toggle"], ["project", "add", "Client C"]] {
            let r = try f.cli(command)
            #expect(r.status == 1, "biomatimer \(command): \(r.status) \(r.stdout)")
            #expect(r.stderr == message, "biomatimer \(command)")
            #expect(r.stdout == "")
        }
        #expect(try f.durableState() == before)
        #expect(try f.daemonPID() == pid, "the daemon did not survive the refused writes")

        // A daemon started on the full disk (kill -9, then activation) reads the same state and
        // refuses the same way: a failed write left nothing that stops the store from opening.
        try Self.killAndWait(f, pid)
        #expect(try f.durableState() == before)
        let second = try #require(try f.daemonPID())
        #expect(second != pid)
        let again = try f.cli(["toggle"])
        #expect(again.status == 1 && again.stderr == message, "\(again.status) \(again.stderr)")
        #expect(try f.durableState() == before)

        // Space again: A still runs in the interval started before the disk filled, and its
        // time keeps counting from that start.
        try disk.freeFiller()
        #expect(try Self.intervals(f).last == running)
        let properties = try f.properties()
        #expect(properties["Running"]?.bool == true)
        #expect(properties["ActiveProjectName"]?.string == "Client A")
        let firstLook = try #require(properties["ProjectSessionTime"]?.int64)
        #expect(waitUntil(timeout: 30) { ((try? f.properties())?["ProjectSessionTime"]?.int64 ?? 0) > firstLook })
        let later = try f.properties()
        let updatedAt = try #require(later["UpdatedAt"]?.int64)
        #expect(try #require(later["ProjectSessionTime"]?.int64) >= updatedAt - running.start, "the run lost time")
        #expect(try #require(later["SessionTime"]?.int64) >= updatedAt - running.start, "work lost time")

        // The next toggle works: it stops the same interval, which covers the full-disk minutes.
        let stop = try f.cliOK(["toggle"])
        #expect(stop.stderr == "")
        let stopped = try #require(try Self.intervals(f).last)
        #expect(stopped.id == running.id && stopped.start == running.start && stopped.project == "p1")
        #expect(stopped.end > refusedAt, "\(stopped) ends before the refused changes at \(refusedAt)")
        #expect(try Self.intervals(f).count == 1)
        let stoppedState = try f.durableState()
        #expect(stoppedState.contains("Client A,#007AFF,"))

        // kill -9, and the daemon the next call starts shows the very same history.
        let third = try #require(try f.daemonPID())
        try Self.killAndWait(f, third)
        #expect(try f.durableState() == stoppedState)
        #expect(try f.daemonPID() != third)
        #expect(try Self.intervals(f) == [stopped])
    }

    // MARK: - 2. Bulk work on a full disk

    /// A store with years of history (25,000 intervals, about 12 MB with its write-ahead log);
    /// an import of 50,000 more, which needs more than the log's room and the last MiB of the
    /// disk, is refused with the disk-full message, changes nothing and gives back the space
    /// its attempt took (the log kept it before: the disk stayed full after the refusal, even
    /// across restarts); the daemon still answers; once space returns the same import works
    /// and survives kill -9.
    @Test func anImportThatDoesNotFitChangesNothing() throws {
        let f = try DaemonFixture()
        let disk = try Tmpfs(mountingOn: f.dataDirectory, size: 64 << 20)
        let files = try makeTemporaryDirectory("biomatimer-full-disk-csv")
        defer {
            Self.killDaemon(f)
            disk.unmount()
            try? FileManager.default.removeItem(at: files)
        }
        // The format, as `export` writes it.
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "start", "Client A"])
        try f.cliOK(["toggle"])
        let exported = try f.cliOK(["export"]).stdout.components(separatedBy: "\r\n")
        #expect(exported.first == "project,color,start,end,duration,note,tags")
        let row = try #require(exported.dropFirst().first)
        let instant = #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?[+-]\d\d:\d\d"#
        #expect(row.range(of: "^Client A,#007AFF,\(instant),\(instant),\\d+:\\d\\d:\\d\\d,,$", options: .regularExpression) != nil, "\(row)")

        // Years of history: 25,000 intervals of 45 minutes, one an hour from 2009 on, in three
        // projects, with notes. Its commit fills the write-ahead log past SQLite's checkpoint
        // size, so the next write starts the log again from its beginning.
        let history = files.appendingPathComponent("history.csv")
        try Self.intervalsCSV(count: 25_000, from: 1_230_796_800).write(to: history, atomically: false, encoding: .utf8)
        let seeded = try Self.longCLI(f, ["import", history.path]).requireSuccess("biomatimer import (the history)")
        #expect(seeded.stdout == "Imported 25000 intervals.\n")
        // 50,000 more from 2015 on: twice the log's room, and more than the last MiB.
        let count = 50_000
        let csv = files.appendingPathComponent("years.csv")
        try Self.intervalsCSV(count: count, from: 1_420_099_200).write(to: csv, atomically: false, encoding: .utf8)

        try disk.fill(leaving: 1 << 20)
        let left = disk.available
        let before = try f.durableState()
        let pid = try #require(try f.daemonPID())
        let refused = try Self.longCLI(f, ["import", csv.path])
        #expect(refused.status == 1, "\(refused.status) \(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr == Self.diskFullMessage(f.dataDirectory))
        #expect(refused.stdout == "")
        let afterRefusal = try f.durableState()
        let unchanged = afterRefusal == before
        #expect(unchanged, "the refused import changed the state (\(before.count) → \(afterRefusal.count) characters)")
        #expect(try f.daemonPID() == pid, "the daemon did not survive the refused import")
        #expect(disk.available >= left, "the refused import kept \(left - disk.available) of the \(left) bytes that were free")
        #expect(try f.cli(["status"]).status == 0)

        // Space again: the same import works, whole.
        try disk.freeFiller()
        let imported = try Self.longCLI(f, ["import", csv.path]).requireSuccess("biomatimer import")
        #expect(imported.stdout == "Imported \(count) intervals.\n")
        let all = try f.durableState()
        let rows = all.components(separatedBy: "\r\n")
        #expect(rows.filter { $0.hasPrefix("Alpha,") || $0.hasPrefix("Beta,") || $0.hasPrefix("Gamma,") }.count == 25_000 + count)
        #expect(rows.filter { $0.hasPrefix("Client A,#007AFF,") }.count == 1)

        // And it is in the store: kill -9, and the next daemon shows the same.
        try Self.killAndWait(f, try #require(try f.daemonPID()))
        let restarted = try f.durableState()
        let same = restarted == all
        #expect(same, "the restarted daemon shows another history (\(all.count) → \(restarted.count) characters)")
    }

    // MARK: - 3. Sync to a full folder

    /// Sync on, its folder on a full tmpfs, the data folder with room: toggles still work (they
    /// are in the store), this device's `Problem` says the folder cannot be written and why;
    /// once space returns, the retry writes what waited with no change to bring it, every
    /// operation once, in order, whole lines; a second time, the next change writes it before
    /// it is answered. A second machine joining the folder then has the same history.
    @Test func syncToAFullFolderCatchesUpWhenSpaceReturns() throws {
        let f = try DaemonFixture()
        let folder = try makeTemporaryDirectory("biomatimer-full-sync")
        let disk = try Tmpfs(mountingOn: folder, size: 1 << 20)
        defer {
            Self.killDaemon(f)
            disk.unmount()
            try? FileManager.default.removeItem(at: folder)
        }
        try f.cliOK(["sync", "enable", folder.path, "--name", "Desk"])
        try f.cliOK(["project", "add", "Client A"])
        try f.cliOK(["project", "start", "Client A"])
        try f.cliOK(["toggle"])
        let device = try #require(try Self.sync(f)["DeviceId"]?.string)
        let log = folder.appendingPathComponent("devices/\(device)/ops-000001.jsonl")
        let first = try Self.operations(in: log)
        #expect(first.last?.seq == Self.thisDevice(f).readUpTo && first.count >= 3, "\(first.count) operations")

        // Full: a toggle's line fits while the log's last page has room; then the folder
        // refuses and the toggles go on, kept in the store.
        try disk.fill()
        #expect(disk.available == 0, "the filler left \(disk.available) bytes")
        var toggles = 0
        while Self.thisDevice(f).problem.isEmpty && toggles < 60 {
            try f.cliOK(["toggle"])
            toggles += 1
        }
        let problem = Self.thisDevice(f).problem
        #expect(problem == "cannot write to the sync folder (\(log.path): No space left on device); changes are kept here and written when it can be")
        for _ in 0..<2 { try f.cliOK(["toggle"]) }
        toggles += 2
        let status = try f.cliOK(["sync", "status"]).stdout
        #expect(status.contains("    problem: cannot write to the sync folder (\(log.path): No space left on device)"), "\(status)")
        // Every toggle is recorded: the first run, its stop, and one interval per two toggles.
        let recorded = try Self.intervals(f)
        #expect(recorded.count == 1 + (toggles + 1) / 2, "\(toggles) toggles, \(recorded.count) intervals")
        let waiting = try Self.operations(in: log)  // whole lines only, none cut by the full disk
        // ReadUpTo says what the folder holds, not what was made here.
        let written = Self.thisDevice(f).readUpTo
        #expect(written == (waiting.last?.seq ?? 0), "ReadUpTo \(written), the log's last \(waiting.last?.seq ?? 0)")

        // Space again, and no change: the retry (2 s after the first failure, doubling) writes
        // what waited.
        try disk.freeFiller()
        var caughtUp: [Operation] = []
        let retried = waitUntil(timeout: 90) {
            caughtUp = (try? Self.operations(in: log)) ?? []
            let row = Self.thisDevice(f)
            return row.problem.isEmpty && caughtUp.last?.seq == row.readUpTo
        }
        #expect(retried, "the folder holds \(caughtUp.last?.seq ?? 0) operations; problem: \(Self.thisDevice(f).problem)")
        #expect((caughtUp.last?.seq ?? 0) > written, "nothing that waited was written")
        #expect(caughtUp.map(\.seq) == Array(1...(caughtUp.last?.seq ?? 0)))
        #expect(try Self.logIntervals(caughtUp) == Self.intervals(f).map { [$0.start, $0.end] })

        // Full again, and many changes refused by the folder: they do not push the retry
        // away (only failed retries lengthen the wait), so once there is space the waiting
        // operations are written within the retry's first steps, without another change.
        try disk.fill()
        var more = 0
        while Self.thisDevice(f).problem.isEmpty && more < 60 {
            try f.cliOK(["toggle"])
            more += 1
        }
        #expect(!Self.thisDevice(f).problem.isEmpty, "the full folder took \(more) more toggles")
        for _ in 0..<20 { try f.cliOK(["toggle"]) }
        try disk.freeFiller()
        let soon = waitUntil(timeout: 30) {
            let row = Self.thisDevice(f)
            return row.problem.isEmpty && (try? Self.operations(in: log))?.last?.seq == row.readUpTo
        }
        #expect(soon, "20 refused changes pushed the retry away: \(Self.thisDevice(f).problem)")
        // A change after that is written before it is answered.
        try f.cliOK(["toggle"])
        let afterChange = try Self.operations(in: log)
        #expect(afterChange.last?.seq == Self.thisDevice(f).readUpTo)
        #expect(Self.thisDevice(f).problem == "")
        #expect(try Self.logIntervals(afterChange) == Self.intervals(f).map { [$0.start, $0.end] })

        // A second machine joining the folder reads all of it: the same history.
        let laptop = try DaemonFixture()
        defer { Self.killDaemon(laptop) }
        try laptop.cliOK(["sync", "enable", folder.path, "--name", "Laptop"])
        let desk = try f.method("ExportCSV", [.string(""), .string("")]).first?.string ?? "desk"
        #expect(
            waitUntil(timeout: 30) { ((try? laptop.method("ExportCSV", [.string(""), .string("")]))?.first?.string) == desk },
            "the laptop's history differs from the desk's")
    }

    // MARK: - Helpers

    /// One of `ListIntervals`' rows.
    struct IntervalRow: Equatable, CustomStringConvertible {
        var id: String
        var start: Int64
        var end: Int64
        var project: String
        var description: String { "\(id) \(start)–\(end) \(project)" }
    }

    /// Today's intervals (`ListIntervals("", "")`), by start.
    static func intervals(_ f: DaemonFixture) throws -> [IntervalRow] {
        try f.method("ListIntervals", [.string(""), .string("")]).first?.array?.compactMap(\.vardict).map {
            IntervalRow(
                id: $0["Id"]?.string ?? "", start: $0["Start"]?.int64 ?? -1, end: $0["End"]?.int64 ?? -1,
                project: $0["Project"]?.string ?? "")
        } ?? []
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }

    /// `biomatimer ARGS` for bulk work: its answer may take longer than the 25 s default.
    static func longCLI(_ f: DaemonFixture, _ arguments: [String]) throws -> ProcessResult {
        var environment = f.environment
        environment["BIOMATIMER_TIMEOUT"] = "150"
        return try runProcess(DaemonFixture.binary, arguments, environment: environment, timeout: 170)
    }

    /// Kills the daemon owning the name with SIGKILL and waits until it is gone, so the next
    /// call starts a new one by activation.
    static func killAndWait(_ f: DaemonFixture, _ pid: pid_t) throws {
        kill(pid, SIGKILL)
        guard waitUntil(timeout: 20, { kill(pid, 0) != 0 && (try? f.daemonPID()) != pid }) else {
            throw TestSupportError("the killed daemon \(pid) is still there")
        }
    }

    /// Stops the fixture's daemon (it holds files on the tmpfs, which then could not be
    /// unmounted).
    static func killDaemon(_ f: DaemonFixture) {
        guard let pid = try? f.daemonPID() else { return }
        kill(pid, SIGKILL)
        _ = waitUntil(timeout: 20) { kill(pid, 0) != 0 }
    }

    /// `org.biomatimer.Sync1`'s properties.
    static func sync(_ f: DaemonFixture) throws -> [String: DBusValue] {
        let client = try BlockingBus(.address(f.bus.address))
        return try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string("org.biomatimer.Sync1")]
        ).first?.vardict ?? [:]
    }

    /// This device's row of `Sync1.Devices`: its `Problem` and `ReadUpTo` (the last operation
    /// made here).
    static func thisDevice(_ f: DaemonFixture) -> (problem: String, readUpTo: Int64) {
        let row = (try? sync(f))?["Devices"]?.array?.first?.vardict
        return (row?["Problem"]?.string ?? "?", row?["ReadUpTo"]?.int64 ?? -1)
    }

    /// One line of this device's log.
    struct Operation {
        var seq: Int64
        var kind: String
        var id: String
        var set: [String: Any]
    }

    /// The operations in `log`, checked: whole lines only (the file ends with a newline), each
    /// a JSON object, numbered 1, 2, 3… with none missing or repeated.
    static func operations(in log: URL) throws -> [Operation] {
        let text = try String(contentsOf: log, encoding: .utf8)
        guard text.isEmpty || text.hasSuffix("\n") else { throw TestSupportError("\(log.path) ends in a cut line") }
        var operations: [Operation] = []
        for line in text.split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let seq = (object["seq"] as? NSNumber)?.int64Value, let kind = object["kind"] as? String,
                let id = object["id"] as? String, let set = object["set"] as? [String: Any]
            else { throw TestSupportError("not an operation: \(line)") }
            guard seq == Int64(operations.count + 1) else {
                throw TestSupportError("operation \(seq) where \(operations.count + 1) was due in \(log.path)")
            }
            operations.append(Operation(seq: seq, kind: kind, id: id, set: set))
        }
        return operations
    }

    /// The intervals the log's operations make, each `[start, end]` (end 0 while it runs), by
    /// start: what a peer reading the log would have.
    static func logIntervals(_ operations: [Operation]) -> [[Int64]] {
        var fields: [String: [String: Any]] = [:]
        for operation in operations where operation.kind == "interval" {
            fields[operation.id, default: [:]].merge(operation.set) { _, new in new }
        }
        return fields.values.filter { ($0["deleted"] as? Bool) != true }.map {
            [($0["start"] as? NSNumber)?.int64Value ?? -1, ($0["end"] as? NSNumber)?.int64Value ?? 0]
        }.sorted { $0[0] < $1[0] }
    }

    /// `count` intervals in `export`'s format: 45 minutes an hour from `start` (seconds since the
    /// epoch), in three projects with their colours, each with a note.
    static func intervalsCSV(count: Int, from start: Int64) -> String {
        let projects = [("Alpha", "#FF0000"), ("Beta", "#00FF00"), ("Gamma", "#0000FF")]
        var csv = "project,color,start,end,duration,note\r\n"
        csv.reserveCapacity(count * 96)
        for index in 0..<count {
            let (name, color) = projects[index % 3]
            let from = start + Int64(index) * 3600
            csv += "\(name),\(color),\(Self.iso(from)),\(Self.iso(from + 45 * 60)),0:45:00,note \(index)\r\n"
        }
        return csv
    }

    /// `YYYY-MM-DDTHH:MM:SS.000000+00:00`.
    static func iso(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).000000+00:00"
    }
}

/// A tmpfs of `size` bytes mounted on an (empty) folder for one test, and a filler file that
/// takes its free space. `unmount()` (also when released) takes it away, lazily if something
/// still holds a file on it.
final class Tmpfs: @unchecked Sendable {
    let mountPoint: URL
    var filler: URL { mountPoint.appendingPathComponent("filler") }
    private var mounted = false

    init(mountingOn folder: URL, size: Int) throws {
        guard geteuid() == 0 else { throw TestSupportError("mounting a tmpfs needs root (CI runs these tests as root)") }
        mountPoint = folder
        try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size),mode=0700", "tmpfs", folder.path])
            .requireSuccess("mount -t tmpfs on \(folder.path)")
        mounted = true
    }

    deinit { unmount() }

    /// Bytes an unprivileged writer may still take.
    var available: Int64 {
        var info = statvfs()
        guard statvfs(mountPoint.path, &info) == 0 else { return -1 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Writes the filler until the kernel answers ENOSPC (every page of the tmpfs taken), or
    /// until only `leaving` bytes are left.
    func fill(leaving: Int64 = 0) throws {
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TestSupportError("cannot make \(filler.path): errno \(errno)") }
        defer { close(fd) }
        var toWrite = leaving > 0 ? max(0, available - leaving) : Int64.max
        let chunk = [UInt8](repeating: 0xA5, count: 1 << 16)
        while toWrite > 0 {
            let n = chunk.withUnsafeBytes { write(fd, $0.baseAddress!, Int(min(Int64($0.count), toWrite))) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ENOSPC && leaving == 0 { return }
                throw TestSupportError("writing the filler failed: errno \(errno)")
            }
            toWrite -= Int64(n)
        }
    }

    func freeFiller() throws {
        try FileManager.default.removeItem(at: filler)
    }

    func unmount() {
        guard mounted else { return }
        mounted = false
        // A daemon just killed may still be closing its files: try for a while, then detach.
        let done = waitUntil(timeout: 10) { (try? runProcess("/bin/umount", [mountPoint.path]))?.status == 0 }
        if !done { _ = try? runProcess("/bin/umount", ["-l", mountPoint.path]) }
    }
}
