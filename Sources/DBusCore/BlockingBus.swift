import CDBus

#if canImport(Glibc)
import Glibc
#endif

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
            if name == StandardError.noReply.name {
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
        try Validate.name(.busName, name)
        do {
            return try call(
                destination: StandardNames.bus, path: StandardNames.busPath, interface: StandardNames.bus,
                member: "GetNameOwner", [.string(name)], autoStart: false
            ).first?.string
        } catch .remote(name: StandardError.nameHasNoOwner.name, _) {
            return nil
        }
    }
}
