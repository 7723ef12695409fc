import BiomaCore
import BiomaSystem
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

/// One run of a hook as a child of the daemon that never holds the loop: started by `Spawn`
/// in a process group of its own, its standard input (the event's payload) written through the
/// loop without blocking, its standard output and standard error read by `InputReader`s
/// (bounded; kept only to show the last lines of stderr), its exit seen through a pidfd watched
/// by the loop and reaped with a waitpid that cannot block, and its time limit a monotonic
/// deadline of the loop's (SIGTERM, then SIGKILL).
///
/// The run ends when the hook does: once it has been reaped, what it left behind (a
/// background process keeping its standard output) may write for `afterExit` more, then its
/// pipes are closed. `completion` runs once, on the loop thread, when the child has been
/// reaped and both of its outputs have ended.
final class HookProcess: @unchecked Sendable {
    typealias Completion = @Sendable (HookResult) -> Void

    /// How long the outputs stay open after the hook has exited (µs): what it printed last is
    /// read, and whatever it left running keeps them no longer.
    static let afterExit: Int64 = 150_000

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
    /// The time limit's deadline, then the grace's, then the outputs' last look.
    private var timer: (deadlines: Deadlines, handle: Deadlines.Handle)?
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
        let deadlines: Deadlines
        do { deadlines = try loop.deadlines() } catch {
            return finish(HookResult(exit: nil, outcome: "cannot start: no timer for its limit", stderrTail: ""))
        }
        timer = (deadlines, deadlines.add(.monotonic) { [self] _ in timeUp() })
        // A process group of its own, so the limit reaches whatever the hook started, and a
        // batch task, which never preempts the daemon or the bar's next call when it wakes.
        let child: Spawn.Child
        do throws(SystemError) {
            child = try Spawn.start(
                [path], environment: .exactly(environment),
                options: Spawn.Options(input: .pipe, output: .pipe, error: .pipe, processGroup: true, batch: true))
        } catch {
            let reason = error.code == EACCES || error.code == ENOEXEC ? "not executable" : "cannot start: \(error.description)"
            return finish(HookResult(exit: nil, outcome: reason, stderrTail: ""))
        }
        pid = child.pid
        // Below the daemon and its callers: on a busy machine the bar's next call comes first.
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), 10)
        let pidDescriptor = csystem_pidfd_open(pid)
        guard pidDescriptor >= 0 else {
            // Without a pidfd the child could not be reaped through the loop: stop it now.
            let code = errno
            kill(-pid, SIGKILL)
            _ = child.wait()
            return finish(HookResult(exit: nil, outcome: "cannot follow it: \(String(cString: strerror(code)))", stderrTail: ""))
        }
        pidFD = OwnedDescriptor(pidDescriptor)
        pidWatch = loop.watch(fd: pidDescriptor) { [self] _ in reap() }
        // Standard input: the payload, written as the pipe takes it.
        let stdinEnd = child.input!
        _ = fcntl(stdinEnd.fd, F_SETFL, fcntl(stdinEnd.fd, F_GETFL) | O_NONBLOCK)
        stdinFD = stdinEnd
        stdinWatch = loop.watch(fd: stdinEnd.fd, events: Int16(POLLOUT)) { [self] _ in writeInput() }
        // Standard output and error: read as they come, bounded; only stderr's end is kept.
        let input = InputLimits(
            maximumBytes: limits.outputBytes, idleSeconds: (limits.seconds + limits.graceSeconds) * 2 + 5, chunkBytes: 64 * 1024)
        for (end, isError) in [(child.output!, false), (child.error!, true)] {
            let reader = InputReader(end, loop: loop, limits: input) { [self] result in
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
        guard let timer else { return }
        timer.deadlines.schedule(timer.handle, after: Int64(max(1, seconds)) * 1_000_000)
    }

    private func timeUp() {
        if stoppedFor == nil {
            if status == nil { return stop(because: "stopped at the \(limits.seconds) s limit") }
            // Exited, and its outputs still held by what it left behind: they end here.
            for reader in readers { reader.end() }
        } else if signalled == SIGTERM {
            signalled = SIGKILL
            kill(-pid, SIGKILL)
            // Still not gone after that: a grandchild holding its outputs open, or a process
            // that cannot die. Its outputs are let go of at the next look.
            armTimer(seconds: limits.graceSeconds)
        } else {
            for reader in readers { reader.end() }
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
        // Ended by itself, the limit no longer applies: what is left of the outputs gets a
        // short look. Stopped, the group still gets its SIGKILL.
        if stoppedFor == nil, outputsOpen > 0, let timer { timer.deadlines.schedule(timer.handle, after: Self.afterExit) }
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
        if let timer { timer.deadlines.remove(timer.handle) }
        if let pidWatch { loop.unwatch(pidWatch) }
        (timer, pidWatch, pidFD) = (nil, nil, nil)
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
