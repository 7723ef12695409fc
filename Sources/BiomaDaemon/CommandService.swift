import BiomaCore
import Foundation
import CContract
import BiomaCommands
import DBusKit
import BiomaContract
import BiomaSystem

#if canImport(Glibc)
import Glibc
#endif

/// `org.biomatimer.Command1`: the front's interface. `Run` parses and runs a whole command line
/// with the same ArgumentParser tree `biomatimer-tool` has (so help, usage errors and exit codes
/// are the same), for a caller described by its context, and answers what the command printed
/// and its exit code. Files are the caller's descriptors.
///
/// A command runs on a thread of its own (`CommandThreads`), never on the loop: its calls to
/// the daemon are dispatched on the loop as calls over the bus are (`Bus.callLocally`), one at
/// a time with every other caller's, and a call answered later (bulk work on a worker) is
/// waited for there, so the loop serves everything else meanwhile.
///
/// A command that reads its caller's files (`import FILE`, `import -`) waits for them without
/// holding anything: each descriptor is read by an `InputReader` in chunks as it is ready, and
/// the command starts once every input has ended (`Run` is a deferred reply). Nothing of it is
/// applied before its input is complete, and a caller that leaves the bus while its input is
/// pending (the front killed, Ctrl-C) takes its command with it.
public final class CommandService: ObjectInterface, @unchecked Sendable {
    private let bus: Bus
    private let limits: InputLimits
    private let threads = CommandThreads()
    /// Commands waiting for their callers' input, by a number of their own (loop thread only).
    private var waiting: [Int: WaitingCommand] = [:]
    private var nextWaiting = 0
    /// The settings file's problems as read at start: every command but `status` and `config
    /// check` says them on its caller's standard error (`CommandContext.configProblems`).
    private let configProblems: [String]

    public lazy var publication = Publication(self)

    public init(bus: Bus, inputIdleSeconds: Int = 30, configProblems: [String] = []) {
        self.bus = bus
        self.configProblems = configProblems
        limits = InputLimits(maximumBytes: CommandRunner.maximumInput, idleSeconds: inputIdleSeconds)
    }

    /// Command1 has no properties: the commands it runs publish through the other parts.
    public func publish(at now: Micros) {}

    public func interface() -> DBusInterface {
        DBusInterface(
            ContractNames.commandInterface,
            methods: [
                DBusMethod.deferred(
                    BIOMATIMER_COMMAND1_RUN, in: [.init("argv", "as"), .init("context", "a{sv}"), .init("files", "ah")],
                    out: [.init("exit", "i"), .init("out", "s"), .init("err", "s")]
                ) { [self] call, reply in
                    // Each descriptor libdbus handed over has one owner from here on.
                    let descriptors = (call.arguments[2].array ?? []).compactMap { value -> OwnedDescriptor? in
                        if case .unixFD(let fd) = value { return OwnedDescriptor(fd) }
                        return nil
                    }
                    let argv = (call.arguments[0].array ?? []).compactMap(\.string)
                    try start(argv, context: call.arguments[1].vardict ?? [:], descriptors: descriptors, reply: reply)
                }.reading()
            ])
    }

    /// Runs the command at once, or once the inputs it reads have arrived.
    private func start(
        _ argv: [String], context values: [String: DBusValue], descriptors: [OwnedDescriptor], reply: PendingReply
    ) throws {
        let (context, environment) = try Self.context(values, descriptors: descriptors.map(\.fd)) {
            [bus, sender = reply.sender] () throws(ClientFailure) in InProcessDaemon(bus: bus, sender: sender)
        }
        context.configProblems = configProblems
        let (inputs, refusal) = withEnvironment(environment) { CommandRunner.inputs(argv, in: context) }
        nextWaiting += 1
        let id = nextWaiting
        let readers = inputs.compactMap { request, fd in
            descriptors.first { $0.fd == fd }.map { owned in
                let reader = InputReader(owned, loop: bus.loop, limits: limits) { [self] result in
                    arrived(id, request, result.mapError { InputUnread($0.description) }, context: context, argv, environment)
                }
                reader.endsEarly = refusal
                return reader
            }
        }
        guard !readers.isEmpty else {
            return run(argv, context, environment, descriptors: descriptors, reply: reply)
        }
        let command = WaitingCommand(descriptors: descriptors, reply: reply, remaining: readers.count)
        command.readers = readers
        waiting[id] = command
        command.gone = try? bus.whenGone(reply.sender) { [self] in
            guard let command = waiting.removeValue(forKey: id) else { return }
            command.end(on: bus)
            reply.finish(.failure(DBusMethodError.failed("the caller left the bus before its input ended")))
        }
        for reader in command.readers { reader.start() }
    }

