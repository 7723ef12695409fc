import BiomaCore
import BiomaDaemon
import DBusKit
import Foundation
import Testing

import TestSupport

/// Event hooks end to end: real executables in a hooks folder, the real daemon on a private
/// bus (its clock libfaketime's, from Wednesday 2026-11-25 12:00 UTC), its own config folder.
@Suite(.ownThread, .timeLimit(.minutes(2)))
struct HooksTests {
    static let start = "2026-11-25 12:00:00"
    static func at(_ text: String) -> Int64 { t("2026-11-25T\(text):00Z") }

    final class Daemon {
        let f: DaemonFixture
        var process: ChildProcess
        var env: [String: String]
        let hooks: URL
        /// Where the logging hooks write: a file per event.
        let out: URL
        /// The signals the daemon's parent left ignored (`trap '' SIGNALS` before it), if any.
        let ignoring: String?

        init(config: String = "", ignoring: String? = nil) throws {
            self.ignoring = ignoring
            f = try DaemonFixture(activation: false)
            env = f.environment
            env["TZ"] = "UTC"
            let configHome = f.bus.directory.appendingPathComponent("config")
            hooks = configHome.appendingPathComponent("biomatimer/hooks")
            out = f.bus.directory.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: hooks, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try config.write(to: configHome.appendingPathComponent("biomatimer/config"), atomically: true, encoding: .utf8)
            env["XDG_CONFIG_HOME"] = configHome.path
            process = try Self.startDaemon(f, env, ignoring: ignoring)
            guard waitUntil({ (try? f.daemonPID()) != nil }) else { throw TestSupportError("the daemon did not start") }
        }

        deinit { process.terminate() }

        /// The daemon, started by a shell that ignores `ignoring` first when it is given (an
        /// ignored signal stays ignored across `exec`, as a daemon started from such a shell has it).
        static func startDaemon(_ f: DaemonFixture, _ env: [String: String], ignoring: String?) throws -> ChildProcess {
            guard let ignoring else { return try f.startDaemon(at: HooksTests.start, environment: env) }
            return try ChildProcess(
                "/bin/sh", ["-c", "trap '' \(ignoring); exec \"$0\" \"$@\"", DaemonFixture.binary, "daemon", "--data-dir", f.dataDirectory.path],
                environment: fakeTime(env, at: HooksTests.start))
        }

        /// What the daemon has written to its stderr so far.
        var log = ""
        func readLog() -> String {
            guard let fd = process.stderr?.fileDescriptor else { return log }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else { break }
                log += String(decoding: buffer[..<n], as: UTF8.self)
            }
            return log
        }

        func restart() throws {
            process.terminate()
            guard waitUntil({ (try? f.daemonPID()) == nil }) else { throw TestSupportError("the daemon did not stop") }
            process = try Self.startDaemon(f, env, ignoring: ignoring)
            guard waitUntil({ (try? f.daemonPID()) == process.pid }) else { throw TestSupportError("the daemon did not restart") }
        }

        func cli(_ arguments: [String]) throws -> ProcessResult {
            try runProcess(DaemonFixture.binary, arguments, environment: fakeTime(env, at: HooksTests.start))
        }

        @discardableResult
        func cliOK(_ arguments: [String]) throws -> ProcessResult {
            try cli(arguments).requireSuccess("biomatimer \(arguments.joined(separator: " "))")
        }

        /// A hook file with `text`, executable, owned by the user, not writable by others.
        func hook(_ name: String, _ text: String) throws {
            try writeExecutable(text, to: hooks.appendingPathComponent(name))
        }

        /// A hook that appends its payload to `out/EVENT`.
        func loggingHook(_ name: String) throws {
            try hook(name, "#!/bin/sh\ncat >> '\(out.path)'/\"$BIOMATIMER_EVENT\"\n")
        }

