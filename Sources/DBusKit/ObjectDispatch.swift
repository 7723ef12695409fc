import CDBus
import Glibc

/// The service side: exported objects, method calls dispatched to their handlers, the
/// standard Properties, Introspectable and Peer interfaces, replies.
extension Bus {
    /// Exports an object. Do this before requesting a well-known name, so calls queued by bus
    /// activation find it.
    public func export(_ object: ExportedObject) throws(BusError) {
        try Validate.name(.objectPath, object.path)
        for interface in object.interfaces { try interface.validate() }
        try sync { [self] () throws(BusError) in objects[object.path] = object }
    }

    func handleMethodCall(_ message: BusMessage) -> DBusHandlerResult {
        guard let path = message.path else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let call = IncomingCall(
            path: path, interface: message.interface, member: message.member ?? "", signature: message.signature,
            carriesFileDescriptors: message.carriesFileDescriptors, arguments: { message.arguments },
            methodCall: { MethodCall(message: message, arguments: $0) },
            pendingReply: { [self] in PendingReply(bus: self, call: message, method: $0) },
            answer: { [self] in reply(to: message, $0) })
        // libdbus answers Ping and GetMachineId itself.
        return dispatch(call) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    /// On the loop thread: answers `call` to an exported object, whichever way it came (a
    /// message over the bus, or a call made in process), so both are answered alike. False for
    /// `org.freedesktop.DBus.Peer`, which the caller answers (libdbus does on a connection).
    func dispatch(_ call: IncomingCall) -> Bool {
        let (path, member, signature) = (call.path, call.member, call.signature)
        guard let object = objects[path] else {
            // Intermediate nodes answer Introspect so tools like `busctl tree` can walk to us.
            if call.interface == StandardNames.introspectable || call.interface == nil, member == "Introspect" {
                let children = childNodes(of: path)
                if !children.isEmpty {
                    call.answer(.success([.string(Introspection.node(interfaces: [], children: children))]))
                    return true
                }
            }
            call.answer(.failure(DBusMethodError(StandardError.unknownObject.name, "No object at path \(path)")))
            return true
        }
        switch call.interface {
        case StandardNames.introspectable:
            guard member == "Introspect", signature.isEmpty else { break }
            call.answer(.success([.string(Introspection.node(interfaces: object.interfaces, children: childNodes(of: path)))]))
            return true
        case StandardNames.properties:
            guard !call.carriesFileDescriptors else {
                call.answer(.failure(DBusMethodError.invalidArgs("Properties calls take no file descriptors")))
                return true
            }
            // Only the three known shapes are decoded (and they carry no descriptors: checked above).
            let arguments = ["ss", "s", "ssv"].contains(signature) ? call.arguments() : []
            call.answer(properties(object, member: member, signature: signature, arguments: arguments))
            return true
        case StandardNames.peer:
            return false
        default:
            break
        }
        if call.interface == nil, member == "Introspect", Self.method(in: object, nil, member) == nil {
            call.answer(.success([.string(Introspection.node(interfaces: object.interfaces, children: childNodes(of: path)))]))
            return true
        }
        let method: DBusMethod
        switch Self.method(of: object, interface: call.interface, member: member, signature: signature) {
        case .success(let found): method = found
        case .failure(let error):
            call.answer(.failure(error))
            return true
        }
        // Decoding dups every descriptor: only methods that can take one get them.
        if call.carriesFileDescriptors && !method.inputSignature.contains(where: { $0 == "h" || $0 == "v" }) {
            call.answer(.failure(DBusMethodError.invalidArgs("\(method.name) takes no file descriptors")))
            return true
        }
        let handlerCall: MethodCall
        do {
            handlerCall = try call.methodCall(call.arguments())
        } catch {
            call.answer(.failure(error))
            return true
        }
        if let start = method.deferredHandler {
            let pending = call.pendingReply(method)
            do {
                try start(handlerCall, pending)
            } catch {
                pending.finish(.failure(error))
            }
            return true
        }
        do {
            call.answer(Self.checked(try method.handler(handlerCall), of: method))
        } catch {
            call.answer(.failure(error))
        }
        return true
    }

    /// The method a call names on `object` (any interface when `interface` is nil), if any.
    static func method(in object: ExportedObject, _ interface: String?, _ member: String) -> DBusMethod? {
        object.interfaces.lazy.filter { interface == nil || $0.name == interface }.compactMap { $0.method(member) }.first
    }

    /// The method a call names, with arguments of `signature`, or the error it is answered.
    static func method(
        of object: ExportedObject, interface: String?, member: String, signature: String
    ) -> Result<DBusMethod, DBusMethodError> {
        guard let method = method(in: object, interface, member) else {
            return .failure(.unknownMethod("No method \(member) on interface \(interface ?? "(none)") at \(object.path)"))
        }
        guard signature == method.inputSignature else {
            return .failure(
                .invalidArgs("\(method.name) takes arguments of type '\(method.inputSignature)', not '\(signature)'"))
        }
        return .success(method)
    }

    /// The handler's values, or an internal error when their types are not the method's.
    static func checked(_ values: [DBusValue], of method: DBusMethod) -> Result<[DBusValue], any Error> {
        let produced = DBusType.signature(of: values.map(\.type))
        guard produced == method.outputSignature else {
            return .failure(
                DBusMethodError.failed("internal error: \(method.name) produced '\(produced)' instead of '\(method.outputSignature)'"))
        }
        return .success(values)
    }

    /// `org.freedesktop.DBus.Properties` of `object`: its arguments decoded only when `signature`
    /// is one of the three known shapes.
    func properties(
        _ object: ExportedObject, member: String, signature: String, arguments args: [DBusValue]
    ) -> Result<[DBusValue], any Error> {
        func interface(_ name: String) throws -> DBusInterface {
            guard let found = object.interfaces.first(where: { $0.name == name }) else {
                throw DBusMethodError.unknownInterface("No interface \(name) at \(object.path)")
            }
            return found
        }
        do {
            switch (member, signature) {
            case ("Get", "ss"):
                let i = try interface(args[0].string ?? "")
                guard let p = i.property(args[1].string ?? "") else {
                    throw DBusMethodError.unknownProperty("No property \(args[1].string ?? "") on \(i.name)")
                }
                return .success([.variant(try checked(p, from: try i.propertyValues?()))])
            case ("GetAll", "s"):
                let name = args[0].string ?? ""
                // An empty interface name means all of them, as in the specification.
                let interfaces = name.isEmpty ? object.interfaces : [try interface(name)]
                var entries: [(String, DBusValue)] = []
                for i in interfaces {
                    let values = try i.propertyValues?()
                    for p in i.properties { entries.append((p.name, try checked(p, from: values))) }
                }
                return .success([.vardict(ordered: entries)])
            case ("Set", "ssv"):
                let i = try interface(args[0].string ?? "")
                guard let p = i.property(args[1].string ?? "") else {
                    throw DBusMethodError.unknownProperty("No property \(args[1].string ?? "") on \(i.name)")
                }
                guard let setter = p.set else { throw DBusMethodError.propertyReadOnly("\(p.name) is read-only") }
                let value = args[2].unwrapped
                guard value.type == p.type else {
                    throw DBusMethodError.invalidArgs("\(p.name) has type '\(p.type.signature)', not '\(value.signature)'")
                }
                try setter(value)
                return .success([])
            case ("Get", _), ("GetAll", _), ("Set", _):
                throw DBusMethodError.invalidArgs("Wrong arguments '\(signature)' for Properties.\(member)")
            default:
                throw DBusMethodError.unknownMethod("No method \(member) on \(StandardNames.properties)")
            }
        } catch {
            return .failure(error)
        }
    }

    func checked(_ property: DBusProperty, from values: [String: DBusValue]? = nil) throws -> DBusValue {
        let value = try values?[property.name] ?? property.get()
        guard value.type == property.type else {
            throw DBusMethodError.failed("internal error: \(property.name) produced '\(value.signature)'")
        }
        return value
    }

    func childNodes(of path: String) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names = Set<String>()
        for other in objects.keys where other.hasPrefix(prefix) && other != path {
            if let first = other.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(first)) }
        }
        return names.sorted()
    }

    func reply(to call: BusMessage, _ result: Result<[DBusValue], any Error>) {
        guard !call.noReply else { return }
        let reply: BusMessage?
        switch result {
        case .success(let values):
            do {
                reply = try call.methodReturn(values)
            } catch {
                reply = call.errorReply(name: StandardError.failed.name, message: "internal error: \(error)")
            }
        case .failure(let error as any DBusErrorConvertible):
            reply = call.errorReply(name: error.dbusErrorName, message: error.dbusErrorMessage)
        case .failure(let error):
            reply = call.errorReply(name: StandardError.failed.name, message: "\(error)")
        }
        if let reply { _ = dbus_connection_send(connection, reply.raw, nil) }
    }
}

