import BiomaCore
import CSystem
import DBusKit
import Glibc

/// How one run of a hook ended.
struct HookResult: Sendable, Equatable {
    /// Its exit status, nil when it was killed or never started.
    var exit: Int32?
    /// What happened, in words: `ok`, `exit 3`, `stopped at the 10 s limit (SIGTERM)`, …
    var outcome: String
    /// The last lines it wrote to standard error.
    var stderrTail: String
    var failed: Bool { outcome != "ok" }
}

/// How long a hook may run and how much it may print.
public struct HookLimits: Sendable {
    /// After this long the hook's process group gets SIGTERM…
    public var seconds: Int = 10
    /// …and this long after that, SIGKILL.
    public var graceSeconds: Int = 2
    /// Printed past this on standard output or standard error, a hook is stopped the same way.
    public var outputBytes: Int = 1 << 20

    public init(seconds: Int = 10) { self.seconds = seconds }
}

/// One run of a hook as a child of the daemon that never holds the loop: started with
/// `posix_spawn` in a process group of its own, its standard input (the event's payload)
/// written through the loop without blocking, its standard output and standard error read by
/// `InputReader`s (bounded; kept only to show the last lines of stderr), its exit seen through
/// a pidfd watched by the loop and reaped with a waitpid that cannot block, and a monotonic
/// timerfd for its time limit (SIGTERM, then SIGKILL). `completion` runs once, on the loop
/// thread, when the child has been reaped and both of its outputs have ended.
final class HookProcess: @unchecked Sendable {
    typealias Completion = @Sendable (HookResult) -> Void

    private let path: String
    private let loop: EventLoop
    private let limits: HookLimits
    private var completion: Completion?
    private var pid: pid_t = 0
    private var payload: [UInt8]
    private var written = 0
    private var stdinFD: OwnedDescriptor?
    private var stdinWatch: EventLoop.WatchHandle?
    private var pidFD: OwnedDescriptor?
    private var pidWatch: EventLoop.WatchHandle?
    private var timer: OwnedDescriptor?
    private var timerWatch: EventLoop.WatchHandle?
    private var readers: [InputReader] = []
    private var stderrBytes: [UInt8] = []
    private var outputsOpen = 2
    private var status: Int32?
    /// Why the hook was stopped, when it was: the limit, or too much output.
    private var stoppedFor: String?
    private var signalled: Int32 = 0

    init(path: String, payload: [UInt8], loop: EventLoop, limits: HookLimits, completion: @escaping Completion) {
        (self.path, self.payload, self.loop, self.limits, self.completion) = (path, payload, loop, limits, completion)
    }