    /// One input of a waiting command has ended; with the last, the command runs and `Run` is
    /// answered. A failed input ends the others (the command reports the failure).
    private func arrived(
        _ id: Int, _ request: FileRequest, _ result: Result<[UInt8], InputUnread>, context: CommandContext, _ argv: [String],
        _ environment: [String: String?]
    ) {
        guard let command = waiting[id] else { return }
        if command.arrived[request] == nil { command.arrived[request] = result }
        command.remaining -= 1
        if case .failure = result, command.remaining > 0 {
            for reader in command.readers { reader.cancel() }
            return
        }
        guard command.remaining <= 0 else { return }
        waiting[id] = nil
        context.arrived = command.arrived
        command.end(on: bus)
        run(argv, context, environment, descriptors: command.descriptors, reply: command.reply)
    }

    /// Runs the command for its caller and answers `Run` with its exit code, standard output
    /// and standard error; the caller's descriptors stay open until it has ended. A command
    /// that needs variables set (a zone only the C library knows, a shell's completion
    /// request) runs on the loop, where nothing else runs meanwhile; every other on a command
    /// thread.
    private func run(
        _ argv: [String], _ context: CommandContext, _ environment: [String: String?], descriptors: [OwnedDescriptor],
        reply: PendingReply
    ) {
        let answer: @Sendable (Int32) -> Void = { code in
            withExtendedLifetime(descriptors) {}
            reply.finish(.success([.int32(code), .string(context.out), .string(context.err)]))
        }
        guard environment.values.allSatisfy({ $0 == nil }) else {
            // Its calls run at once there: a held loop runs it after the bulk work.
            guard !bus.loop.held else {
                return bus.loop.later { [self] in run(argv, context, environment, descriptors: descriptors, reply: reply) }
            }
            return answer(withEnvironment(environment) { CommandRunner.run(argv, in: context, daemonSide: true) })
        }
        threads.run { answer(CommandRunner.run(argv, in: context, daemonSide: true)) }
    }

    /// The caller's context as a command sees it, and the variables it is run with.
    static func context(
        _ values: [String: DBusValue], descriptors: [Int32], daemon: @escaping () throws(ClientFailure) -> any DaemonAccess
    ) throws -> (CommandContext, [String: String?]) {
        let options = try Options(values, allowed: ContractMembers.runContext)
        let openErrors: [Int32]?
        switch values[BIOMATIMER_RUN_OPEN_ERRORS] {
        case nil: openErrors = nil
        case .array(.int32, let items)?: openErrors = items.compactMap { $0.int64.map { Int32(truncatingIfNeeded: $0) } }
        case let other?: throw DaemonAPI.invalidArgument("\(BIOMATIMER_RUN_OPEN_ERRORS) must be of type ai, not \(other.signature).")
        }
        let context = CommandContext(
            direct: false, stdinTTY: try options.bool(BIOMATIMER_RUN_STDIN_TTY) ?? false, stdoutTTY: try options.bool(BIOMATIMER_RUN_STDOUT_TTY) ?? false,
            stderrTTY: try options.bool(BIOMATIMER_RUN_STDERR_TTY) ?? false, noColor: try options.bool(BIOMATIMER_RUN_NO_COLOR) ?? false,
            term: try options.string(BIOMATIMER_RUN_TERM), columns: Int(try options.uint32(BIOMATIMER_RUN_COLUMNS) ?? 80),
            files: PassedFiles([], errors: [], descriptors: []), daemon: daemon)
        context.answer = try options.string(BIOMATIMER_RUN_ANSWER)
        context.cwd = try options.string(BIOMATIMER_RUN_CWD)
        // Times the user types and reads are in the caller's zone, passed as a value; a zone
        // Foundation does not know is read by the C library (below).
        let tz = try options.string(BIOMATIMER_RUN_TZ)
        let zone = tz.flatMap { $0.contains("\0") ? nil : CallerZone($0) }
        if let zone { context.zone = zone }
        // A second Run carries the files the first one listed, matched to them again in order.
        context.passedFiles = openErrors.map { ($0, descriptors) }
        // A shell's completion request is answered in its format (ArgumentParser reads it from
        // the environment); a zone only the C library knows is set as `TZ` around the command.
        let environment = [
            "TZ": zone == nil ? tz : nil, "SAP_SHELL": try options.string(BIOMATIMER_RUN_COMPLETION_SHELL),
            "SAP_SHELL_VERSION": try options.string(BIOMATIMER_RUN_COMPLETION_SHELL_VERSION),
        ]
        return (context, environment)
    }

