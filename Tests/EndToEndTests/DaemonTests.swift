import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// The daemon on a private bus, started by D-Bus activation, driven by clients nobody here
/// wrote: busctl, gdbus, dbus-send and python3-dbus.
@Suite(.ownThread, .timeLimit(.minutes(3)))
struct DaemonTests {
    @Test func introspectionMatchesTheInterfaceFile() throws {
        let f = try DaemonFixture()
        let result = try f.busctl([
            "--json=short", "call", ContractNames.busName, ContractNames.objectPath, "org.freedesktop.DBus.Introspectable", "Introspect",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let xml = (json?["data"] as? [Any])?.first as? String
        let file = try String(
            contentsOf: repositoryRoot.appendingPathComponent("dbus/org.biomatimer.Timer1.xml"), encoding: .utf8)
        #expect(xml == file, "dbus/org.biomatimer.Timer1.xml must be exactly what the daemon serves")
        // gdbus reads it too and sees the whole contract.
        let gdbus = try runProcess(
            "/usr/bin/gdbus",
            ["introspect", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath])
        for name in ["StartProject", "CycleProject", "ListProjects", "ActiveProjectColor", "Projects", "PropertiesChanged"] {
            #expect(gdbus.stdout.contains(name), "\(name) missing from gdbus introspect")
        }
    }

    @Test func everyPropertyReadsThroughBusctl() throws {
        let f = try DaemonFixture()
        let expected: [(String, String)] = [
            ("Running", "b false"), ("SessionTime", "x 0"), ("DailyTotal", "x 0"), ("ActiveProject", "s \"\""),
            ("ActiveProjectName", "s \"\""), ("ActiveProjectColor", "s \"\""), ("ProjectSessionTime", "x 0"),
            ("ProjectDailyTotal", "x 0"), ("Projects", "a(sss) 0"),
        ]
        for (name, value) in expected {
            let r = try f.busctl(["get-property", ContractNames.busName, ContractNames.objectPath, ContractNames.interface, name])
            #expect(r.stdout == value + "\n", "\(name): \(r.stdout) \(r.stderr)")
        }
        let day = try f.busctl(["get-property", ContractNames.busName, ContractNames.objectPath, ContractNames.interface, "Day"])
        #expect(day.stdout.range(of: #"^s "\d{4}-\d{2}-\d{2}"\n$"#, options: .regularExpression) != nil)
        let updated = try f.busctl(["get-property", ContractNames.busName, ContractNames.objectPath, ContractNames.interface, "UpdatedAt"])
        #expect(updated.stdout.hasPrefix("x "))
        // Properties are read-only.
        let set = try f.busctl(["set-property", ContractNames.busName, ContractNames.objectPath, ContractNames.interface, "Running", "b", "true"])
        #expect(set.status != 0)
    }

    /// The timer rules (dbus/README.md), seen from outside, with exactly one PropertiesChanged per
    /// operation carrying what changed and fresh time values.
    @Test func rulesAndOneSignalPerOperation() throws {
        let f = try DaemonFixture()
        #expect(try f.call("AddProject", ["ss", "Client A", "#ff8800"]).stdout == "s \"p1\"\n")
        let monitor = try PropertiesMonitor(environment: f.environment)
        var seen = 0
        func step(_ member: String, _ args: [String] = [], reply: String = "", _ check: ([String: Any]) -> Void) throws {
            let r = try f.call(member, args)
            #expect(r.status == 0, "\(member): \(r.stderr)")
            if !reply.isEmpty { #expect(r.stdout == reply + "\n", "\(member)") }
            seen += 1
            let signals = monitor.waitFor(seen)
            #expect(signals.count == seen, "\(member) must emit exactly one PropertiesChanged")
            guard let last = signals.last else { return }
            for key in ["UpdatedAt", "SessionTime", "DailyTotal", "ProjectSessionTime", "ProjectDailyTotal"] {
                #expect(last[key] != nil, "\(member): fresh \(key) missing")
            }
            check(last)
        }
        try step("AddProject", ["ss", "Internal", ""], reply: "s \"p2\"") { s in
            let projects = s["Projects"] as? [[String]]
            #expect(projects == [["p1", "Client A", "#FF8800"], ["p2", "Internal", "#007AFF"]])
            #expect(s["Running"] == nil, "only what changed")
        }
        try step("StartProject", ["s", "client a"]) { s in
            // A project start starts work.
            #expect(s["Running"] as? Bool == true)
            #expect(s["ActiveProject"] as? String == "p1")
            #expect(s["ActiveProjectName"] as? String == "Client A")
            #expect(s["ActiveProjectColor"] as? String == "#FF8800")
        }
        try step("StartProject", ["s", "p2"]) { s in
            // A switch stops the other project at the same instant.
            #expect(s["ActiveProject"] as? String == "p2")
            #expect(s["Running"] == nil)
        }
        try step("Stop") { s in
            // Stop stops both.
            #expect(s["Running"] as? Bool == false)
            #expect(s["ActiveProject"] as? String == "")
        }
        try step("Start") { s in
            // Start resumes the project that stopped with work.
            #expect(s["Running"] as? Bool == true)
            #expect(s["ActiveProject"] as? String == "p2")
        }
        try step("StopProject") { s in
            #expect(s["ActiveProject"] as? String == "")
            #expect(s["Running"] == nil, "work goes on")
        }
        try step("ToggleProject", ["s", "Internal"], reply: "b true") { s in
            #expect(s["ActiveProject"] as? String == "p2")
        }
        try step("CycleProject", ["i", "1"], reply: "s \"p1\"") { s in
            #expect(s["ActiveProject"] as? String == "p1")
        }
        try step("Toggle", reply: "b false") { s in
            #expect(s["Running"] as? Bool == false)
        }
        try step("Reset") { s in
            #expect(s["SessionTime"] as? Int == 0)
            #expect(s["ProjectSessionTime"] as? Int == 0)
        }
        try step("UpdateProject", ["sa{sv}", "p1", "2", "Name", "s", "Client B", "Position", "u", "1"]) { s in
            #expect(s["Projects"] as? [[String]] == [["p2", "Internal", "#007AFF"], ["p1", "Client B", "#FF8800"]])
        }
        try step("DeleteProject", ["s", "Client B"]) { s in
            #expect(s["Projects"] as? [[String]] == [["p2", "Internal", "#007AFF"]])
        }
        // Reads change nothing and say nothing.
        for member in ["ListProjects"] { #expect(try f.call(member).status == 0) }
        #expect(try f.call("Report", ["ss", "week", ""]).status == 0)
        #expect(try f.call("ExportCSV", ["ss", "", ""]).status == 0)
        #expect(monitor.waitFor(seen + 1, timeout: 0.5).count == seen)
        // And a no-op (stop while stopped) says nothing either.
        #expect(try f.call("Stop").status == 0)
        #expect(monitor.waitFor(seen + 1, timeout: 0.5).count == seen)
        #expect(try f.call("ResetHistory").status == 0)
        #expect(try f.properties()["DailyTotal"]?.int64 == 0)
    }

    /// GetAll answers from one snapshot: every time value holds at the one UpdatedAt.
    @Test func getAllValuesHoldAtOneInstant() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("")])
        _ = try f.method("StartProject", [.string("Client A")])
        for _ in 0..<20 {
            let p = try f.properties()
            #expect(p["SessionTime"] == p["DailyTotal"], "\(p)")
            #expect(p["SessionTime"] == p["ProjectSessionTime"])
            #expect(p["ProjectSessionTime"] == p["ProjectDailyTotal"])
        }
    }

    @Test func listProjectsReportAndCSVThroughTheBus() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("#FF8800")])
        _ = try f.method("StartProject", [.string("Client A")])
        Thread.sleep(forTimeInterval: 0.05)
        _ = try f.method("Stop")
        let list = try #require(try f.method("ListProjects").first?.array?.first?.vardict)
        #expect(list["Id"] == .string("p1"))
        #expect(list["Name"] == .string("Client A"))
        #expect(list["Color"] == .string("#FF8800"))
        #expect(list["Position"] == .uint32(0))
        #expect(list["Running"] == .boolean(false))
        #expect((list["SessionTime"]?.int64 ?? 0) > 0)
        let report = try #require(try f.method("Report", [.string("day"), .string("")]).first?.vardict)
        #expect(report["From"] == report["To"])
        #expect((report["WorkTotal"]?.int64 ?? 0) > 0)
        #expect(report["NoProjectTotal"] == .int64(0))
        let projectRow = try #require(report["Projects"]?.array?.first?.vardict)
        #expect(projectRow["Percent"] == .double(100))
        #expect(report["Days"]?.array?.count == 1)
        let csv = try #require(try f.method("ExportCSV", [.string(""), .string("")]).first?.string)
        #expect(csv.hasPrefix("project,color,start,end,duration"))
        // Import into a fresh daemon: the same history comes out.
        let g = try DaemonFixture()
        #expect(try g.method("ImportCSV", [.string(csv)]) == [.uint32(1)])
        #expect(try g.method("ExportCSV", [.string(""), .string("")]).first?.string == csv)
    }

    /// Bad input gets its named error and a message, and changes nothing.
    @Test func badInputIsRefusedByNameAndChangesNothing() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("")])
        _ = try f.method("StartProject", [.string("Client A")])
        let before = try f.durableState()
        let prefix = "org.biomatimer.Timer1.Error."
        let cases: [(String, [String], String)] = [
            ("StartProject", ["'nope'"], "NoSuchProject"),
            ("ToggleProject", ["'p99'"], "NoSuchProject"),
            ("ResetProject", ["'nope'"], "NoSuchProject"),
            ("DeleteProject", ["'nope'"], "NoSuchProject"),
            ("AddProject", ["''", "''"], "InvalidName"),
            ("AddProject", ["'   '", "''"], "InvalidName"),
            ("AddProject", ["'\(String(repeating: "x", count: 65))'", "''"], "InvalidName"),
            ("AddProject", ["'a\\tb'", "''"], "InvalidName"),
            ("AddProject", ["'bell\\u0007'", "''"], "InvalidName"),
            ("AddProject", ["'CLIENT a'", "''"], "NameTaken"),
            ("AddProject", ["'p1'", "''"], "InvalidArgument"),
            ("AddProject", ["'C2'", "''"], "InvalidArgument"),
            ("UpdateProject", ["'p1'", "{'Name': <'t3'>}"], "InvalidArgument"),
            ("AddClient", ["'p1'", "@a{sv} {}"], "InvalidArgument"),
            ("AddProject", ["'New'", "'#12345'"], "InvalidColor"),
            ("AddProject", ["'New'", "'red'"], "InvalidColor"),
            ("AddProject", ["'New'", "'#GGGGGG'"], "InvalidColor"),
            ("UpdateProject", ["'p1'", "{'Color': <'blue'>}"], "InvalidColor"),
            ("UpdateProject", ["'p1'", "{'Name': <''>}"], "InvalidName"),
            ("UpdateProject", ["'p1'", "{'Bogus': <1>}"], "InvalidArgument"),
            ("UpdateProject", ["'p1'", "{'Position': <'first'>}"], "InvalidArgument"),
            ("UpdateProject", ["'p1'", "@a{sv} {}"], "InvalidArgument"),
            ("Report", ["'fortnight'", "''"], "InvalidArgument"),
            ("Report", ["'day'", "'2026-13-01'"], "InvalidArgument"),
            ("Report", ["'week'", "'yesterday'"], "InvalidArgument"),
            ("PeriodDays", ["'fortnight'", "''"], "InvalidArgument"),
            ("PeriodDays", ["'week'", "'2026-02-30'"], "InvalidArgument"),
            ("ExportCSV", ["'2026-02-30'", "''"], "InvalidArgument"),
            ("ImportCSV", ["'not,a,csv\\nfile'"], "InvalidArgument"),
            ("CycleProject", ["0"], "InvalidArgument"),
        ]
        for (member, args, error) in cases {
            let r = try runProcess(
                "/usr/bin/gdbus",
                ["call", "--address", f.bus.address, "--dest", ContractNames.busName, "--object-path", ContractNames.objectPath,
                 "--method", "\(ContractNames.interface).\(member)"] + args)
            #expect(r.status != 0, "\(member) \(args) was accepted")
            #expect(r.stderr.contains("GDBus.Error:\(prefix)\(error): "), "\(member) \(args): \(r.stderr)")
            // The message is a sentence, not just the name.
            let message = r.stderr.components(separatedBy: "\(prefix)\(error): ").last ?? ""
            #expect(message.count > 10, "\(member): message \(message)")
        }
        // Wrong argument types never reach the tracker.
        let wrongType = try f.call("StartProject", ["i", "5"])
        #expect(wrongType.status != 0)
        #expect(wrongType.stderr.contains("'s'"), "\(wrongType.stderr)")
        let dbusSend = try runProcess(
            "/usr/bin/dbus-send",
            ["--bus=\(f.bus.address)", "--print-reply", "--dest=\(ContractNames.busName)", ContractNames.objectPath,
             "\(ContractNames.interface).StartProject", "string:nope"])
        #expect(dbusSend.stderr.contains("Error \(prefix)NoSuchProject: "), "\(dbusSend.stderr)")
        #expect(try f.durableState() == before)
    }

    @Test func concurrentClientsLeaveAConsistentState() throws {
        let f = try DaemonFixture()
        for name in ["Alpha", "Beta", "Gamma"] { _ = try f.method("AddProject", [.string(name), .string("")]) }
        let monitor = try PropertiesMonitor(environment: f.environment)
        let script = repositoryRoot.appendingPathComponent("Tests/peers/random_switches.py").path
        let clients = try (0..<20).map { seed in
            try ChildProcess("/usr/bin/python3", [script, "50", "\(seed)", "Alpha", "beta", "p3"], environment: f.environment)
        }
        for client in clients {
            let status = client.wait()
            #expect(status == 0, "a client failed: \(String(decoding: client.stderr?.readDataToEndOfFile() ?? Data(), as: UTF8.self))")
        }
        let projects = try f.method("ListProjects").first?.array?.compactMap(\.vardict) ?? []
        #expect(projects.filter { $0["Running"]?.bool == true }.count <= 1, "at most one project runs")
        // No intervals overlap in the store.
        _ = try f.method("Stop")
        let intervals = try parseIntervals(try f.method("ExportCSV", [.string(""), .string("")]).first?.string ?? "")
        #expect(!intervals.isEmpty)
        for (a, b) in zip(intervals, intervals.dropFirst()) {
            #expect(a.end <= b.start, "intervals overlap: \(a) \(b)")
        }
        // What the signals said last is what the daemon holds, once the monitor has read the
        // signal of the Stop above (the last change).
        func lastSaid() -> [String: String] {
            var state: [String: String] = [:]
            for s in monitor.signals {
                for key in ["Running", "ActiveProject"] where s[key] != nil { state[key] = "\(s[key]!)" }
            }
            return state
        }
        let props = try f.properties()
        #expect(props["Running"]?.bool == false)
        #expect(
            waitUntil { ["0", "false"].contains(lastSaid()["Running"] ?? "") && lastSaid()["ActiveProject"] == props["ActiveProject"]?.string },
            "the signals said \(lastSaid()), the daemon holds \(props)")
    }

    @Test func killedDaemonIsRestartedByActivationAndContinues() throws {
        let f = try DaemonFixture()
        _ = try f.method("AddProject", [.string("Client A"), .string("")])
        _ = try f.method("StartProject", [.string("Client A")])
        Thread.sleep(forTimeInterval: 0.3)
        let before = try f.properties()
        let pid = try #require(try f.daemonPID())
        kill(pid, SIGKILL)
        #expect(waitUntil { (try? f.daemonPID()) == nil || (try? f.daemonPID()) != pid })
        // The next call starts a new daemon by activation.
        let after = try f.properties()
        let newPID = try #require(try f.daemonPID())
        #expect(newPID != pid)
        #expect(after["Running"] == .boolean(true))
        #expect(after["ActiveProjectName"] == .string("Client A"))
        // Same boot: the open interval continues, so no recorded time is lost.
        #expect((after["SessionTime"]?.int64 ?? 0) >= (before["SessionTime"]?.int64 ?? .max))
        #expect((after["DailyTotal"]?.int64 ?? 0) >= (before["DailyTotal"]?.int64 ?? .max))
        #expect((after["ProjectSessionTime"]?.int64 ?? 0) >= (before["ProjectSessionTime"]?.int64 ?? .max))
    }

    @Test func singleInstanceReplaceAndCleanExit() throws {
        let f = try DaemonFixture(activation: false)
        let env = f.environment
        let first = try ChildProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: env)
        defer { first.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) == first.pid })
        let second = try runProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: env)
        #expect(second.status == 1)
        #expect(second.stderr.contains("another daemon is running: org.biomatimer.Timer1 is owned by"), "\(second.stderr)")
        #expect(second.stderr.contains("pid \(first.pid)"))
        #expect(second.stderr.contains("--replace"))

        _ = try f.method("AddProject", [.string("Kept"), .string("")])
        _ = try f.method("StartProject", [.string("Kept")])
        let third = try ChildProcess(
            DaemonFixture.binary, ["daemon", "--replace", "--data-dir", f.dataDirectory.path], environment: env)
        defer { third.terminate() }
        #expect(first.wait() == 0, "the replaced daemon exits cleanly")
        #expect(waitUntil { (try? f.daemonPID()) == third.pid })
        #expect(try f.properties()["ActiveProjectName"] == .string("Kept"))
        third.signal(SIGTERM)
        #expect(third.wait() == 0, "SIGTERM ends the daemon with 0")
        let log = String(decoding: third.stderr?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        #expect(!log.contains("lost the bus"), "a deliberate exit is not reported as a lost bus: \(log)")
    }

    /// One daemon per store, even on another bus: two writers would each trust their own
    /// idea of the running interval.
    @Test func secondDaemonOnAnotherBusCannotShareTheStore() throws {
        let f = try DaemonFixture(activation: false)
        let first = try ChildProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: f.environment)
        defer { first.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) == first.pid })
        let other = try PrivateBus()
        let second = try runProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: other.environment)
        #expect(second.status == 1)
        #expect(
            second.stderr.contains("another daemon (pid \(first.pid)) is using the store at \(f.dataDirectory.path)"),
            "\(second.stderr)")
        #expect(try BlockingBus(.address(other.address)).nameOwner(ContractNames.busName) == nil, "it left the name alone")
    }

    @Test func lostBusEndsTheDaemonWithTheStoreIntact() throws {
        let f = try DaemonFixture(activation: false)
        let daemon = try ChildProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: f.environment)
        defer { daemon.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) == daemon.pid })
        _ = try f.method("AddProject", [.string("Survives"), .string("")])
        f.bus.stop()
        #expect(daemon.wait() == 1)
        let stderr = String(decoding: daemon.stderr?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        #expect(stderr.contains("lost the bus"))
        // A new bus, a new daemon, the same store.
        let g = try DaemonFixture(activation: false)
        let again = try ChildProcess(DaemonFixture.binary, ["daemon", "--data-dir", f.dataDirectory.path], environment: g.environment)
        defer { again.terminate() }
        #expect(waitUntil { (try? g.daemonPID()) == again.pid })
        #expect(try g.properties()["Projects"] == .array(.structure([.string, .string, .string]), [.structure([.string("p1"), .string("Survives"), .string("#007AFF")])]))
    }
}

