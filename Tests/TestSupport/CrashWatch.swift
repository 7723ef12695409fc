import Foundation
import Testing

/// The daemons, trays and tools the suite starts are watched for crashes and for stray closes,
/// and either one fails the test that started them: a process that dies of SIGSEGV, SIGABRT,
/// SIGILL, SIGTRAP, SIGBUS or SIGFPE, or that closes a descriptor number it does not own
/// (`close` failing with EBADF: a close twice, which in a process with more than one part can
/// close another part's descriptor). Processes the suite spawns itself are checked when they
/// are reaped (`ChildProcess`); a daemon a private bus activates runs under
/// `Tests/harness/crash/crash-watch.sh`, and its bus is checked when it stops (`PrivateBus`).
/// The close check is `Tests/harness/crash/closecheck.c`, preloaded, built once per run.
public enum CrashWatch {
    /// Exit statuses (128 + signal) that mean a crash, not a signal a test sent.
    static let crashStatuses: Set<Int32> = [128 + SIGILL, 128 + SIGTRAP, 128 + SIGABRT, 128 + SIGBUS, 128 + SIGFPE, 128 + SIGSEGV]

    /// The preloadable close checker, compiled for this run; nil when no C compiler is found
    /// (then only crashes are watched, and the first check says so).
    public static let closeCheck: String? = {
        let source = repositoryRoot.appendingPathComponent("Tests/harness/crash/closecheck.c").path
        guard let directory = try? makeTemporaryDirectory("biomatimer-closecheck") else { return nil }
        let library = directory.appendingPathComponent("closecheck.so").path
        for compiler in ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang", "/opt/swift/usr/bin/clang"]
        where FileManager.default.isExecutableFile(atPath: compiler) {
            let made = try? ChildProcess.spawnUnwatched(compiler, ["-shared", "-fPIC", "-O1", "-o", library, source])
            if made == 0 { return library }
        }
        return nil
    }()

    /// Where processes the suite spawns write their stray closes.
    static let closeLog: URL = {
        let directory = (try? makeTemporaryDirectory("biomatimer-crashwatch")) ?? FileManager.default.temporaryDirectory
        return directory.appendingPathComponent("closes")
    }()

    static let wrapper = repositoryRoot.appendingPathComponent("Tests/harness/crash/crash-watch.sh").path

    /// A bus service's command line run under the wrapper, which writes crashes to `log` and
    /// stray closes to `log`.close.
    public static func wrap(_ exec: String, log: URL) -> String {
        "/bin/sh \(wrapper) \(log.path) \(closeCheck ?? "-") \(exec)"
    }

    /// The environment a watched process gets: the close checker preloaded (after any library
    /// already preloaded, such as libfaketime), its findings written to `log`.
    public static func environment(_ environment: [String: String], log: URL? = nil) -> [String: String] {
        guard let closeCheck else { return environment }
        var changed = environment
        changed["LD_PRELOAD"] = environment["LD_PRELOAD"].map { $0 + ":" + closeCheck } ?? closeCheck
        changed["BIOMATIMER_CLOSE_LOG"] = (log ?? closeLog).path
        return changed
    }

    /// Records a failure for a process of the suite's that crashed or closed what it did not own.
    static func check(pid: pid_t, executable: String, status: Int32) {
        if crashStatuses.contains(status) {
            Issue.record("\(executable) (pid \(pid)) crashed: it died of signal \(status - 128)")
        }
        let closes = strayCloses(in: closeLog, pid: pid)
        if !closes.isEmpty { Issue.record("\(executable) (pid \(pid)) closed a descriptor it did not own:\n\(closes)") }
    }

    /// Records a failure for each crash or stray close a bus's wrapped services wrote to `log`.
    public static func check(busLog log: URL) {
        if let crashes = try? String(contentsOf: log, encoding: .utf8), !crashes.isEmpty {
            Issue.record("a daemon this test's bus started crashed:\n\(crashes)")
        }
        let closes = strayCloses(in: URL(fileURLWithPath: log.path + ".close"), pid: nil)
        if !closes.isEmpty { Issue.record("a daemon this test's bus started closed a descriptor it did not own:\n\(closes)") }
    }

    /// The entries of a close log, those of `pid` only when given (each entry is its first
    /// line, `pid N: …`, and the backtrace lines after it).
    static func strayCloses(in log: URL, pid: pid_t?) -> String {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return "" }
        var kept: [Substring] = []
        var keeping = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("pid ") { keeping = pid.map { line.hasPrefix("pid \($0):") } ?? true }
            if keeping { kept.append(line) }
        }
        return kept.joined(separator: "\n")
    }
}