        /// The payloads written to `out/NAME`, one JSON object a line.
        func payloads(_ name: String) -> [[String: Any]] {
            guard let text = try? String(contentsOf: out.appendingPathComponent(name), encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }

        /// `hooks --json`, by hook name.
        func listed() throws -> [String: [String: Any]] {
            let r = try cliOK(["hooks", "--json"])
            let rows = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
            return Dictionary(rows.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        }

        /// A method of another interface than Timer1, over the bus.
        func call(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
            let client = try BlockingBus(.address(f.bus.address))
            return try client.call(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: interface, member: member, arguments)
        }
    }

    /// What each event's payload says it is about: its documented fields, exactly.
    static let aboutFields: [String: Set<String>] = [
        "on-start": ["project", "project_name"],
        "on-stop": ["project", "project_name", "session_time"],
        "on-project": ["old", "new"],
        "on-focus-start": ["kind", "phase", "round", "label", "project", "phase_duration", "ends_at"],
        "on-phase-end": ["kind", "phase", "round", "label", "project", "start", "end", "completed", "late", "next"],
        "on-focus-stop": ["kind", "phase", "round", "label", "project", "phase_duration", "ends_at"],
        "on-target-reached": ["day", "target", "worked"],
        "on-budget": ["project", "project_name", "threshold", "budget", "period", "used"],
        "on-task-due": ["id", "title", "project", "due", "late"],
        "on-away": ["reason", "since"],
        "on-back": ["reason", "since", "away_time"],
        "on-merge": ["operations", "devices"],
    ]

    /// Every event, made to happen once, reaches its hook with the documented payload: the
    /// event, its instant, what it is about, and the state `status --json` prints.
    @Test func everyEventsPayloadHasItsDocumentedFields() throws {
        let d = try Daemon()
        for event in Self.aboutFields.keys { try d.loggingHook("\(event).log") }
        func waitFor(_ event: String, count: Int = 1) -> [[String: Any]] {
            _ = waitUntil { d.payloads(event).count >= count }
            return d.payloads(event)
        }

        try d.cliOK(["project", "add", "ACME"])
        try d.cliOK(["project", "start", "ACME"])
        let started = waitFor("on-start")
        #expect((started.first?["about"] as? [String: Any])?["project_name"] as? String == "ACME")
        let project = waitFor("on-project").first?["about"] as? [String: Any]
        #expect((project?["old"] as? [String: Any])?["project"] as? String == "")
        #expect((project?["new"] as? [String: Any])?["project_name"] as? String == "ACME")
        try d.cliOK(["focus", "pomodoro"])
        #expect((waitFor("on-focus-start").first?["about"] as? [String: Any])?["phase"] as? String == "work")
        try d.cliOK(["focus", "skip"])
        let ended = waitFor("on-phase-end").first?["about"] as? [String: Any]
        #expect(ended?["phase"] as? String == "work" && ended?["next"] as? String == "short-break")
        try d.cliOK(["focus", "stop"])
        #expect(waitFor("on-focus-stop").count == 1)
        try d.cliOK(["stop"])
        let stopped = waitFor("on-stop")
        #expect((stopped.first?["about"] as? [String: Any])?["project_name"] as? String == "ACME")
        #expect(waitFor("on-project", count: 2).count == 2)
        // Stopped, nothing moves: the payload's state is what `status --json` prints now.
        let status = try JSONSerialization.jsonObject(with: Data(try d.cliOK(["status", "--json"]).stdout.utf8)) as? [String: Any]
        var state = stopped.first?["state"] as? [String: Any] ?? [:]
        var printed = status ?? [:]
        #expect(Set(state.keys) == Set(printed.keys))
        state["updated_at"] = nil
        printed["updated_at"] = nil
        let canonical = { (object: [String: Any]) in
            String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data(), as: UTF8.self)
        }
        #expect(canonical(state) == canonical(printed))

        // A target of 1 h reached by an edit; ACME's weekly budget of 1 h at 80 % by another.
        try d.cliOK(["target", "set", "1h"])
        _ = try d.f.method("AddInterval", [.int64(Self.at("09:00")), .int64(Self.at("10:30")), .string(""), .vardict([:])])
        let reached = waitFor("on-target-reached").first?["about"] as? [String: Any]
        #expect(reached?["day"] as? String == "2026-11-25" && reached?["target"] as? Int64 == hour)
        _ = try d.f.method("UpdateProject", [.string("ACME"), .vardict(["Budget": .int64(hour), "BudgetPeriod": .string("week")])])
        _ = try d.f.method("AddInterval", [.int64(Self.at("07:00")), .int64(Self.at("07:50")), .string("ACME"), .vardict([:])])
        let budget = waitFor("on-budget").first?["about"] as? [String: Any]
        #expect(budget?["threshold"] as? Int == 80 && budget?["project_name"] as? String == "ACME")
        // A task due a minute ago reminds at once.
        let due = Self.at("12:00") - 60 * microsPerSecond
        _ = try d.call("org.biomatimer.Tasks1", "AddTask", [.string("Call the bank"), .vardict(["Due": .int64(due)])])
        let task = waitFor("on-task-due").first?["about"] as? [String: Any]
        #expect(task?["title"] as? String == "Call the bank" && task?["due"] as? Int64 == due)
        try d.cliOK(["away", "lock"])
        #expect((waitFor("on-away").first?["about"] as? [String: Any])?["reason"] as? String == "lock")
        try d.cliOK(["away", "back"])
        #expect((waitFor("on-back").first?["about"] as? [String: Any])?["reason"] as? String == "lock")

        // A peer's change merged: a second machine sharing a sync folder starts work.
        let folder = try makeTemporaryDirectory("biomatimer-hooks-sync")
        defer { try? FileManager.default.removeItem(at: folder) }
        let peer = try DaemonFixture()
        try d.cliOK(["sync", "enable", folder.path, "--name", "here"])
        try peer.cliOK(["sync", "enable", folder.path, "--name", "peer"])
        try peer.cliOK(["start"])
        let merged = waitFor("on-merge").first?["about"] as? [String: Any]
        #expect((merged?["operations"] as? Int ?? 0) > 0 && (merged?["devices"] as? [String])?.count == 1)

        for (event, fields) in Self.aboutFields {
            let payloads = d.payloads(event)
            #expect(!payloads.isEmpty, "no payload for \(event)")
            for payload in payloads {
                #expect(Set(payload.keys) == ["event", "instant", "about", "state"], "\(event): \(payload.keys)")
                #expect(payload["event"] as? String == event)
                #expect((payload["instant"] as? Int64 ?? 0) >= Self.at("12:00"), "\(event)")
                #expect(Set((payload["about"] as? [String: Any] ?? [:]).keys) == fields, "\(event)")
                let state = payload["state"] as? [String: Any] ?? [:]
                #expect(state["online"] as? Bool == true && state["day"] as? String == "2026-11-25", "\(event)")
            }
        }
    }