struct CSVInterval: CustomStringConvertible {
    var start: Date
    var end: Date
    var description: String { "\(start)–\(end)" }
}

/// Start and end of every row of an export, sorted by start.
func parseIntervals(_ csv: String) throws -> [CSVInterval] {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    var out: [CSVInterval] = []
    for line in csv.split(whereSeparator: \.isNewline).dropFirst() {
        let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // From the end (a project name may hold commas): start, end, duration, note, tags.
        guard cells.count >= 7 else { throw TestSupportError("bad row \(line)") }
        let s = cells[cells.count - 5]
        let e = cells[cells.count - 4]
        guard let start = formatter.date(from: s) ?? plain.date(from: s), let end = formatter.date(from: e) ?? plain.date(from: e)
        else { throw TestSupportError("bad instants in \(line)") }
        out.append(CSVInterval(start: start, end: end))
    }
    return out.sorted { $0.start < $1.start }
}

@Suite(.ownThread, .timeLimit(.minutes(1)))
struct DaemonIdleTests {
    /// Nothing ticks per second: stopped or running, the daemon sleeps until a call, a day
    /// boundary or the heartbeat (minutes away).
    @Test func daemonDoesNotWakeWhileNothingHappens() throws {
        let f = try DaemonFixture()
        _ = try f.properties()
        let pid = try #require(try f.daemonPID())
        var before = try #require(quietContextSwitches(of: pid))  // start-up settled
        Thread.sleep(forTimeInterval: 1)  // a per-second tick would show in this window
        #expect(contextSwitches(of: pid) == before, "woke up while stopped")

        _ = try f.method("Start")
        before = try #require(quietContextSwitches(of: pid))
        Thread.sleep(forTimeInterval: 1)
        #expect(contextSwitches(of: pid) == before, "woke up while running")
    }

