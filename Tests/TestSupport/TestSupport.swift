import CSystem
import Foundation

/// The repository's top folder, found from this file's place in it.
public let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The folder holding the built products (`biomatimer`, the test bundle): `.build*/debug`, or
/// `.build-tests/release` under `make test`.
public let productsDirectory: URL = {
    // The test runner is `…/debug/<package>PackageTests.xctest` (a file on Linux); the
    // executables sit next to it.
    for argument in CommandLine.arguments {
        let url = URL(fileURLWithPath: argument)
        if url.pathExtension == "xctest" { return url.deletingLastPathComponent() }
    }
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    return executable.deletingLastPathComponent()
}()

/// A fresh temporary folder, removed by `removeTemporaryDirectory` or left for inspection.
public func makeTemporaryDirectory(_ label: String = "biomatimer-test") throws -> URL {
    let template = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-XXXXXX").path
    var bytes = Array(template.utf8CString)
    guard let made = mkdtemp(&bytes) else { throw TestSupportError("mkdtemp failed for \(template)") }
    return URL(fileURLWithPath: String(cString: made))
}

public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A child process started with posix_spawn and reaped with waitpid. Foundation's `Process`
/// can hang in `waitUntilExit` off the main thread on Linux, so tests use this instead.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    /// The read ends of the child's stdout and stderr (nil when not captured).
    public let stdout: FileHandle?
    public let stderr: FileHandle?
    /// The write end of the child's stdin (nil when not piped).
    public let stdin: FileHandle?
    private let lock = NSLock()
    private var exitStatus: Int32? {
        didSet {
            // Reaped: a product of this package that crashed or closed a stray descriptor fails the test.
            if let exitStatus, oldValue == nil, let watched { CrashWatch.check(pid: pid, executable: watched, status: exitStatus) }
        }
    }
    /// The executable, when it is one of this package's products (watched by `CrashWatch`).
    private let watched: String?

    /// `captureOutput`: pipe stdout and stderr to this process; otherwise they go to /dev/null.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        captureOutput: Bool = true, pipeInput: Bool = false
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        var inPipe: [Int32] = [-1, -1]
        // Every pipe is close-on-exec: tests run in parallel, and a child another test spawns
        // meanwhile would otherwise inherit these ends and keep the pipes open (a reader
        // waiting for an end of file that never comes). dup2 makes the child's 0, 1 and 2.
        if captureOutput {
            guard csystem_pipe_cloexec(&outPipe) == 0, csystem_pipe_cloexec(&errPipe) == 0 else { throw TestSupportError("pipe failed") }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            posix_spawn_file_actions_addclose(&actions, outPipe[0])
            posix_spawn_file_actions_addclose(&actions, errPipe[0])
            // Only 1 and 2 write to the pipes: a copy left open would keep them open in whatever
            // the child leaves running (a harness's background server), and the reader waiting.
            for end in [outPipe[1], errPipe[1]] where end > 2 { posix_spawn_file_actions_addclose(&actions, end) }
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        if pipeInput {
            guard csystem_pipe_cloexec(&inPipe) == 0 else { throw TestSupportError("pipe failed") }
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
            posix_spawn_file_actions_addclose(&actions, inPipe[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        let isProduct = executable.hasPrefix(productsDirectory.path + "/")
        watched = isProduct ? URL(fileURLWithPath: executable).lastPathComponent : nil
        let given = environment ?? ProcessInfo.processInfo.environment
        let env = (isProduct ? CrashWatch.environment(given) : given).map { "\($0.key)=\($0.value)" }
        let argv = [executable] + arguments
        var cArgv = argv.map { strdup($0) } + [nil]
        var cEnv = env.map { strdup($0) } + [nil]
        defer {
            cArgv.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        // Worker threads block most signals and a spawned child inherits that mask: reset it,
        // or the child would ignore SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, &cArgv, &cEnv)
        for fd in [outPipe[1], errPipe[1], inPipe[0]] where fd >= 0 { close(fd) }
        guard rc == 0 else {
            for fd in [outPipe[0], errPipe[0], inPipe[1]] where fd >= 0 { close(fd) }
            throw TestSupportError("cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdout = captureOutput ? FileHandle(fileDescriptor: outPipe[0], closeOnDealloc: true) : nil
        stderr = captureOutput ? FileHandle(fileDescriptor: errPipe[0], closeOnDealloc: true) : nil
        stdin = pipeInput ? FileHandle(fileDescriptor: inPipe[1], closeOnDealloc: true) : nil
    }

    /// Runs `executable` to its end with no output and no crash watch; its exit status.
    static func spawnUnwatched(_ executable: String, _ arguments: [String]) throws -> Int32 {
        try ChildProcess(executable, arguments, captureOutput: false).wait()
    }

    /// Reads stdout up to and including the next newline (nil at end of file).
    public func readLine() -> String? {
        guard let stdout else { return nil }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(stdout.fileDescriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Sends a signal (SIGTERM by default).
    public func signal(_ sig: Int32 = SIGTERM) {
        if status == nil { kill(pid, sig) }
    }

    /// Waits for the child to end and returns its exit status (128+n for signal n).
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let code = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        exitStatus = code
        return code
    }

    /// The exit status if the child has ended, without waiting.
    public var status: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
        exitStatus = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        return exitStatus
    }

    /// Stops the child: SIGTERM, then SIGKILL if it has not ended after `grace` seconds.
    public func terminate(grace: TimeInterval = 3) {
        guard status == nil else { return }
        kill(pid, SIGTERM)
        if !waitForExit(timeout: grace) {
            kill(pid, SIGKILL)
            wait()
        }
    }

    /// Waits for the child to end, at most `timeout` seconds (a thread blocks in waitpid for
    /// it): true if it ended.
    @discardableResult
    public func waitForExit(timeout: TimeInterval) -> Bool {
        if status != nil { return true }
        let ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            wait()
            ended.signal()
        }
        return ended.wait(timeout: .now() + timeout) == .success
    }
}

/// A private `dbus-daemon` started from `dbus/private-bus.conf.in`, with its own service
/// folder for activation files. Stopped by `stop()` or when released.
public final class PrivateBus: @unchecked Sendable {
    public let address: String
    public let directory: URL
    public let serviceDirectory: URL
    private let process: ChildProcess
    private let stopped = Flag()

    /// `maxMessageSize`: the bus's limit on one message, in bytes (the default: the
    /// dbus-daemon's own, 128 MiB), for a test of output larger than one message.
    public init(maxMessageSize: Int? = nil) throws {
        directory = try makeTemporaryDirectory("biomatimer-bus")
        serviceDirectory = directory.appendingPathComponent("services")
        let listen = directory.appendingPathComponent("socket")
        try FileManager.default.createDirectory(at: serviceDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: listen, withIntermediateDirectories: true)
        let template = try String(
            contentsOf: repositoryRoot.appendingPathComponent("dbus/private-bus.conf.in"), encoding: .utf8)
        let config = template.replacingOccurrences(of: "@LISTEN_DIR@", with: listen.path)
            .replacingOccurrences(of: "@SERVICE_DIR@", with: serviceDirectory.path)
            .replacingOccurrences(
                of: "</busconfig>", with: maxMessageSize.map { "  <limit name=\"max_message_size\">\($0)</limit>\n</busconfig>" } ?? "</busconfig>")
        let configFile = directory.appendingPathComponent("bus.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)

        process = try ChildProcess(
            "/usr/bin/dbus-daemon",
            ["--config-file=\(configFile.path)", "--nofork", "--nopidfile", "--print-address=1"])
        guard let line = process.readLine(), !line.isEmpty else {
            process.terminate()
            throw TestSupportError("dbus-daemon exited before printing its address")
        }
        address = line.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The environment a client process needs to reach this bus.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        return env
    }

    /// Writes an activation file so a call to `name` starts `exec`.
    /// Installs an activation file for `name`; its command runs under the crash watch.
    public func installService(name: String, exec: String) throws {
        let text = "[D-BUS Service]\nName=\(name)\nExec=\(CrashWatch.wrap(exec, log: crashLog))\n"
        try text.write(to: serviceDirectory.appendingPathComponent("\(name).service"), atomically: true, encoding: .utf8)
    }

    public var pid: Int32 { process.pid }

    public func stop() {
        guard !stopped.swap(true) else { return }
        process.terminate()
        CrashWatch.check(busLog: crashLog)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Where the services this bus activates (run under `CrashWatch.wrap`) write their crashes.
    public var crashLog: URL { directory.appendingPathComponent("crashes") }

    deinit { stop() }
}

/// What a finished child process said.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

extension ProcessResult {
    /// This result if the program exited 0; otherwise an error naming `what` with the exit
    /// status and stderr, which fails the test. For setup steps, whose failure would otherwise
    /// surface later as a puzzling difference.
    @discardableResult
    public func requireSuccess(_ what: String) throws -> ProcessResult {
        guard status == 0 else { throw TestSupportError("\(what) exited \(status): \(stderr)\(stdout)") }
        return self
    }
}

/// Runs a program to completion with a bounded wait (it is killed after `timeout` seconds).
@discardableResult
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
    timeout: TimeInterval = 30
) throws -> ProcessResult {
    let child = try ChildProcess(executable, arguments, environment: environment, pipeInput: input != nil)
    if let input, let stdin = child.stdin {
        stdin.write(Data(input.utf8))
        try? stdin.close()
    }
    // Read both pipes concurrently so a chatty child cannot block on a full pipe.
    let collected = Collected()
    let group = DispatchGroup()
    for (handle, isOut) in [(child.stdout!, true), (child.stderr!, false)] {
        group.enter()
        Thread.detachNewThread {
            let data = handle.readDataToEndOfFile()
            collected.set(data, isOut: isOut)
            group.leave()
        }
    }
    if group.wait(timeout: .now() + timeout) == .timedOut {
        child.signal(SIGKILL)
        group.wait()
    }
    let status = child.wait()
    return ProcessResult(status: status, stdout: collected.out, stderr: collected.err)
}
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var outData = Data()
    private var errData = Data()
    func set(_ data: Data, isOut: Bool) {
        lock.lock()
        if isOut { outData = data } else { errData = data }
        lock.unlock()
    }
    var out: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: outData, as: UTF8.self)
    }
    var err: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errData, as: UTF8.self)
    }
}

