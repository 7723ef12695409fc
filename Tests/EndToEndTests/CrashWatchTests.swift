import Foundation
import Testing

import TestSupport

/// The suite's own watch on crashes and stray closes (`CrashWatch`) sees what it is for: a
/// process that dies of SIGSEGV under the bus wrapper, and a close of a descriptor already
/// closed, each become a failure of the test.
@Suite(.ownThread, .timeLimit(.minutes(1)))
struct CrashWatchTests {
    @Test func aCrashUnderTheWrapperFailsTheTest() throws {
        let directory = try makeTemporaryDirectory("biomatimer-crashwatch-test")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("crashes")
        let command = CrashWatch.wrap("/bin/sh -c 'kill -SEGV $$'", log: log)
        let run = try runProcess("/bin/sh", ["-c", command])
        #expect(run.status == 139)
        let written = try String(contentsOf: log, encoding: .utf8)
        #expect(written.contains("died of signal 11"), "\(written)")
        withKnownIssue { CrashWatch.check(busLog: log) }
        // A clean exit and SIGTERM, which tests send on purpose, are no crash.
        try FileManager.default.removeItem(at: log)
        _ = try runProcess("/bin/sh", ["-c", CrashWatch.wrap("/bin/true", log: log)])
        _ = try runProcess("/bin/sh", ["-c", CrashWatch.wrap("/bin/sh -c 'kill -TERM $$'", log: log)])
        #expect(!FileManager.default.fileExists(atPath: log.path))
    }

    /// The daemon a fixture's bus activates runs under the watch: the close check is loaded
    /// in it, writing where its bus is checked.
    @Test func theActivatedDaemonIsWatched() throws {
        let check = try #require(CrashWatch.closeCheck, "no C compiler to build the close check")
        let f = try DaemonFixture()
        _ = try f.properties()
        let pid = try #require(try f.daemonPID())
        // Read to its end: /proc files give their size as 0, and one read of them is a page.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        try handle.close()
        #expect(maps.contains(check))
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(variables.contains("BIOMATIMER_CLOSE_LOG=\(f.bus.crashLog.path).close"), "\(variables)")
    }

    @Test func aDescriptorClosedTwiceIsFound() throws {
        _ = try #require(CrashWatch.closeCheck, "no C compiler to build the close check")
        let directory = try makeTemporaryDirectory("biomatimer-crashwatch-test")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("crashes")
        let script = "import os\nfd = os.open('/dev/null', os.O_RDONLY)\nos.close(fd)\ntry:\n    os.close(fd)\nexcept OSError:\n    pass\n"
        let environment = CrashWatch.environment(ProcessInfo.processInfo.environment, log: URL(fileURLWithPath: log.path + ".close"))
        let run = try runProcess("/usr/bin/python3", ["-c", script], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let written = try String(contentsOf: URL(fileURLWithPath: log.path + ".close"), encoding: .utf8)
        #expect(written.contains("failed with EBADF"), "\(written)")
        withKnownIssue { CrashWatch.check(busLog: log) }
        // One close each: nothing written.
        try FileManager.default.removeItem(at: URL(fileURLWithPath: log.path + ".close"))
        _ = try runProcess("/usr/bin/python3", ["-c", "import os\nos.close(os.open('/dev/null', os.O_RDONLY))\n"], environment: environment)
        #expect(!FileManager.default.fileExists(atPath: log.path + ".close"))
    }
}
