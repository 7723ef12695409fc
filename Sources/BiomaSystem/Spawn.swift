import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// The one way every program of the package starts a child process (the daemon's hooks and
/// phase-end command, `rsvg-convert` for a PDF, the tray's `xdg-open`, `gsettings` for the
/// GNOME Shell extension). Whatever the parent blocks, ignores or catches, the child starts
/// as from a login shell: no signal blocked, every signal at its default (a daemon started
/// with SIGPIPE or SIGINT ignored, or blocking its termination signals for a signalfd, passes
/// none of that on: an ignored signal stays ignored across `exec`). It keeps no descriptor
/// but its three standard streams, each `/dev/null`, a pipe whose other end is handed back,
/// or the parent's own; and its environment is the one the caller names.
public enum Spawn {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe; the parent's end is handed back in `Child` (close-on-exec, blocking).
        case pipe
        /// The parent's own descriptor of the same number.
        case inherit
    }

    /// The child's environment.
    public enum Environment: Sendable {
        /// This process's own.
        case inherited
        /// Exactly these `NAME=value` entries.
        case exactly([String])
    }

    /// How the child is started beyond its program, arguments and environment.
    public struct Options: Sendable {
        public var input: Stream
        public var output: Stream
        public var error: Stream
        /// The program is looked up on `PATH` (this process's), as a shell does; else it is a path.
        public var searchPath: Bool
        /// A process group of its own, so one signal to the group reaches what it starts.
        public var processGroup: Bool
        /// `SCHED_BATCH`: it never preempts the parent or an interactive task when it wakes.
        public var batch: Bool

        public init(
            input: Stream = .null, output: Stream = .null, error: Stream = .null, searchPath: Bool = false,
            processGroup: Bool = false, batch: Bool = false
        ) {
            (self.input, self.output, self.error) = (input, output, error)
            (self.searchPath, self.processGroup, self.batch) = (searchPath, processGroup, batch)
        }
    }

    /// A started child: its pid and the parent's ends of the pipes asked for.
    public struct Child: Sendable {
        public let pid: pid_t
        /// The child's standard input, to write.
        public var input: OwnedDescriptor?
        /// The child's standard output and error, to read.
        public var output: OwnedDescriptor?
        public var error: OwnedDescriptor?

        /// Waits for the child to end and reaps it: its wait status.
        public func wait() -> Int32 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return status
        }
    }

    /// Starts `arguments` (the program first) with `environment` and `options`; the pipe or
    /// `posix_spawn` error that kept it from starting.
    public static func start(
        _ arguments: [String], environment: Environment, options: Options = Options()
    ) throws(SystemError) -> Child {
        precondition(!arguments.isEmpty, "a child needs a program")
        // The parent's ends first, close-on-exec from the start: a child another thread
        // spawns meanwhile inherits none of them.
        var ends: [(parent: OwnedDescriptor, child: OwnedDescriptor)?] = []
        for (number, stream) in [options.input, options.output, options.error].enumerated() {
            guard stream == .pipe else {
                ends.append(nil)
                continue
            }
            var fds: [Int32] = [-1, -1]
            guard csystem_pipe_cloexec(&fds) == 0 else { throw SystemError(code: errno) }
            let (read, write) = (OwnedDescriptor(fds[0]), OwnedDescriptor(fds[1]))
            ends.append(number == 0 ? (write, read) : (read, write))
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (number, stream) in [options.input, options.output, options.error].enumerated() {
            let target = Int32(number)
            switch stream {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", number == 0 ? O_RDONLY : O_WRONLY, 0)
            case .pipe: posix_spawn_file_actions_adddup2(&actions, ends[number]!.child.fd, target)
            case .inherit: break
            }
        }
        // Nothing else: not the parent's pipes, bus sockets or store, close-on-exec or not.
        csystem_spawn_close_from(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        // And the C library's own two (32 and 33, for thread cancellation and set*id), which
        // `sigfillset` leaves out and glibc's spawn would otherwise leave ignored across exec.
        all.__val.0 |= 0b11 << 31
        posix_spawnattr_setsigdefault(&attributes, &all)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if options.processGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        if options.batch {
            var parameters = sched_param()
            posix_spawnattr_setschedpolicy(&attributes, CSYSTEM_SCHED_BATCH)
            posix_spawnattr_setschedparam(&attributes, &parameters)
            flags |= POSIX_SPAWN_SETSCHEDULER
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let rc: Int32
        switch environment {
        case .inherited:
            rc = spawn(&pid, arguments[0], &actions, &attributes, cArguments, environ, options.searchPath)
        case .exactly(let entries):
            let cEnvironment = entries.map { strdup($0) } + [nil]
            defer { for pointer in cEnvironment { free(pointer) } }
            rc = spawn(&pid, arguments[0], &actions, &attributes, cArguments, cEnvironment, options.searchPath)
        }
        guard rc == 0 else { throw SystemError(code: rc) }
        // The child's ends close here, with `ends`: the parent keeps only its own.
        return Child(pid: pid, input: ends[0]?.parent, output: ends[1]?.parent, error: ends[2]?.parent)
    }

    private static func spawn(
        _ pid: inout pid_t, _ program: String, _ actions: inout posix_spawn_file_actions_t,
        _ attributes: inout posix_spawnattr_t, _ arguments: [UnsafeMutablePointer<CChar>?],
        _ environment: UnsafePointer<UnsafeMutablePointer<CChar>?>, _ searchPath: Bool
    ) -> Int32 {
        var arguments = arguments
        return arguments.withUnsafeMutableBufferPointer { argv in
            searchPath
                ? posix_spawnp(&pid, program, &actions, &attributes, argv.baseAddress!, environment)
                : posix_spawn(&pid, program, &actions, &attributes, argv.baseAddress!, environment)
        }
    }

    private static func spawn(
        _ pid: inout pid_t, _ program: String, _ actions: inout posix_spawn_file_actions_t,
        _ attributes: inout posix_spawnattr_t, _ arguments: [UnsafeMutablePointer<CChar>?],
        _ environment: [UnsafeMutablePointer<CChar>?], _ searchPath: Bool
    ) -> Int32 {
        environment.withUnsafeBufferPointer { spawn(&pid, program, &actions, &attributes, arguments, $0.baseAddress!, searchPath) }
    }

    /// Runs `arguments` to its end with its standard output read through a pipe (its
    /// standard input `/dev/null`, its standard error as `error` says): the wait status and
    /// what it printed.
    public static func run(
        _ arguments: [String], environment: Environment, error: Stream = .null, searchPath: Bool = true
    ) throws(SystemError) -> (status: Int32, output: [UInt8]) {
        let child = try start(
            arguments, environment: environment, options: Options(output: .pipe, error: error, searchPath: searchPath))
        let output = (try? readAll(from: child.output!.fd)) ?? []
        return (child.wait(), output)
    }

    /// Runs `arguments` detached: through an intermediate `/bin/sh` that puts it in the
    /// background and exits at once (reaped here, so no zombie is left), with standard input
    /// from /dev/null and the parent's standard output and error. A failure's description, or nil.
    public static func detached(_ arguments: [String], environment: [String]) -> String? {
        // sh -c '"$@" &' sh ARGS…: the background child is the program itself.
        let argv = ["/bin/sh", "-c", "\"$@\" &", "sh"] + arguments
        do throws(SystemError) {
            _ = try start(argv, environment: .exactly(environment), options: Options(output: .inherit, error: .inherit)).wait()
            return nil
        } catch {
            return error.description
        }
    }

    /// Whether a wait status says the child exited with status 0.
    public static func succeeded(_ status: Int32) -> Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }
}
