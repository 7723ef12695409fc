import BiomaDaemon
import DBusCore
import BiomaContract
import Foundation
import Testing

import TestSupport

/// Nothing a caller does stops the clock: the files a command reads (`import -`, `import
/// FILE`) are read through the daemon's event loop, so while one caller's input is pending —
/// a pipe that never ends, one that is slow, a terminal left alone — every other caller is
/// answered, the daemon's memory stays put, and what cannot be read (a device, a socket) is
/// refused at once. A caller that leaves takes its command with it; SIGTERM is honoured.
@Suite(.ownThreadLong, .timeLimit(.minutes(3)))
struct CallerInputTests {
    static let header = "project,color,start,end,duration\n"
    static let row = "Client A,#007AFF,2026-01-07T09:00:00Z,2026-01-07T10:00:00Z,1:00:00\n"

    /// `biomatimer import -` reading a pipe this test holds the write end of.
    static func pendingImport(_ f: DaemonFixture) throws -> ChildProcess {
        try ChildProcess(DaemonFixture.binary, ["import", "-"], environment: f.environment, pipeInput: true)
    }

    /// Waits until the daemon holds the pipe `child` reads (the front's second `Run`, with the
    /// descriptor, has reached it): then its input is pending in the daemon.
    static func waitUntilDaemonHolds(_ child: ChildProcess, daemon pid: pid_t) throws {
        let end = Date().addingTimeInterval(30)
        while Date() < end {
            if try holds(pid, pipeOf: child) { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestSupportError("the daemon never took the caller's pipe")
    }

    /// Whether process `pid` has a descriptor open on the pipe `child` reads.
    static func holds(_ pid: pid_t, pipeOf child: ChildProcess) throws -> Bool {
        var info = stat()
        guard let stdin = child.stdin, fstat(stdin.fileDescriptor, &info) == 0 else { throw TestSupportError("no pipe") }
        let wanted = "pipe:[\(info.st_ino)]"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")) == wanted }
    }

    /// Seconds another client's `GetAll` takes to be answered.
    static func answerTime(_ f: DaemonFixture) throws -> TimeInterval {
        let start = Date()
        _ = try f.properties()
        return Date().timeIntervalSince(start)
    }

    /// What the front printed and its exit code, once it has ended.
    static func finished(_ child: ChildProcess) -> (status: Int32, out: String, err: String) {
        let status = child.wait()
        let out = String(decoding: child.stdout?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let err = String(decoding: child.stderr?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        return (status, out, err)
    }

    func daemon(_ f: DaemonFixture) throws -> pid_t {
        _ = try f.properties()  // activation starts it
        return try #require(try f.daemonPID())
    }

    /// A pipe that never ends: others are answered at once, a toggle works, memory stays put,
    /// and after the input's silence limit the import ends with the reason, nothing changed.
    @Test func aPipeThatNeverEndsHoldsNobody() throws {
        let f = try DaemonFixture(extraDaemonArguments: "--input-timeout 3s")
        let pid = try daemon(f)
        let before = try f.durableState()
        let idle = try MemoryTests.privateDirty(pid)
        let front = try Self.pendingImport(f)
        defer { front.terminate() }
        try Self.waitUntilDaemonHolds(front, daemon: pid)
        #expect(try Self.answerTime(f) < 1)
        try f.cliOK(["toggle"])
        try f.cliOK(["toggle"])
        #expect(try MemoryTests.privateDirty(pid) < idle + 64 * 1024)
        let after = try f.durableState()
        let result = Self.finished(front)
        #expect(result.status == 1)
        #expect(result.err == "biomatimer: cannot read standard input: no data for 3 s\n")
        // The toggles made meanwhile are there; the import added nothing.
        #expect(try f.durableState() == after)
        #expect(after != before)
        let log = try f.cliOK(["log", "--date", "2026-01-07"])
        #expect(log.stdout.hasPrefix("No recorded time"), "\(log.stdout)")
    }

    /// A slow pipe: the command completes at its end, with every line, and others are answered
    /// while it trickles in.
    @Test func aSlowPipeIsReadAsItComes() throws {
        let f = try DaemonFixture(extraDaemonArguments: "--input-timeout 10s")
        let pid = try daemon(f)
        let front = try Self.pendingImport(f)
        defer { front.terminate() }
        let stdin = try #require(front.stdin)
        stdin.write(Data(Self.header.utf8))
        try Self.waitUntilDaemonHolds(front, daemon: pid)
        #expect(try Self.answerTime(f) < 1)
        stdin.write(Data(Self.row.prefix(20).utf8))
        #expect(try Self.answerTime(f) < 1)
        try f.cliOK(["toggle"])
        stdin.write(Data(Self.row.dropFirst(20).utf8))
        try stdin.close()
        let result = Self.finished(front)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == "Imported 1 interval.\n")
        let log = try f.cliOK(["log", "--date", "2026-01-07"])
        #expect(log.stdout.contains("Client A") && log.stdout.contains("1:00:00"), "\(log.stdout)")
    }

    /// What is neither a file, a pipe nor a terminal is refused at once, naming it: a device
    /// that never ends (`/dev/zero`), a socket as standard input. Nothing is read into memory.
    @Test func devicesAndSocketsAreRefusedAtOnce() throws {
        let f = try DaemonFixture()
        let pid = try daemon(f)
        let before = try f.durableState()
        let idle = try MemoryTests.privateDirty(pid)
        let zero = try f.cli(["import", "/dev/zero"])
        #expect(zero.status == 1)
        #expect(
            zero.stderr == "biomatimer: cannot read /dev/zero: it is a character device (/dev/zero), not a file, a pipe or a terminal.\n")
        // python3's socketpair as the front's standard input, the other end held open and silent.
        let script = """
            import socket, subprocess, sys
            a, b = socket.socketpair()
            p = subprocess.run([sys.argv[1], "import", "-"], stdin=a, capture_output=True, text=True)
            print(p.returncode); print(p.stderr, end="")
            """
        let socket = try runProcess("/usr/bin/python3", ["-c", script, DaemonFixture.binary], environment: f.environment)
        #expect(socket.stdout == "1\nbiomatimer: cannot read standard input: it is a socket, not a file, a pipe or a terminal\n", "\(socket.stderr)")
        #expect(try MemoryTests.privateDirty(pid) < idle + 64 * 1024)
        #expect(try f.durableState() == before)
    }

    /// A pipe of endless binary (`cat /dev/zero | biomatimer import -`): the first chunk shows
    /// it is no text, so the daemon stops reading there and the import is refused as a binary
    /// file is, instead of after 128 MiB kept in memory.
    @Test func endlessBinaryThroughAPipeIsRefusedAtItsFirstChunk() throws {
        let f = try DaemonFixture()
        let pid = try daemon(f)
        let before = try f.durableState()
        let idle = try MemoryTests.privateDirty(pid)
        let r = try runProcess("/bin/sh", ["-c", "cat /dev/zero | '\(DaemonFixture.binary)' import -"], environment: f.environment)
        #expect(r.status == 1)
        #expect(r.stderr == "biomatimer: - is not UTF-8 text.\n")
        #expect(try MemoryTests.privateDirty(pid) < idle + 64 * 1024)
        #expect(try f.durableState() == before)
    }

    /// A caller that leaves while its input is pending (the front killed) takes its command
    /// with it: the input that arrives afterwards, complete, is not imported.
    @Test func aCallerThatLeavesTakesItsCommandWithIt() throws {
        let f = try DaemonFixture()
        let pid = try daemon(f)
        let front = try Self.pendingImport(f)
        let stdin = try #require(front.stdin)
        stdin.write(Data((Self.header + Self.row).utf8))
        try Self.waitUntilDaemonHolds(front, daemon: pid)
        let client = try BlockingBus(.address(f.bus.address))
        let name = try #require(try Self.uniqueName(of: front.pid, on: client))
        front.signal(SIGKILL)
        front.wait()
        // Once the bus has dropped the name, it has sent the daemon NameOwnerChanged, which the
        // daemon reads before the next call this test makes.
        let end = Date().addingTimeInterval(30)
        while try Self.names(client).contains(name), Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        _ = try f.properties()
        // The command is gone, and with it the daemon's copy of the pipe.
        #expect(try !Self.holds(pid, pipeOf: front))
        try stdin.close()
        // Had the command still waited, the end of its input would import the row now.
        Thread.sleep(forTimeInterval: 1)
        let log = try f.cliOK(["log", "--date", "2026-01-07"])
        #expect(log.stdout.hasPrefix("No recorded time"), "\(log.stdout)")
    }

    /// Each caller's times are read in its own zone, even while another caller's command waits
    /// for its input: the waiting command's zone (Kiritimati, UTC+14) does not leak into a
    /// command run meanwhile for a caller in UTC, nor the other way round.
    @Test func eachCallerKeepsItsZoneWhileAnotherWaits() throws {
        let f = try DaemonFixture()
        let pid = try daemon(f)
        var kiritimati = f.environment
        kiritimati["TZ"] = "Pacific/Kiritimati"
        var utc = f.environment
        utc["TZ"] = "UTC"
        let front = try ChildProcess(DaemonFixture.binary, ["import", "-"], environment: kiritimati, pipeInput: true)
        defer { front.terminate() }
        let stdin = try #require(front.stdin)
        stdin.write(Data(Self.header.utf8))
        try Self.waitUntilDaemonHolds(front, daemon: pid)
        try f.cliOK(["add", "09:00-10:00", "--date", "2026-01-08"], environment: utc)
        try f.cliOK(["add", "09:00-10:00", "--date", "2026-01-10"], environment: kiritimati)
        stdin.write(Data(Self.row.utf8))
        try stdin.close()
        #expect(Self.finished(front).status == 0)
        let rows = IntervalListing.rows(try f.method("ListIntervals", [.string("2026-01-01"), .string("2026-01-31")]).first)
        let starts = Set(rows.map(\.start))
        #expect(starts.contains(t("2026-01-08T09:00:00Z")), "\(rows)")
        #expect(starts.contains(t("2026-01-09T19:00:00Z")), "\(rows)")  // 09:00 on the 10th in Kiritimati
        #expect(starts.contains(t("2026-01-07T09:00:00Z")), "\(rows)")  // the import's row
        #expect(rows.count == 3)
    }

    /// SIGTERM ends the daemon while a caller's input is pending, as at any other time.
    @Test func sigtermIsHonouredWhileInputIsPending() throws {
        let f = try DaemonFixture(activation: false)
        let daemon = try f.startDaemon(environment: f.environment)
        defer { daemon.terminate() }
        let end = Date().addingTimeInterval(30)
        while try f.daemonPID() != daemon.pid, Date() < end { Thread.sleep(forTimeInterval: 0.05) }
        try f.cliOK(["toggle"])
        let front = try Self.pendingImport(f)
        defer { front.terminate() }
        try Self.waitUntilDaemonHolds(front, daemon: daemon.pid)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit(timeout: 5))
        #expect(daemon.wait() == 0)
        // The front is told the daemon went away.
        let result = Self.finished(front)
        #expect(result.status != 0)
    }

    static func names(_ client: BlockingBus) throws -> [String] {
        try client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames", []
        ).first?.array?.compactMap(\.string) ?? []
    }

    /// The unique bus name of the connection process `pid` holds.
    static func uniqueName(of pid: pid_t, on client: BlockingBus) throws -> String? {
        let end = Date().addingTimeInterval(30)
        while Date() < end {
            for name in try names(client) where name.hasPrefix(":") {
                let reply = try? client.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                    member: "GetConnectionUnixProcessID", [.string(name)])
                if reply?.first?.int64 == Int64(pid) { return name }
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return nil
    }
}