/// A method call to an exported object as `Bus.dispatch` reads it: what it names, and how its
/// caller is answered (a reply message, or a closure in process).
struct IncomingCall {
    let path: String
    /// Nil: the call names no interface (any interface's member of that name is meant).
    let interface: String?
    let member: String
    let signature: String
    let carriesFileDescriptors: Bool
    /// The arguments, decoded only for a call that takes them: decoding dups every descriptor.
    let arguments: () -> [DBusValue]
    /// The call as its handler sees it, from the decoded arguments.
    let methodCall: ([DBusValue]) throws -> MethodCall
    /// The reply a deferred method owes this caller.
    let pendingReply: (DBusMethod) -> PendingReply
    /// Told the answer once, unless a deferred method took the call.
    let answer: (Result<[DBusValue], any Error>) -> Void
}

/// An object path and the interfaces it implements.
public struct ExportedObject: Sendable {
    public var path: String
    public var interfaces: [DBusInterface]
    public init(path: String, interfaces: [DBusInterface]) {
        self.path = path
        self.interfaces = interfaces
    }
}

/// The reply a deferred method (`DBusMethod.deferred`) owes its caller: finished once, on the
/// loop thread, with the values (checked against the method's output types) or an error. One
/// that is dropped unfinished answers an error, so no caller waits for a reply that never comes.
/// A call made in the service's own process (`local`) is answered to a closure instead.
public final class PendingReply: @unchecked Sendable {
    private struct WeakBus {
        weak var bus: Bus?
    }
    private enum Destination {
        case bus(WeakBus, BusMessage)
        case local(@Sendable (Result<[DBusValue], any Error>) -> Void)
    }
    private let destination: Destination
    private let method: DBusMethod
    private var finished = false
    /// The caller's unique name.
    public let sender: String

