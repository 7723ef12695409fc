import BiomaCore
@testable import BiomaDaemon
import BiomaStore
import DBusCore
import DBusKit
import Foundation
import Testing

import TestSupport

/// Bulk work on a worker: while an import is being written, the daemon answers what only
/// reads, keeps every other call, and applies those after the import, in order. The import
/// is held at its write by another connection holding the store's write lock (python3's
/// sqlite3), so "while" is a state the test controls, not a race.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct BulkWorkTests {
    /// The service in process on a private bus, an injected clock, and the store's path.
    struct Service {
        let bus: PrivateBus
        let data: URL
        let clock: ManualClock
        let tracker: Tracker
        let service: Bus
        let timer: WorkService
        let rules = DayRules(timeZone: TimeZone(identifier: "Europe/Berlin")!, dayStartMinutes: 0)

        init() throws {
            bus = try PrivateBus()
            data = try makeTemporaryDirectory("biomatimer-bulk")
            clock = ManualClock(rules.start(of: Day("2026-03-10")!) + 12 * 3_600_000_000)
            tracker = try Tracker(dataDirectory: data, rules: rules, now: clock.now(), bootID: "test-boot")
            service = try Bus(.address(bus.address))
            let parts = DaemonParts(tracker: tracker, bus: service, clock: clock, data: data)
            timer = parts.timer
            try parts.object.export(on: service)
            try service.requestName(ContractNames.busName)
        }

        func client() throws -> BlockingBus { try BlockingBus(.address(bus.address)) }

        func close() {
            service.close()
            try? FileManager.default.removeItem(at: data)
        }
    }

    /// Another writer on the store until `release` (its transaction rolled back).
    final class WriteLock {
        let holder: ChildProcess

        init(_ database: URL) throws {
            let script = """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
                c.execute("BEGIN IMMEDIATE")
                print("locked", flush=True)
                sys.stdin.readline()
                c.execute("ROLLBACK")
                """
            holder = try ChildProcess("/usr/bin/python3", ["-c", script, database.path], pipeInput: true)
            guard holder.readLine() == "locked" else { throw TestSupportError("the store's write lock was not taken") }
        }

        func release() {
            holder.stdin?.write(Data("\n".utf8))
            _ = holder.wait()
        }
    }

    /// A call made on a thread of its own: its answer, once it has come.
    final class Pending: @unchecked Sendable {
        private let condition = NSCondition()
        private var answer: Result<[DBusValue], BusError>?

        init(_ address: String, _ member: String, _ arguments: [DBusValue] = []) {
            Thread { [self] in
                let result = Result { () throws(BusError) in
                    try BlockingBus(.address(address)).call(
                        destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface,
                        member: member, arguments)
                }
                condition.lock()
                answer = result
                condition.broadcast()
                condition.unlock()
            }.start()
        }

        var answered: Bool { condition.withLock { answer != nil } }

        func wait(seconds: TimeInterval = 10) -> Result<[DBusValue], BusError>? {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(seconds)
            while answer == nil, condition.wait(until: deadline) {}
            return answer
        }
    }

    /// Waits until the daemon's loop is held: a call that is not a read gets no answer within
    /// 150 ms while a property read does. The call, `AwayBegin` with a reason that does not
    /// exist, is refused before it touches the store (another connection holds the store's
    /// write lock: any write would wait for it); those kept are refused after.
    static func waitUntilHeld(_ address: String) -> Bool {
        waitUntil(timeout: 10) {
            guard let client = try? BlockingBus(.address(address)) else { return false }
            do throws(BusError) {
                _ = try client.call(
                    destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface,
                    member: "AwayBegin", [.string("probe"), .int64(0)], timeout: CallTimeout(milliseconds: 150))
                return false
            } catch {
                guard case .timeout = error else { return false }
                return (try? client.call(
                    destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                    member: "GetAll", [.string(ContractNames.interface)], timeout: CallTimeout(milliseconds: 1000))) != nil
            }
        }
    }

    static func csv(_ rows: [(String, String)]) -> String {
        "project,color,start,end,duration\n" + rows.map { "Imported,#007AFF,\($0.0),\($0.1)," }.joined(separator: "\n") + "\n"
    }

    @Test func readsAreAnsweredDuringAnImportAndAToggleFollowsItInOrder() throws {
        let s = try Service()
        defer { s.close() }
        let listener = try Bus(.address(s.bus.address))
        defer { listener.close() }
        let seen = SignalLog()
        try listener.subscribe(
            MatchRule(path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged")
        ) { if $0.arguments[0].string == ContractNames.interface { seen.add($0.arguments[1].vardict ?? [:]) } }

        let lock = try WriteLock(s.tracker.path)
        let csv = Self.csv([("2026-03-10T08:00:00+01:00", "2026-03-10T09:00:00+01:00"), ("2026-03-10T09:30:00+01:00", "2026-03-10T11:00:00+01:00")])
        let importing = Pending(s.bus.address, "Import", [.string("csv"), .string(csv), .vardict([:])])
        #expect(Self.waitUntilHeld(s.bus.address), "the import never held the loop")
        // The import is held at its write; a bar's read is answered meanwhile, from the last commit.
        let reader = try s.client()
        var status: [DBusValue] = []
        #expect(
            waitUntil(timeout: 5) {
                status = (try? reader.call(
                    destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
                    member: "GetAll", [.string(ContractNames.interface)])) ?? []
                return !status.isEmpty
            })
        #expect(status.first?.vardict?["DailyTotal"] == .int64(0))
        #expect(!importing.answered, "the import is held by the lock")
        // A method that only reads is answered too; a toggle waits for the import.
        let intervals = try reader.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: "ListIntervals",
            [.string("2026-03-10"), .string("2026-03-10")])
        #expect(intervals.first?.array?.isEmpty == true)
        let toggling = Pending(s.bus.address, "Toggle")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!toggling.answered, "a change waits while the import is written")
        #expect(!importing.answered)

        lock.release()
        let imported = try #require(importing.wait(), "the import was not answered")
        #expect(try imported.get() == [.uint32(2)])
        #expect(try #require(toggling.wait(), "the toggle was not answered").get() == [.boolean(true)])
        // One publication each, the import's first: its 2.5 hours, then the toggle's start.
        #expect(seen.wait(count: 2))
        let (first, second) = (seen.all[0], seen.all[1])
        #expect(first["DailyTotal"] == .int64(9_000_000_000))
        #expect(first["Running"] == nil)
        #expect(second["Running"] == .boolean(true))
        #expect(try s.service.sync { () throws(BusError) in s.tracker.workTimer.running })
    }

    /// Undo of an import of many intervals is bulk work too: held at its write, the loop
    /// answers reads (the intervals still there) and keeps a toggle for after it.
    @Test func theUndoOfALargeImportIsWrittenOnAWorker() throws {
        let s = try Service()
        defer { s.close() }
        let count = WorkService.bulkUndoRows
        let day = s.rules.start(of: Day("2026-03-09")!)
        let rows = (0..<count).map { index in
            let start = Date(timeIntervalSince1970: Double(day) / 1e6 + Double(index) * 60)
            return (start.ISO8601Format(), start.addingTimeInterval(30).ISO8601Format())
        }
        let imported = try s.client().call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: "ImportCSV",
            [.string(Self.csv(rows))])
        #expect(imported == [.uint32(UInt32(count))])

        let lock = try WriteLock(s.tracker.path)
        let undoing = Pending(s.bus.address, "Undo")
        #expect(Self.waitUntilHeld(s.bus.address), "the undo never held the loop")
        let listed = try s.client().call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: "ListIntervals",
            [.string("2026-03-09"), .string("2026-03-09")])
        #expect(listed.first?.array?.count == count, "a read is answered from the last commit")
        let toggling = Pending(s.bus.address, "Toggle")
        Thread.sleep(forTimeInterval: 0.2)
        #expect(!toggling.answered && !undoing.answered)

        lock.release()
        #expect(try #require(undoing.wait(), "the undo was not answered").get() == [.string("Undid: import of \(count) intervals (csv)")])
        #expect(try #require(toggling.wait(), "the toggle was not answered").get() == [.boolean(true)])
        let after = try s.client().call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: "ListIntervals",
            [.string("2026-03-09"), .string("2026-03-09")])
        #expect(after.first?.array?.isEmpty == true)
    }

    /// A month's or a year's report, a timesheet and a range are made on a worker's tracker
    /// (the loop goes on answering others meanwhile); a day's or a week's on the loop's own.
    /// Both read the same committed store.
    @Test func longReportsAreMadeOnAWorkerAndShortOnesOnTheLoop() throws {
        let s = try Service()
        defer { s.close() }
        let client = try s.client()
        func call(_ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
            try client.call(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: member, arguments)
        }
        let csv = Self.csv([("2026-03-10T08:00:00+01:00", "2026-03-10T09:30:00+01:00")])
        #expect(try call("Import", [.string("csv"), .string(csv), .vardict([:])]) == [.uint32(1)])
        func reads() throws -> Int { try s.service.sync { () throws(BusError) in s.timer.bulk.readsStarted } }
        func text(_ period: String, _ options: [String: DBusValue] = [:]) throws -> String {
            try call("ReportText", [.string(period), .string("2026-03-10"), .vardict(options)]).first?.string ?? ""
        }
        let before = try reads()
        let day = try text("day")
        let week = try text("week", ["Json": .boolean(true)])
        #expect(try reads() == before, "a day's and a week's report are made on the loop")
        let month = try text("month")
        let year = try text("year", ["Json": .boolean(true)])
        let sheet = try text("week", ["Html": .boolean(true)])
        let range = try text("day", ["From": .string("2026-03-01"), "To": .string("2026-03-31")])
        let numbers = try call("Report", [.string("year"), .string("2026-03-10")])
        #expect(try reads() == before + 5, "a month, a year, a timesheet, a range and the year's numbers are made on a worker")
        // The same store behind both: the imported hour and a half is in every answer.
        for answer in [day, month, range] { #expect(answer.contains("Imported") && answer.contains("1:30"), "\(answer)") }
        for answer in [week, year] { #expect(answer.contains("5400000000"), "\(answer)") }
        #expect(sheet.hasPrefix("<!DOCTYPE html>") && sheet.contains("Imported"))
        #expect(numbers.first?.vardict?["WorkTotal"] == .int64(5_400_000_000), "\(numbers)")
        // A bad option is refused at once, on the loop, by name, before any worker.
        #expect(throws: BusError.self) { try text("year", ["Colour": .boolean(true)]) }
        #expect(try reads() == before + 5)
    }

    /// What a chain of writes saw, set on the loop.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Result<[String], any Error>?
        var result: Result<[String], any Error>? { lock.withLock { value } }
        func set(_ result: Result<[String], any Error>) { lock.withLock { value = result } }
    }

    /// The slices of one job share a worker: a write that follows another at the loop's next
    /// turn takes its connection again, with what the loop changed in between (a project made
    /// on the loop's tracker after the first write was adopted), and a turn that starts no
    /// write closes it.
    @Test func aWriteThatFollowsAnotherTakesItsWorkerWithTheLoopsChanges() throws {
        let s = try Service()
        defer { s.close() }
        let now = s.clock.now()
        let seen = Seen()
        let (bulk, tracker) = (s.timer.bulk, s.tracker)
        let opened = try s.service.sync { () throws(BusError) in bulk.writersOpened }
        try s.service.sync { () throws(BusError) in
            bulk.write({ worker in _ = try worker.catalog.addProject(name: "First", color: "", at: now) }) { first in
                do {
                    try first.get()
                    _ = try tracker.catalog.addProject(name: "Between", color: "", at: now)
                } catch {
                    return seen.set(.failure(error))
                }
                bulk.write({ worker -> [String] in
                    _ = try worker.catalog.addProject(name: "Second", color: "", at: now)
                    return worker.projects.map(\.name)
                }) { seen.set($0) }
            }
        }
        #expect(waitUntil { seen.result != nil })
        #expect(try seen.result?.get() == ["First", "Between", "Second"])
        #expect(try s.service.sync { () throws(BusError) in tracker.projects.map(\.name) } == ["First", "Between", "Second"])
        #expect(try s.service.sync { () throws(BusError) in bulk.writersOpened } == opened + 1, "the second write took the first's worker")
        #expect(waitUntil { (try? s.service.sync { () throws(BusError) in bulk.keepsAWorker }) == false })
    }

    /// A job of many slices (a peer's log) starts each next write at the loop's next turn:
    /// all of them take the first's worker (its prepared statements and page cache). The turn
    /// that would have ended the worker after one slice runs while a later slice holds the
    /// loop, and only after it: it must not end the worker that slice kept again.
    @Test func everySliceOfAJobTakesTheFirstsWorker() throws {
        let s = try Service()
        defer { s.close() }
        let now = s.clock.now()
        let seen = Seen()
        let (bulk, loop) = (s.timer.bulk, s.service.loop)
        let opened = try s.service.sync { () throws(BusError) in bulk.writersOpened }
        @Sendable func slice(_ number: Int) {
            bulk.write({ worker -> [String] in
                _ = try worker.catalog.addProject(name: "Slice \(number)", color: "", at: now)
                return worker.projects.map(\.name)
            }) { result in
                guard number < 5, (try? result.get()) != nil else { return seen.set(result) }
                loop.later { slice(number + 1) }
            }
        }
        try s.service.sync { () throws(BusError) in slice(1) }
        #expect(waitUntil { seen.result != nil })
        #expect(try seen.result?.get() == (1...5).map { "Slice \($0)" })
        #expect(try s.service.sync { () throws(BusError) in bulk.writersOpened } == opened + 1, "every slice took the first's worker")
        #expect(waitUntil { (try? s.service.sync { () throws(BusError) in bulk.keepsAWorker }) == false })
    }

    @Test func aFailedImportChangesNothingAndTheCallsKeptMeanwhileStillRun() throws {
        let s = try Service()
        defer { s.close() }
        let lock = try WriteLock(s.tracker.path)
        // The second row overlaps the first: nothing of the import is recorded.
        let csv = Self.csv([("2026-03-10T08:00:00+01:00", "2026-03-10T09:00:00+01:00"), ("2026-03-10T08:30:00+01:00", "2026-03-10T10:00:00+01:00")])
        let importing = Pending(s.bus.address, "Import", [.string("csv"), .string(csv), .vardict([:])])
        #expect(Self.waitUntilHeld(s.bus.address), "the import never held the loop")
        let starting = Pending(s.bus.address, "Start")
        Thread.sleep(forTimeInterval: 0.1)
        #expect(!importing.answered && !starting.answered, "both wait for the store")
        lock.release()
        guard case .failure(let error)? = importing.wait() else {
            Issue.record("the overlapping import was accepted")
            return
        }
        #expect("\(error)".contains("InvalidImport"))
        #expect(try #require(starting.wait()).get() == [])
        let recorded = try s.service.sync { () throws(BusError) in
            Result { try s.tracker.history.intervals(from: Day("2026-03-10")!, to: Day("2026-03-10")!, at: s.clock.now()) }
        }.get()
        #expect(recorded.isEmpty, "no row of the failed import, and the start has lasted no time yet")
        #expect(try s.service.sync { () throws(BusError) in s.tracker.workTimer.running })
    }
}

