import BiomaCore
import CContract
import BiomaCommands
import DBusKit
import TimerControl

#if canImport(Glibc)
import Glibc
#endif

/// `org.biomatimer.Command1`: the front's interface. `Run` parses and runs a whole command line
/// with the same ArgumentParser tree `biomatimer-tool` has (so help, usage errors and exit codes
/// are the same), for a caller described by its context, and answers what the command printed
/// and its exit code. The command's calls to the daemon go straight to the handlers the bus
/// dispatches to, on this (the loop) thread; files are the caller's descriptors.
///
/// A command that reads its caller's files (`import FILE`, `import -`) waits for them without
/// holding the loop: each descriptor is read by an `InputReader` in chunks as it is ready,
/// `Run` is answered once every input has ended (a deferred reply), and every other call,
/// deadline and signal is served meanwhile. The command itself then runs in one piece, so
/// nothing of it is applied before its input is complete, and a caller that leaves the bus
/// while its input is pending (the front killed, Ctrl-C) takes its command with it.
public final class CommandService: ObjectInterface, @unchecked Sendable {
    private let parts: [any ObjectInterface]
    private let bus: Bus
    private let limits: InputLimits
    /// The other interfaces of the object, built once on first use.
    private var interfaces: [String: DBusInterface]?
    /// Commands waiting for their callers' input, by a number of their own (loop thread only).
    private var waiting: [Int: WaitingCommand] = [:]
    private var nextWaiting = 0

    public lazy var publication = Publication(self)

    public init(parts: [any ObjectInterface], bus: Bus, inputIdleSeconds: Int = 30) {
        self.parts = parts
        self.bus = bus
        limits = InputLimits(maximumBytes: CommandRunner.maximumInput, idleSeconds: inputIdleSeconds)
    }

