import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// Which bus to connect to.
public enum BusAddress: Sendable, Equatable, CustomStringConvertible {
    /// `$DBUS_SESSION_BUS_ADDRESS`, or `$XDG_RUNTIME_DIR/bus` when that is unset (the systemd user bus).
    case session
    /// A bus address, as printed by `dbus-daemon --print-address`.
    case address(String)

    /// The concrete address, or an error that says how to get a bus.
    public func resolve(environment: [String: String] = processEnvironment()) throws(BusError)
        -> String
    {
        switch self {
        case .address(let a):
            guard !a.isEmpty, !a.utf8.contains(0) else { throw .connectionFailed("the bus address is empty or invalid") }
            return a
        case .session:
            if let a = environment["DBUS_SESSION_BUS_ADDRESS"], !a.isEmpty, !a.utf8.contains(0) { return a }
            if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
                let socket = runtime + "/bus"
                var info = stat()
                if stat(socket, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK { return "unix:path=" + socket }
            }
            throw .connectionFailed(
                "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
        }
    }

    public var description: String {
        switch self {
        case .session: return "the session bus"
        case .address(let a): return a
        }
    }
}

/// A timeout for a method call.
public struct CallTimeout: Sendable, Equatable {
    public var milliseconds: Int32
    public init(milliseconds: Int32) { self.milliseconds = max(1, milliseconds) }
    public static func seconds(_ s: Double) -> CallTimeout { CallTimeout(milliseconds: Int32(min(s * 1000, 2_147_483_000))) }
    /// libdbus's default, 25 seconds.
    public static let `default` = CallTimeout(milliseconds: 25_000)
}

/// Opening a private, registered connection; shared by `Bus` and `BlockingBus`.
package enum RawConnection {
    /// libdbus must know it is used from several threads before anything else happens.
    package static let threadsReady: Bool = dbus_threads_init_default() != 0

    package static func open(_ address: BusAddress) throws(BusError) -> OpaquePointer {
        _ = threadsReady
        let resolved = try address.resolve()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_connection_open_private(resolved, &error) else {
            throw .connectionFailed("\(message(error)) (address \(resolved))")
        }
        // A lost bus is reported to the owner; libdbus must never _exit the process.
        dbus_connection_set_exit_on_disconnect(connection, 0)
        guard dbus_bus_register(connection, &error) != 0 else {
            let why = message(error)
            dbus_connection_close(connection)
            dbus_connection_unref(connection)
            throw .connectionFailed("\(why) (address \(resolved))")
        }
        return connection
    }

    package static func message(_ error: CDBus.DBusError) -> String {
        if let m = error.message { return String(cString: m) }
        if let n = error.name { return String(cString: n) }
        return "unknown error"
    }

    package static func busError(_ error: CDBus.DBusError) -> BusError {
        let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let text = message(error)
        switch name {
        case "org.freedesktop.DBus.Error.NoMemory": return .outOfMemory
        case "org.freedesktop.DBus.Error.Disconnected": return .disconnected(text)
        case "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut": return .timeout(text)
        default: return .remote(name: name, message: text)
        }
    }

    /// Turns a reply (or error reply) message into arguments or an error. A `NoReply` error
    /// made locally by libdbus (it has no sender) means our timeout expired.
    package static func result(of reply: BusMessage, call: String) -> Result<[DBusValue], BusError> {
        if reply.kind == .error {
            let name = reply.errorName ?? "org.freedesktop.DBus.Error.Failed"
            if name == "org.freedesktop.DBus.Error.NoReply", reply.sender == nil {
                return .failure(.timeout(call))
            }
            if name == "org.freedesktop.DBus.Error.Disconnected", reply.sender == nil {
                return .failure(.disconnected(reply.arguments.first?.string ?? "the connection is closed"))
            }
            return .failure(.remote(name: name, message: reply.arguments.first?.string ?? ""))
        }
        return .success(reply.arguments)
    }
}

/// A connection used from one thread with blocking calls and no event loop: the right tool
/// for a short-lived command (one call, print, exit). Not for sharing between threads.
public final class BlockingBus {
    private let connection: OpaquePointer
    private var closed = false

    public init(_ address: BusAddress = .session) throws(BusError) {
        connection = try RawConnection.open(address)
    }

    deinit { close() }

    /// This connection's unique name, e.g. `:1.42`.
    public var uniqueName: String {
        dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
    }

    public func close() {
        guard !closed else { return }
        closed = true
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    /// Calls a method and waits for its reply.
    public func call(
        destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        timeout: CallTimeout = .default, autoStart: Bool = true
    ) throws(BusError) -> [DBusValue] {
        let message = try BusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        message.autoStart = autoStart
        return try call(message, timeout: timeout)
    }

    public func call(_ message: BusMessage, timeout: CallTimeout = .default) throws(BusError) -> [DBusValue] {
        guard !closed else { throw .disconnected("the connection was closed") }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let reply = dbus_connection_send_with_reply_and_block(connection, message.raw, timeout.milliseconds, &error)
        else {
            let name = error.name.map { String(cString: $0) } ?? ""
            if name == "org.freedesktop.DBus.Error.NoReply" {
                // No reply: the peer went away or took too long — or our bus went away.
                guard dbus_connection_get_is_connected(connection) != 0 else {
                    throw .disconnected("the bus closed the connection")
                }
                throw .timeout("\(message.interface ?? "").\(message.member ?? "") to \(message.destination ?? "")")
            }
            throw RawConnection.busError(error)
        }
        return try RawConnection.result(of: BusMessage(owning: reply), call: message.member ?? "").get()
    }

    /// Sends a message without waiting for anything (signals, no-reply calls), and flushes.
    public func send(_ message: BusMessage) throws(BusError) {
        guard !closed, dbus_connection_get_is_connected(connection) != 0 else {
            throw .disconnected("the connection was closed")
        }
        guard dbus_connection_send(connection, message.raw, nil) != 0 else { throw .outOfMemory }
        dbus_connection_flush(connection)
    }

    /// The unique name owning `name`, or nil when nobody does.
    public func nameOwner(_ name: String) throws(BusError) -> String? {
        try Validate.busName(name)
        do {
            return try call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner", [.string(name)], autoStart: false
            ).first?.string
        } catch .remote(name: "org.freedesktop.DBus.Error.NameHasNoOwner", _) {
            return nil
        }
    }
}

/// The process environment, read without Foundation.
public func processEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var cursor = environ
    while let entry = cursor.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        cursor += 1
    }
    return result
}