    /// One hook's events arrive in the order they happened, one run at a time; a slow hook
    /// delays only its own: a fast hook of the same event is done with four events while the
    /// slow one still holds its first (it waits for a gate), and then the slow one gets all
    /// four, in order.
    @Test func orderIsKeptAndASlowHookDelaysOnlyItself() throws {
        let d = try Daemon()
        let gate = d.out.appendingPathComponent("gate").path
        try d.hook(
            "on-start.a-slow",
            "#!/bin/sh\np=$(cat)\nwhile [ ! -e '\(gate)' ]; do sleep 0.05; done\nprintf '%s\\n' \"$p\" >> '\(d.out.path)'/slow\n")
        try d.hook("on-start.b-fast", "#!/bin/sh\ncat >> '\(d.out.path)'/fast\n")
        for _ in 0..<4 {
            try d.cliOK(["start"])
            try d.cliOK(["stop"])
        }
        #expect(waitUntil { d.payloads("fast").count == 4 })
        #expect(d.payloads("slow").isEmpty)
        #expect(FileManager.default.createFile(atPath: gate, contents: Data()))
        #expect(waitUntil { d.payloads("slow").count == 4 })
        for name in ["slow", "fast"] {
            let instants = d.payloads(name).compactMap { $0["instant"] as? Int64 }
            #expect(instants.count == 4 && instants == instants.sorted() && Set(instants).count == 4, "\(name): \(instants)")
        }
    }

    /// A hook starts a pause after its event (`HooksService.launchPause`), once the command
    /// that made the change has had its answer: never sooner.
    @Test func aHookStartsAPauseAfterItsEvent() throws {
        let d = try Daemon()
        try d.hook("on-start.a", "#!/bin/sh\ncat >> '\(d.out.path)'/a\n")
        try d.cliOK(["start"])
        #expect(waitUntil { d.payloads("a").count == 1 })
        let instant = d.payloads("a").first?["instant"] as? Int64 ?? 0
        // The run is listed once it has ended (its payload is written before that).
        let started = { (try? d.listed())?["on-start.a"]?["last_start"] as? Int64 ?? 0 }
        #expect(waitUntil { started() > 0 })
        let start = started()
        #expect(instant > 0 && start - instant >= Int64(HooksService.launchPause), "started \(start - instant) µs after")
        try d.cliOK(["stop"])
    }