    /// Bulk work runs on worker connections; once it has ended the daemon sleeps as before.
    /// (A worker connection let go used to start libdispatch's worker threads, whose pool
    /// monitor then woke the daemon every second for good.)
    @Test func daemonSleepsAgainAfterBulkWork() throws {
        let f = try DaemonFixture()
        let csv = "project,color,start,end,duration\nClient A,#007AFF,2026-01-07T09:00:00Z,2026-01-07T10:00:00Z,1:00:00\n"
        try f.cliOK(["import", "-"], input: csv)  // written on a worker
        try f.cliOK(["report", "--date", "2026-01-07", "--month"])  // made on a worker
        let pid = try #require(try f.daemonPID())
        // Settled: the worker's and the command's threads have ended (a thread that ends
        // switches context), and nothing else runs.
        let before = try #require(quietContextSwitches(of: pid))
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count
        Thread.sleep(forTimeInterval: 2.5)  // a per-second tick would show twice in this window
        #expect(contextSwitches(of: pid) == before, "woke up after bulk work")
        #expect(threads == 2, "threads left after bulk work: \(threads)")
    }
}

/// The real daemon under libfaketime (which fakes clock_gettime and timerfd_settime), started
/// five seconds before midnight: its day timer fires at the boundary and publishes the new day.
/// (Five, not two: the daemon's start and `Start` must come before midnight on a loaded machine.)
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct DaemonDayBoundaryTests {
    @Test func dayBoundarySignalFromTheRealTimer() throws {
        let f = try DaemonFixture(activation: false)
        var env = f.environment
        env["TZ"] = "UTC"
        let daemon = try f.startDaemon(at: "2026-11-22 23:59:55", environment: env)
        defer { daemon.terminate() }
        #expect(waitUntil { (try? f.daemonPID()) != nil }, "the daemon did not start under faketime")
        let monitor = try PropertiesMonitor(environment: f.environment)
        #expect(try f.properties()["Day"] == .string("2026-11-22"))
        _ = try f.method("Start")
        let signals = monitor.waitFor(2, timeout: 10, settle: 0.2)
        #expect(signals.count == 2, "one signal for Start, one for the day boundary: \(signals)")
        let boundary = try #require(signals.last)
        #expect(boundary["Day"] as? String == "2026-11-23")
        let daily = try #require(boundary["DailyTotal"] as? Int)
        let session = try #require(boundary["SessionTime"] as? Int)
        #expect(daily < 1_000_000, "the daily total restarts at midnight: \(daily)")
        #expect(session > 1_000_000, "the session runs across midnight: \(session)")
    }
}