    init(bus: Bus, call: BusMessage, method: DBusMethod) {
        // The bus is not kept alive by a reply it owes: one closed meanwhile answers nothing.
        destination = .bus(WeakBus(bus: bus), call)
        (self.method, sender) = (method, call.sender ?? "")
    }

    /// A reply for a call made in process (the daemon running a command line for its caller,
    /// `sender`): `answer` gets the checked result, once, on the thread that finishes it.
    public init(local method: DBusMethod, sender: String, _ answer: @escaping @Sendable (Result<[DBusValue], any Error>) -> Void) {
        (destination, self.method, self.sender) = (.local(answer), method, sender)
    }

    /// Sends the reply (the first call only; later ones do nothing).
    public func finish(_ result: Result<[DBusValue], any Error>) {
        guard !finished else { return }
        finished = true
        send(result.flatMap { Bus.checked($0, of: method) })
    }

    private func send(_ result: Result<[DBusValue], any Error>) {
        switch destination {
        case .bus(let weak, let call):
            guard let bus = weak.bus else { return }
            // A reply touches nothing bulk work owns: it leaves while the loop is held too.
            bus.perform(whileHeld: true) { bus.reply(to: call, result) }
        case .local(let answer):
            answer(result)
        }
    }

    deinit {
        guard !finished else { return }
        send(.failure(DBusMethodError.failed("internal error: \(method.name) was never answered")))
    }
}