    /// Runs `body` with these variables set (or unset, when nil; `TZ` is left as it is when
    /// the caller has none), then puts the daemon's own back. Handlers run one at a time on
    /// the loop thread. A variable that already has the caller's value is left alone, and the
    /// zone is read again only when `TZ` changes (a caller in the daemon's zone costs nothing).
    private func withEnvironment<T>(_ values: [String: String?], _ body: () throws -> T) rethrows -> T {
        var saved: [(String, String?)] = []
        for (name, value) in values where !(name == "TZ" && value == nil) {
            let wanted = value.flatMap { $0.contains("\0") ? nil : $0 }
            let current = getenv(name).map { String(cString: $0) }
            if current == wanted { continue }
            saved.append((name, current))
            if let wanted { setenv(name, wanted, 1) } else { unsetenv(name) }
        }
        let zoneChanged = saved.contains { $0.0 == "TZ" }
        if zoneChanged { tzset() }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
            if zoneChanged { tzset() }
        }
        return try body()
    }
}

/// A command waiting for its caller's input: the readers, the descriptors they read (closed
/// when it ends), what has arrived, and the reply it owes.
private final class WaitingCommand {
    let descriptors: [OwnedDescriptor]
    let reply: PendingReply
    var readers: [InputReader] = []
    var arrived: [FileRequest: Result<[UInt8], InputUnread>] = [:]
    var remaining: Int
    var gone: SubscriptionToken?

    init(descriptors: [OwnedDescriptor], reply: PendingReply, remaining: Int) {
        (self.descriptors, self.reply, self.remaining) = (descriptors, reply, remaining)
    }

    /// Stops every reader and following the caller.
    func end(on bus: Bus) {
        for reader in readers { reader.cancel() }
        if let gone { bus.unsubscribe(gone) }
    }
}

/// The daemon's methods called in its own process, by a command it runs: dispatched by the
/// bus as a call over it would be (`Bus.callLocally`), with the same errors.
final class InProcessDaemon: DaemonAccess {
    let bus: Bus
    let sender: String

    init(bus: Bus, sender: String) { (self.bus, self.sender) = (bus, sender) }

    func call(_ member: String, _ arguments: [DBusValue], interface name: String) throws(ClientFailure) -> [DBusValue] {
        do {
            return try bus.callLocally(
                path: ContractNames.objectPath, interface: name, member: member, arguments: arguments, sender: sender)
        } catch {
            throw Self.failure(error)
        }
    }

    static func failure(_ error: any Error) -> ClientFailure {
        if let error = error as? BusError { return ClientFailure(error) }
        if let error = error as? any DBusErrorConvertible {
            return ClientFailure(.remote(name: error.dbusErrorName, message: error.dbusErrorMessage))
        }
        return ClientFailure(.remote(name: StandardError.failed.name, message: "\(error)"))
    }
}

/// The threads commands run on: one per command, at most `limit` at once; more wait their
/// turn, in order, and a thread that ends its command takes the next before it exits. A
/// thread only waits (for the loop's answers, or for the caller's descriptors), so a handful
/// serves any number of callers; one slow command never delays another's start.
final class CommandThreads: @unchecked Sendable {
    static let limit = 8
    private let lock = Lock()
    private var running = 0
    private var queue: [@Sendable () -> Void] = []

    func run(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        guard running < Self.limit else {
            queue.append(work)
            return lock.unlock()
        }
        running += 1
        lock.unlock()
        Thread { [self] in
            var next: (@Sendable () -> Void)? = work
            while let job = next {
                job()
                lock.lock()
                next = queue.isEmpty ? nil : queue.removeFirst()
                if next == nil { running -= 1 }
                lock.unlock()
            }
        }.start()
    }
}