    /// Six hooks of one event run side by side, four at most at once.
    @Test func atMostFourHooksRunAtOnce() throws {
        let d = try Daemon()
        let log = d.out.appendingPathComponent("running").path
        for i in 1...6 { try d.hook("on-start.\(i)", "#!/bin/sh\necho + >> '\(log)'\nsleep 1\necho - >> '\(log)'\n") }
        try d.cliOK(["start"])
        let marks = { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n") }
        #expect(waitUntil { marks().count == 12 })
        var (running, most) = (0, 0)
        for mark in marks() {
            running += mark == "+" ? 1 : -1
            most = max(most, running)
        }
        #expect(most == 4, "\(marks())")
        #expect(waitUntil { (try? d.listed())?.values.filter { $0["last_outcome"] as? String == "ok" }.count == 6 })
    }

    /// A hook that sleeps 60 s is stopped at its limit (SIGTERM to its process group), one that
    /// ignores SIGTERM is killed after it; meanwhile `toggle` is answered at once and the bar
    /// line follows.
    @Test func aHookPastItsLimitIsStoppedWhileTheTimerAnswers() throws {
        let d = try Daemon(config: "hook_timeout = 3s\n")
        try d.hook("on-start.sleep", "#!/bin/sh\nsleep 60 &\necho $! > '\(d.out.path)'/sleep.pid\nwait\n")
        try d.hook("on-start.stubborn", "#!/bin/sh\ntrap '' TERM\necho $$ > '\(d.out.path)'/stubborn.pid\nsleep 60\n")
        let watch = try ChildProcess(DaemonFixture.binary, ["watch", "--format", "waybar"], environment: fakeTime(d.env, at: Self.start))
        defer { watch.terminate() }
        // The watch's first line (stopped) before anything changes; then one line a change.
        let running = "\"class\":[\"running\""
        #expect(watch.readLine()?.contains(running) == false)
        try d.cliOK(["toggle"])
        #expect(watch.readLine()?.contains(running) == true)
        #expect(waitUntil { FileManager.default.fileExists(atPath: d.out.appendingPathComponent("sleep.pid").path) })
        // Both hooks run now; the timer answers without waiting for them, and the bar follows.
        let toggled = Date()
        try d.cliOK(["toggle"])
        #expect(Date().timeIntervalSince(toggled) < 2, "toggle took \(Date().timeIntervalSince(toggled)) s")
        // Running, the watch redraws every second: the stopped line is the first that is not.
        var line = watch.readLine()
        for _ in 0..<10 where line?.contains(running) == true { line = watch.readLine() }
        #expect(line?.contains(running) == false, "\(line ?? "")")

        let listed = { () -> [String: [String: Any]] in (try? d.listed()) ?? [:] }
        #expect(waitUntil(timeout: 15) { listed()["on-start.stubborn"]?["last_outcome"] as? String != nil })
        let sleep = listed()["on-start.sleep"]
        let stubborn = listed()["on-start.stubborn"]
        #expect(sleep?["last_outcome"] as? String == "stopped at the 3 s limit (SIGTERM)", "\(String(describing: sleep))")
        #expect(stubborn?["last_outcome"] as? String == "stopped at the 3 s limit (SIGTERM, then SIGKILL)")
        let duration = stubborn?["last_duration"] as? Int64 ?? 0
        #expect(duration >= 5 * microsPerSecond && duration < 20 * microsPerSecond, "\(duration)")
        #expect(sleep?["last_exit"] is NSNull)
        // Whatever the hooks started went with them.
        for name in ["sleep.pid", "stubborn.pid"] {
            let pid = Int32((try? String(contentsOf: d.out.appendingPathComponent(name), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            #expect(pid > 0 && waitUntil { Self.gone(pid) }, "\(name) \(pid) still runs")
        }
    }

    /// A hook that exits at once but leaves a process behind holding its standard output (a
    /// `sleep 30 &` of its own): its run ends when it exits, not when the output closes. Its
    /// next event, a second later, runs it again at once (not at the end of the run's 30 s
    /// limit), and `hooks` lists both runs as exited 0.
    @Test func aHookThatLeavesAProcessBehindEndsWhenItExits() throws {
        let d = try Daemon(config: "hook_timeout = 30s\n")
        let pids = d.out.appendingPathComponent("left.pids")
        let runs = d.out.appendingPathComponent("runs")
        defer {
            // What the hooks left behind, whatever the outcome.
            let text = (try? String(contentsOf: pids, encoding: .utf8)) ?? ""
            for pid in text.split(separator: "\n").compactMap({ Int32($0) }) where pid > 0 { kill(pid, SIGKILL) }
        }
        // The sleep inherits the hook's standard output and error, the daemon's pipes.
        try d.hook("on-start.leaves", "#!/bin/sh\nsleep 30 &\necho $! >> '\(pids.path)'\necho run >> '\(runs.path)'\nexit 0\n")
        let count = { ((try? String(contentsOf: runs, encoding: .utf8)) ?? "").split(separator: "\n").count }
        let row = { (try? d.listed())?["on-start.leaves"] }
        try d.cliOK(["start"])
        #expect(waitUntil { count() == 1 })
        // Listed as ended, exit 0, long before the 30 s limit.
        #expect(waitUntil(timeout: 10) { row()?["last_outcome"] as? String == "ok" }, "\(String(describing: row()))")
        #expect(row()?["last_exit"] as? Int == 0 && row()?["running_since"] is NSNull)
        try d.cliOK(["stop"])
        Thread.sleep(forTimeInterval: 1)
        try d.cliOK(["start"])
        // Its second event runs it at once; before, it waited for the first run's limit.
        #expect(waitUntil(timeout: 10) { count() == 2 }, "the second run waited for the first one's limit")
        #expect(waitUntil(timeout: 10) { row()?["running_since"] is NSNull && row()?["last_outcome"] as? String == "ok" })
        let listed = try #require(row())
        #expect(listed["last_exit"] as? Int == 0, "\(listed)")
        #expect((listed["last_duration"] as? Int64 ?? .max) < 5 * microsPerSecond, "\(listed)")
        let text = try d.cliOK(["hooks"]).stdout
        #expect(text.contains("on-start.leaves") && !text.contains("limit"), "\(text)")
        // The processes it left are its own business: still there, never signalled.
        let left = ((try? String(contentsOf: pids, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
        #expect(left.count == 2 && left.allSatisfy { !Self.gone($0) }, "\(left)")
    }

    /// A hook starts with no signal blocked and none ignored, though the daemon was started
    /// with SIGINT, SIGQUIT and SIGPIPE ignored (and blocks its termination signals for its
    /// signalfd); so does `rsvg-convert` (here a stand-in on the daemon's PATH), which
    /// `report --pdf` runs from the daemon. Each has `grep` read its `/proc/self/status`.
    @Test func childrenStartWithEverySignalAtItsDefault() throws {
        let standIns = try makeTemporaryDirectory("biomatimer-stand-ins")
        defer { try? FileManager.default.removeItem(at: standIns) }
        let d = try Daemon(ignoring: "INT QUIT PIPE")
        let record = { (name: String) in
            "grep -E '^(SigBlk|SigIgn)' /proc/self/status > '\(d.out.path)/\(name).tmp' && mv '\(d.out.path)/\(name).tmp' '\(d.out.path)/\(name)'"
        }
        // The stand-in writes a file where the PDF goes (the argument after -o).
        try writeExecutable(
            "#!/bin/sh\n\(record("rsvg"))\nwhile [ \"$1\" != -o ]; do shift; done\nprintf '%%PDF-1.4\\n' > \"$2\"\n",
            to: standIns.appendingPathComponent("rsvg-convert"))
        d.env["PATH"] = "\(standIns.path):/usr/bin:/bin"
        try d.restart()
        // The daemon itself has them ignored: what the children show is what Spawn reset.
        let pid = try #require(try d.f.daemonPID())
        let own = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let ignored = own.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }.map { UInt64($0.split(separator: "\t").last ?? "", radix: 16) ?? 0 }
        let bit = { (signal: Int32) in UInt64(1) << UInt64(signal - 1) }
        #expect((ignored ?? 0) & (bit(SIGINT) | bit(SIGQUIT) | bit(SIGPIPE)) == bit(SIGINT) | bit(SIGQUIT) | bit(SIGPIPE), "\(own)")

        try d.hook("on-start.signals", "#!/bin/sh\n\(record("hook"))\n")
        try d.cliOK(["start"])
        let pdf = d.out.appendingPathComponent("report.pdf")
        _ = try d.cli(["report", "--pdf", pdf.path])
        let none = "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
        for name in ["hook", "rsvg"] {
            let file = d.out.appendingPathComponent(name)
            #expect(waitUntil { FileManager.default.fileExists(atPath: file.path) }, "\(name) did not run")
            #expect((try? String(contentsOf: file, encoding: .utf8)) == none, "\(name)")
        }
    }

    /// Gone, or a zombie waiting for whoever inherited it.
    static func gone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    /// A hook that prints 100 MB is cut, and the daemon's memory stays where it was.
    @Test func aHookPrinting100MBIsCutAndMemoryStaysBounded() throws {
        let d = try Daemon()
        try d.hook("on-start.flood", "#!/bin/sh\nhead -c 100000000 /dev/zero\nhead -c 100000000 /dev/zero >&2\n")
        let pid = try #require(try d.f.daemonPID())
        try d.cliOK(["status"])
        let idle = try MemoryTests.privateDirty(pid)
        try d.cliOK(["start"])
        #expect(waitUntil(timeout: 20) { (try? d.listed())?["on-start.flood"]?["last_outcome"] is String })
        let row = try d.listed()["on-start.flood"]
        #expect((row?["last_outcome"] as? String)?.hasPrefix("cut: it printed more than 1024 KiB") == true, "\(String(describing: row))")
        let after = try MemoryTests.privateDirty(pid)
        #expect(after < idle + 64 * 1024, "private dirty memory \(idle) kB idle, \(after) kB after")
        // The timer was never held.
        #expect(try d.f.properties()["Running"] == .boolean(true))
    }

    /// A hook writable by others or not the user's is skipped with a message; a failing hook is logged with its
    /// stderr and listed with its exit; `hooks` lists the last runs; a restart of the daemon
    /// keeps the hooks (the folder is the configuration) and runs them again.
    @Test func unsafeAndFailingHooksAreShownAndARestartKeepsTheHooks() throws {
        let d = try Daemon()
        try d.loggingHook("on-start.log")
        try d.hook("on-start.fails", "#!/bin/sh\necho first >&2\necho 'it went wrong' >&2\nexit 3\n")
        // A NUL and a byte that is not UTF-8 in its stderr: shown as U+FFFD (no D-Bus string holds them).
        try d.hook("on-stop.binary", "#!/bin/sh\nprintf 'a\\000b\\377c\\n' >&2\nexit 1\n")
        try d.loggingHook("on-start.open")
        chmod(d.hooks.appendingPathComponent("on-start.open").path, 0o777)
        // Someone else's file: as root (CI), one given to nobody; otherwise a link to /bin/true.
        let foreign = d.hooks.appendingPathComponent("on-start.foreign").path
        if geteuid() == 0 {
            try d.loggingHook("on-start.foreign")
            #expect(chown(foreign, 65534, 65534) == 0)
        } else {
            #expect(symlink("/bin/true", foreign) == 0)
        }
        try writeExecutable("#!/bin/sh\n", to: d.hooks.appendingPathComponent("on-stop.plain"))
        chmod(d.hooks.appendingPathComponent("on-stop.plain").path, 0o644)
        #expect(try d.cliOK(["hooks"]).stdout.contains("on-start.log"))
        try d.cliOK(["start"])
        try d.cliOK(["stop"])
        #expect(waitUntil { (try? d.listed())?.values.filter { $0["last_outcome"] is String }.count == 6 })
        let rows = try d.listed()
        #expect(rows["on-start.log"]?["last_outcome"] as? String == "ok" && rows["on-start.log"]?["last_exit"] as? Int == 0)
        #expect(rows["on-start.fails"]?["last_exit"] as? Int == 3 && rows["on-start.fails"]?["last_stderr"] as? String == "first\nit went wrong")
        #expect(rows["on-start.open"]?["problem"] as? String == "writable by others")
        #expect(rows["on-start.open"]?["last_outcome"] as? String == "skipped: writable by others")
        #expect(rows["on-start.foreign"]?["last_outcome"] as? String == "skipped: not owned by you")
        // A file without its execute bit is listed and skipped as such, never started.
        let plain = "not executable: chmod +x \(d.hooks.path)/on-stop.plain to run it"
        #expect(rows["on-stop.plain"]?["problem"] as? String == plain)
        #expect(rows["on-stop.plain"]?["last_outcome"] as? String == "skipped: \(plain)")
        #expect(rows["on-stop.plain"]?["event"] as? String == "on-stop")
        #expect(rows["on-stop.binary"]?["last_stderr"] as? String == "a\u{FFFD}b\u{FFFD}c" && rows["on-stop.binary"]?["last_exit"] as? Int == 1)
        let text = try d.cliOK(["hooks"]).stdout
        #expect(text.contains("on-start.fails") && text.contains("exit 3") && text.contains("    it went wrong"), "\(text)")
        #expect(text.contains("skipped: writable by others"))
        // The skipped hook never ran; the daemon said why, and logged the failure's stderr.
        #expect(d.payloads("on-start").count == 1)
        let log = d.readLog()
        #expect(log.contains("hook on-start.open skipped: writable by others"), "\(log)")
        #expect(log.contains("hook on-stop.plain skipped: \(plain)") && !log.contains("\(plain) (only"), "\(log)")
        #expect(log.contains("hook on-start.fails failed on on-start: exit 3") && log.contains("it went wrong"), "\(log)")

        // `hooks run` tries them by hand with a sample payload.
        let run = try d.cliOK(["hooks", "run", "on-start"])
        #expect(run.stdout.contains("running on-start.log"))
        #expect(waitUntil { d.payloads("on-start").count == 2 })
        #expect(d.payloads("on-start").last?["sample"] as? Bool == true)
        #expect(try d.cli(["hooks", "run", "on-nothing"]).status == 2)

        try d.restart()
        try d.cliOK(["start"])
        #expect(waitUntil { d.payloads("on-start").count == 3 })
        // Run since the restart (the last runs are the new daemon's).
        #expect(waitUntil { (try? d.listed())?["on-start.log"]?["last_outcome"] as? String == "ok" })
    }

    /// `hooks` names the folder the daemon reads, `$XDG_CONFIG_HOME/biomatimer/hooks` (not
    /// `~/.config/…`), also as `Hooks1.Folder`; lists a file without its execute bit as such;
    /// and shows a hook running now as running, then its run once it has ended.
    @Test func theListingNamesItsFolderAndShowsWhatRunsAndWhatCannot() throws {
        let d = try Daemon()
        let folder = d.hooks.path
        #expect(!folder.hasPrefix(NSHomeDirectory()) && folder.hasSuffix("/config/biomatimer/hooks"))
        #expect(try d.cliOK(["hooks"]).stdout == "No hooks. Put executables named after an event (on-start.NAME, …) in \(folder)/.\n")
        #expect(
            try d.call("org.freedesktop.DBus.Properties", "Get", [.string("org.biomatimer.Hooks1"), .string("Folder")])
                == [.variant(.string(folder))])

        /// The line `hooks` prints for `name`.
        func line(_ name: String) throws -> String {
            try d.cliOK(["hooks"]).stdout.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map(String.init) ?? ""
        }
        try writeExecutable("#!/bin/sh\n", to: d.hooks.appendingPathComponent("on-stop.notes"))
        chmod(d.hooks.appendingPathComponent("on-stop.notes").path, 0o644)
        let gate = d.out.appendingPathComponent("gate").path
        defer { _ = FileManager.default.createFile(atPath: gate, contents: Data()) }
        try d.hook("on-start.slow", "#!/bin/sh\ncat > /dev/null\nwhile [ ! -e '\(gate)' ]; do sleep 0.05; done\n")
        let notExecutable = "not executable: chmod +x \(folder)/on-stop.notes to run it"
        var rows = try d.listed()
        #expect(rows["on-stop.notes"]?["problem"] as? String == notExecutable && rows["on-stop.notes"]?["last_start"] is NSNull)
        #expect(rows["on-start.slow"]?["problem"] is NSNull && rows["on-start.slow"]?["running_since"] is NSNull)
        #expect(try d.cliOK(["hooks"]).stdout.hasPrefix("Folder: \(folder)\n"))
        #expect(try line("on-stop.notes").hasSuffix(" on-stop            skipped: \(notExecutable)"))
        #expect(try line("on-start.slow").hasSuffix(" not run yet"))

        // Started, and still waiting for its gate: running, not "not run yet".
        try d.cliOK(["start"])
        let since = { (try? d.listed())?["on-start.slow"]?["running_since"] as? Int64 ?? 0 }
        #expect(waitUntil { since() > 0 })
        let started = since()
        let running = try line("on-start.slow")
        #expect(running.contains(" on-start           running since "), "\(running)")
        #expect(try d.listed()["on-start.slow"]?["last_start"] is NSNull)
        // The file that is not executable is skipped at its event, and says why.
        try d.cliOK(["stop"])
        #expect(waitUntil { (try? d.listed())?["on-stop.notes"]?["last_outcome"] as? String == "skipped: \(notExecutable)" })
        #expect(try line("on-start.slow").contains("running since "), "still running")

        // Its gate opened, it ends: its run is listed, no longer running.
        #expect(FileManager.default.createFile(atPath: gate, contents: Data()))
        #expect(waitUntil { (try? d.listed())?["on-start.slow"]?["last_outcome"] as? String == "ok" })
        rows = try d.listed()
        #expect(rows["on-start.slow"]?["running_since"] is NSNull && rows["on-start.slow"]?["last_start"] as? Int64 == started)
        let ended = try line("on-start.slow")
        #expect(ended.contains(", ok, ") && !ended.contains("running"), "\(ended)")
    }

    /// The shipped examples, installed as their comments say, with stand-ins for makoctl,
    /// dunstctl and gsettings on the daemon's PATH: do not disturb when a focus phase starts,
    /// back when it ends; the log keeps each payload.
    @Test func theShippedExamplesSwitchDoNotDisturbAndLog() throws {
        let standIns = try makeTemporaryDirectory("biomatimer-stand-ins")
        defer { try? FileManager.default.removeItem(at: standIns) }
        for program in ["makoctl", "dunstctl", "gsettings"] {
            try writeExecutable(
                "#!/bin/sh\necho \"${0##*/} $*\" >> '\(standIns.path)/calls'\n", to: standIns.appendingPathComponent(program))
        }
        let d = try Daemon()
        d.env["PATH"] = "\(standIns.path):/usr/bin:/bin"
        d.env["XDG_STATE_HOME"] = d.out.path
        try d.restart()
        let examples = repositoryRoot.appendingPathComponent("examples/hooks")
        for script in ["dnd-mako", "dnd-dunst", "dnd-gnome"] {
            for event in ["on-focus-start", "on-phase-end", "on-focus-stop"] {
                try FileManager.default.copyItem(
                    at: examples.appendingPathComponent(script), to: d.hooks.appendingPathComponent("\(event).\(script)"))
            }
        }
        try FileManager.default.createSymbolicLink(
            at: d.hooks.appendingPathComponent("on-focus-start.log"), withDestinationURL: examples.appendingPathComponent("log-events"))
        let calls = { (try? String(contentsOf: standIns.appendingPathComponent("calls"), encoding: .utf8))?.split(separator: "\n") ?? [] }
        try d.cliOK(["focus", "pomodoro"])
        #expect(waitUntil { calls().count == 3 })
        #expect(Set(calls().map(String.init)) == [
            "makoctl mode -a do-not-disturb", "dunstctl set-paused true",
            "gsettings set org.gnome.desktop.notifications show-banners false",
        ])
        try d.cliOK(["focus", "skip"])
        #expect(waitUntil { calls().count == 6 })
        #expect(Set(calls().suffix(3).map(String.init)) == [
            "makoctl mode -r do-not-disturb", "dunstctl set-paused false",
            "gsettings set org.gnome.desktop.notifications show-banners true",
        ])
        let logFile = d.out.appendingPathComponent("biomatimer/events.jsonl")
        let logged = { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
        #expect(waitUntil { logged().hasSuffix("\n") })
        #expect(logged().hasPrefix("{\"event\":\"on-focus-start\""), "\(logged())")
        #expect(try d.listed().values.compactMap { $0["last_outcome"] as? String }.filter { $0 != "ok" } == [])
    }
}