    public func attach(_ deadlines: Deadlines) {}

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
                }
            ])
    }

    static let contextKeys = [
        "Cwd", "StdinTty", "StdoutTty", "StderrTty", "NoColor", "Columns", "Term", "TZ", "Answer", "OpenErrors",
        "CompletionShell", "CompletionShellVersion",
    ]

    /// Runs the command at once, or once the inputs it reads have arrived.
    private func start(
        _ argv: [String], context values: [String: DBusValue], descriptors: [OwnedDescriptor], reply: PendingReply
    ) throws {
        let (context, environment) = try Self.context(values, descriptors: descriptors.map(\.fd)) { [self] () throws(ClientFailure) in
            InProcessDaemon(interfaces: allInterfaces())
        }
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
            let answer = run(argv, context, environment)
            withExtendedLifetime(descriptors) {}
            return reply.finish(.success(answer))
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
        let answer = run(argv, context, environment)
        command.end(on: bus)
        command.reply.finish(.success(answer))
    }

    /// The command run for its caller: exit code, standard output, standard error.
    private func run(_ argv: [String], _ context: CommandContext, _ environment: [String: String?]) -> [DBusValue] {
        let code = withEnvironment(environment) { CommandRunner.run(argv, in: context, daemonSide: true) }
        return [.int32(code), .string(context.out), .string(context.err)]
    }

    /// The caller's context as a command sees it, and the variables it is run with.
    static func context(
        _ values: [String: DBusValue], descriptors: [Int32], daemon: @escaping () throws(ClientFailure) -> any DaemonAccess
    ) throws -> (CommandContext, [String: String?]) {
        let options = try Options(values, allowed: Self.contextKeys)
        let openErrors: [Int32]?
        switch values["OpenErrors"] {
        case nil: openErrors = nil
        case .array(.int32, let items)?: openErrors = items.compactMap { $0.int64.map { Int32(truncatingIfNeeded: $0) } }
        case let other?: throw DaemonAPI.invalidArgument("OpenErrors must be of type ai, not \(other.signature).")
        }
        let context = CommandContext(
            direct: false, stdinTTY: try options.bool("StdinTty") ?? false, stdoutTTY: try options.bool("StdoutTty") ?? false,
            stderrTTY: try options.bool("StderrTty") ?? false, noColor: try options.bool("NoColor") ?? false,
            term: try options.string("Term"), columns: Int(try options.uint32("Columns") ?? 80),
            files: PassedFiles([], errors: [], descriptors: []), daemon: daemon)
        context.answer = try options.string("Answer")
        context.cwd = try options.string("Cwd")
        // Times the user types and reads are in the caller's zone, passed as a value; a zone
        // Foundation does not know is read by the C library (below) as before.
        let tz = try options.string("TZ")
        let zone = tz.flatMap { $0.contains("\0") ? nil : CallerZone($0) }
        if let zone { context.zone = zone }
        // A second Run carries the files the first one listed, matched to them again in order.
        context.passedFiles = openErrors.map { ($0, descriptors) }
        // A shell's completion request is answered in its format (ArgumentParser reads it from
        // the environment); a zone only the C library knows is set as `TZ` around the command.
        let environment = [
            "TZ": zone == nil ? tz : nil, "SAP_SHELL": try options.string("CompletionShell"),
            "SAP_SHELL_VERSION": try options.string("CompletionShellVersion"),
        ]
        return (context, environment)
    }

    private func allInterfaces() -> [String: DBusInterface] {
        if let interfaces { return interfaces }
        var made: [String: DBusInterface] = [:]
        for part in parts {
            let interface = part.interface()
            made[interface.name] = interface
        }
        interfaces = made
        return made
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

/// The daemon's methods called in its own process: the handler the bus would dispatch to,
/// with the same argument check and the same errors as over the bus.
final class InProcessDaemon: DaemonAccess {
    let interfaces: [String: DBusInterface]

    init(interfaces: [String: DBusInterface]) { self.interfaces = interfaces }

    func call(_ member: String, _ arguments: [DBusValue], interface name: String) throws(ClientFailure) -> [DBusValue] {
        if name == ContractNames.propertiesInterface, member == "GetAll", let wanted = arguments.first?.string {
            guard let interface = interfaces[wanted] else {
                throw Self.failure(DBusMethodError.unknownInterface("No interface \(wanted)"))
            }
            var entries: [(String, DBusValue)] = []
            do {
                let values = try interface.propertyValues?()
                for property in interface.properties { entries.append((property.name, try values?[property.name] ?? property.get())) }
            } catch {
                throw Self.failure(error)
            }
            return [.vardict(ordered: entries)]
        }
        guard let method = interfaces[name]?.methods.first(where: { $0.name == member }) else {
            throw Self.failure(DBusMethodError.unknownMethod("No method \(member) on interface \(name)"))
        }
        let expected = DBusType.signature(of: method.inputs.map(\.type))
        let given = DBusType.signature(of: arguments.map(\.type))
        guard expected == given else {
            throw Self.failure(DBusMethodError.invalidArgs("\(member) takes arguments of type '\(expected)', not '\(given)'"))
        }
        do {
            // The arguments get the checks sending them would make (strings libdbus refuses);
            // the message only names the call: the handler takes the values as they are.
            try BusMessage.validateArguments(arguments)
            let message = try BusMessage.methodCall(
                destination: ContractNames.busName, path: ContractNames.objectPath, interface: name, member: member)
            return try method.handler(MethodCall(message: message, arguments: arguments))
        } catch {
            throw Self.failure(error)
        }
    }

    static func failure(_ error: any Error) -> ClientFailure {
        if let error = error as? BusError { return ClientFailure(error) }
        if let error = error as? any DBusErrorConvertible {
            return ClientFailure(.remote(name: error.dbusErrorName, message: error.dbusErrorMessage))
        }
        return ClientFailure(.remote(name: "org.freedesktop.DBus.Error.Failed", message: "\(error)"))
    }
}