/// The same with the real daemon and the real front: an import held at its write ends rolled
/// back when the daemon is told to stop or its caller goes, and what was kept meanwhile is
/// still answered.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct BulkWorkDaemonTests {
    let f: DaemonFixture
    let daemon: ChildProcess
    let file: URL

    init() throws {
        f = try DaemonFixture(activation: false)
        daemon = try f.startDaemon(environment: f.environment)
        file = f.bus.directory.appendingPathComponent("week.csv")
        let day = ISO8601DateFormatter.string(from: Date().addingTimeInterval(-3 * 86_400), timeZone: .current, formatOptions: [.withFullDate])
        try BulkWorkTests.csv([("\(day)T08:00:00Z", "\(day)T09:00:00Z"), ("\(day)T10:00:00Z", "\(day)T12:00:00Z")])
            .write(to: file, atomically: true, encoding: .utf8)
        guard waitUntil(timeout: 10, { (try? f.daemonPID()) == daemon.pid }) else { throw TestSupportError("the daemon did not start") }
    }

    /// What the store holds: the CSV export's rows (without the header).
    func recordedRows() throws -> [Substring] {
        let csv = try f.method("ExportCSV", [.string(""), .string("")]).first?.string ?? ""
        return csv.split(separator: "\r\n").dropFirst().map { $0 }
    }

    @Test func aTerminationDuringAnImportRollsItBackAndStillAnswersTheCallsKept() throws {
        let log = Drain(daemon.stderr)
        let lock = try BulkWorkTests.WriteLock(f.dataDirectory.appendingPathComponent(Tracker.databaseFileName))
        let importing = try ChildProcess(DaemonFixture.binary, ["import", file.path], environment: f.environment)
        #expect(BulkWorkTests.waitUntilHeld(f.bus.address), "the import never held the loop")
        // A start sent meanwhile: once a read sent after it on the same connection is answered,
        // the daemon has it (a connection's messages are handled in order), kept.
        let client = try BlockingBus(.address(f.bus.address))
        try client.send(
            BusMessage.methodCall(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: ContractNames.interface, member: "Start"))
        _ = try client.call(
            destination: ContractNames.busName, path: ContractNames.objectPath, interface: "org.freedesktop.DBus.Properties",
            member: "GetAll", [.string(ContractNames.interface)])
        daemon.signal(SIGTERM)
        // The signal ends the work at once (it stops waiting for the store: nothing of it is
        // recorded); then the store is let go, for the start kept meanwhile.
        #expect(waitUntil(timeout: 5) { log.text.contains("SIGTERM: the work under way is stopped") }, "\(log.text)")
        lock.release()
        #expect(daemon.waitForExit(timeout: 5), "the daemon did not end after SIGTERM")
        #expect(daemon.wait() == 0)
        #expect(importing.wait() != 0, "the import was not refused")

        let again = try f.startDaemon(environment: f.environment)
        defer { again.terminate() }
        #expect(waitUntil(timeout: 10) { (try? f.daemonPID()) == again.pid })
        #expect(try recordedRows().isEmpty, "nothing of the import was recorded")
        #expect(try f.properties()["Running"] == .boolean(true), "the start was applied before the daemon ended: \(log.text)")
    }

    @Test func aCallerThatLeavesDuringItsImportTakesItWith() throws {
        let lock = try BulkWorkTests.WriteLock(f.dataDirectory.appendingPathComponent(Tracker.databaseFileName))
        let importing = try ChildProcess(DaemonFixture.binary, ["import", file.path], environment: f.environment)
        #expect(BulkWorkTests.waitUntilHeld(f.bus.address), "the import never held the loop")
        importing.signal(SIGKILL)
        importing.wait()
        // Its leaving is seen while the work waits for the store; then the store is free.
        Thread.sleep(forTimeInterval: 0.3)
        lock.release()
        #expect(waitUntil(timeout: 5) { (try? f.properties()["Running"]) != nil })
        #expect(try recordedRows().isEmpty, "nothing of the import was recorded")
        // The daemon goes on: the same import from a caller who stays is recorded whole.
        let result = try f.cli(["import", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try recordedRows().count == 2)
        #expect(daemon.status == nil)
    }

    /// A caller's zone only the C library knows (a POSIX rule) is set around its command, which
    /// therefore runs on the loop: its import and export finish there, in place.
    @Test func aCommandInAZoneOnlyTheCLibraryKnowsStillImportsAndExports() throws {
        var env = f.environment
        env["TZ"] = "ABC-3"
        let imported = try f.cli(["import", file.path], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Imported 2 intervals"), "\(imported.stdout)")
        let exported = try f.cli(["export"], environment: env)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.split(separator: "\r\n").count == 3, "\(exported.stdout)")
        #expect(try recordedRows().count == 2)
    }
}