    /// Starts the child; a failure to start completes at once with its reason.
    func start(environment: [String]) {
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var ends: [Int32] = [-1, -1]
            // Close-on-exec at once: only the loop thread starts children, and the daemon's
            // other thread only waits.
            guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
                let code = errno
                for pair in pipes { for fd in pair { close(fd) } }
                return finish(HookResult(exit: nil, outcome: "cannot start: \(String(cString: strerror(code)))", stderrTail: ""))
            }
            pipes.append(ends)
        }
        // The child's ends: stdin's read end, stdout's and stderr's write ends.
        let childEnds = [pipes[0][0], pipes[1][1], pipes[2][1]]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, fd) in childEnds.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(target)) }
        // No signal blocked, the ones the daemon ignores or catches back at their default
        // (SIGPIPE is ignored here, and an ignored signal stays ignored across exec), and a
        // process group of its own, so the limit reaches whatever the hook started.
        let started = Spawn.start([path], environment: environment, actions: &actions) { attributes in
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setpgroup(&attributes, 0)
            // A batch task, which never preempts the daemon or the bar's next call when it wakes.
            var batch = sched_param()
            posix_spawnattr_setschedpolicy(&attributes, CSYSTEM_SCHED_BATCH)
            posix_spawnattr_setschedparam(&attributes, &batch)
            return POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSCHEDULER
        }
        for fd in childEnds { close(fd) }
        let (stdinEnd, stdoutEnd, stderrEnd) = (pipes[0][1], pipes[1][0], pipes[2][0])
        switch started {
        case .success(let child):
            pid = child
        case .failure(let error):
            for fd in [stdinEnd, stdoutEnd, stderrEnd] { close(fd) }
            let reason = error.code == EACCES || error.code == ENOEXEC ? "not executable" : "cannot start: \(error.description)"
            return finish(HookResult(exit: nil, outcome: reason, stderrTail: ""))
        }
        // Below the daemon and its callers: on a busy machine the bar's next call comes first.
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), 10)
        let pidDescriptor = csystem_pidfd_open(pid)
        guard pidDescriptor >= 0 else {
            // Without a pidfd the child could not be reaped through the loop: stop it now.
            let code = errno
            kill(-pid, SIGKILL)
            var ignored: Int32 = 0
            while waitpid(pid, &ignored, 0) < 0 && errno == EINTR {}
            for fd in [stdinEnd, stdoutEnd, stderrEnd] { close(fd) }
            return finish(HookResult(exit: nil, outcome: "cannot follow it: \(String(cString: strerror(code)))", stderrTail: ""))
        }
        pidFD = OwnedDescriptor(pidDescriptor)
        pidWatch = loop.watch(fd: pidDescriptor) { [self] _ in reap() }
        // Standard input: the payload, written as the pipe takes it.
        _ = fcntl(stdinEnd, F_SETFL, fcntl(stdinEnd, F_GETFL) | O_NONBLOCK)
        stdinFD = OwnedDescriptor(stdinEnd)
        stdinWatch = loop.watch(fd: stdinEnd, events: Int16(POLLOUT)) { [self] _ in writeInput() }
        // Standard output and error: read as they come, bounded; only stderr's end is kept.
        let input = InputLimits(
            maximumBytes: limits.outputBytes, idleSeconds: (limits.seconds + limits.graceSeconds) * 2 + 5, chunkBytes: 64 * 1024)
        for (fd, isError) in [(stdoutEnd, false), (stderrEnd, true)] {
            let reader = InputReader(OwnedDescriptor(fd), loop: loop, limits: input) { [self] result in
                outputEnded(result, isError: isError)
            }
            readers.append(reader)
        }
        for reader in readers { reader.start() }
        armTimer(seconds: limits.seconds)
    }

    // MARK: - Input

    private func writeInput() {
        guard let stdinFD else { return }
        while written < payload.count {
            let n = payload[written...].withUnsafeBytes { write(stdinFD.fd, $0.baseAddress!, $0.count) }
            if n > 0 {
                written += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                // EAGAIN: the pipe is full, wait for POLLOUT again. Anything else (EPIPE: the
                // hook does not read its input) ends the input.
                if n < 0 && errno == EAGAIN { return }
                break
            }
        }
        closeInput()
    }

    private func closeInput() {
        if let stdinWatch { loop.unwatch(stdinWatch) }
        (stdinWatch, stdinFD) = (nil, nil)
        payload = []
    }

    // MARK: - Output

    private func outputEnded(_ result: Result<[UInt8], InputFailure>, isError: Bool) {
        switch result {
        case .success(let bytes):
            if isError { stderrBytes = Array(bytes.suffix(4096)) }
        case .failure(.tooLarge):
            stop(because: "cut: it printed more than \(limits.outputBytes / 1024) KiB")
        case .failure:
            break
        }
        outputsOpen -= 1
        finishIfDone()
    }

    // MARK: - Time limit

    private func armTimer(seconds: Int) {
        if timer == nil {
            let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
            guard fd >= 0 else { return }
            timer = OwnedDescriptor(fd)
            timerWatch = loop.watch(fd: fd) { [self] _ in
                var expirations: UInt64 = 0
                _ = read(fd, &expirations, 8)
                if expirations > 0 { timeUp() }
            }
        }
        var spec = itimerspec()
        spec.it_value.tv_sec = max(1, seconds)
        timerfd_settime(timer!.fd, 0, &spec, nil)
    }

    private func timeUp() {
        if stoppedFor == nil {
            stop(because: "stopped at the \(limits.seconds) s limit")
        } else if signalled == SIGTERM {
            signalled = SIGKILL
            kill(-pid, SIGKILL)
            // Still not gone after that: a grandchild holding its outputs open, or a process
            // that cannot die. Its outputs are let go of at the next look.
            armTimer(seconds: limits.graceSeconds)
        } else {
            for reader in readers { reader.cancel() }
        }
    }

    /// SIGTERM to the hook's process group now, SIGKILL after the grace period.
    private func stop(because reason: String) {
        guard stoppedFor == nil else { return }
        stoppedFor = reason
        signalled = SIGTERM
        kill(-pid, SIGTERM)
        armTimer(seconds: limits.graceSeconds)
    }

    // MARK: - The end

    private func reap() {
        var raw: Int32 = 0
        var n: pid_t
        repeat { n = waitpid(pid, &raw, WNOHANG) } while n < 0 && errno == EINTR
        guard n == pid else { return }
        status = raw
        if let pidWatch { loop.unwatch(pidWatch) }
        (pidWatch, pidFD) = (nil, nil)
        closeInput()
        finishIfDone()
    }

    private func finishIfDone() {
        guard let status, outputsOpen <= 0 else { return }
        let tail = Self.lastLines(stderrBytes)
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        let signal = status & 0x7f
        let outcome: String
        if let stoppedFor {
            outcome = stoppedFor + (signalled == SIGKILL ? " (SIGTERM, then SIGKILL)" : " (SIGTERM)")
        } else if exited {
            outcome = code == 0 ? "ok" : "exit \(code)"
        } else {
            outcome = "killed by \(Self.signalName(signal))"
        }
        finish(HookResult(exit: exited ? code : nil, outcome: outcome, stderrTail: tail))
    }

    private func finish(_ result: HookResult) {
        guard let completion else { return }
        self.completion = nil
        for reader in readers { reader.cancel() }
        readers = []
        if let timerWatch { loop.unwatch(timerWatch) }
        if let pidWatch { loop.unwatch(pidWatch) }
        (timerWatch, timer, pidWatch, pidFD) = (nil, nil, nil, nil)
        closeInput()
        completion(result)
    }

    /// The last five lines of `bytes`, at most 1 KiB, as text: invalid UTF-8 and control
    /// characters (a NUL, which no D-Bus string may hold) shown as U+FFFD, tabs and line
    /// breaks kept.
    static func lastLines(_ bytes: [UInt8]) -> String {
        let decoded = String(decoding: bytes, as: UTF8.self)
        var text = String(
            String.UnicodeScalarView(
                decoded.unicodeScalars.map { scalar in
                    scalar.value < 0x20 && scalar != "\n" && scalar != "\t" || scalar.value == 0x7F ? "\u{FFFD}" : scalar
                }))
        while text.hasSuffix("\n") { text.removeLast() }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(5)
        return String(lines.joined(separator: "\n").suffix(1024))
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: return "SIGTERM"
        case SIGKILL: return "SIGKILL"
        case SIGINT: return "SIGINT"
        case SIGSEGV: return "SIGSEGV"
        case SIGABRT: return "SIGABRT"
        case SIGPIPE: return "SIGPIPE"
        default: return "signal \(signal)"
        }
    }
}