/// How long a test waits for a notification to reach the stand-in notification server:
/// the daemon asks the server's capabilities first, and on a loaded machine the two round
/// trips through dbus-daemon and python3-dbusmock have taken over five seconds. A wait ends as
/// soon as the notification is there, so the bound costs nothing when it is.
public let notificationWait: TimeInterval = 30

/// Polls `condition` every 10 ms until it holds or `timeout` passes. For waiting on other
/// processes only; never a substitute for an event the code under test can report.
public func waitUntil(timeout: TimeInterval = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}

/// Voluntary and involuntary context switches of every thread of a process (nil when it is
/// gone): unchanged over an interval means no thread of it ran, i.e. it did not wake up.
public func contextSwitches(of pid: pid_t) -> Int? {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
    var total = 0
    for thread in threads {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8) else { continue }
        for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
            total += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        }
    }
    return total
}

/// The context switches of `pid` once none of its threads has run for `quiet` seconds (waiting
/// at most `timeout`): where a window that checks the process does not wake may start. A fixed
/// settle time after the last request is not enough on a loaded machine, where the process
/// may still be finishing it (the signals after a reply, a commit). A process that ticks once
/// a second still shows: the window that follows is longer than the quiet span.
public func quietContextSwitches(of pid: pid_t, quiet: TimeInterval = 0.3, timeout: TimeInterval = 10) -> Int? {
    let end = Date().addingTimeInterval(timeout)
    var last = contextSwitches(of: pid)
    while Date() < end {
        Thread.sleep(forTimeInterval: quiet)
        let now = contextSwitches(of: pid)
        if now == last { return now }
        last = now
    }
    return last
}

/// Held while a test changes what is installed system-wide (DebPackageTests installs the package,
/// which puts the GNOME Shell extension in /usr/share) and while a test that such a change would
/// disturb runs (GnomeShellTests: GNOME then finds the extension twice and says so in its log).
/// Both run on threads of their own (`.ownThread`), so waiting here holds no other test.
public let systemWideInstall = NSLock()

/// A flag set once, from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    /// Sets the flag; whether it was set before.
    func swap(_ new: Bool) -> Bool { lock.withLock { defer { value = new }; return value } }
}

/// Writes an executable script (a stand-in for a program on PATH) through a descriptor that no
/// child spawned meanwhile inherits (O_CLOEXEC): the suite spawns processes from many threads,
/// and a child holding the script open for writing makes executing it fail with ETXTBSY.
public func writeExecutable(_ text: String, to url: URL) throws {
    let temporary = url.path + ".tmp"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard fd >= 0 else { throw TestSupportError("cannot write \(temporary): errno \(errno)") }
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fchmod(fd, 0o755)
    close(fd)
    guard written == bytes.count, rename(temporary, url.path) == 0 else { throw TestSupportError("cannot write \(url.path)") }
}
