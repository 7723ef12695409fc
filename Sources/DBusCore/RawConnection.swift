import CDBus

#if canImport(Glibc)
import Glibc
#endif

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
        let name = error.name.map { String(cString: $0) } ?? StandardError.failed.name
        let text = message(error)
        switch name {
        case StandardError.noMemory.name: return .outOfMemory
        case StandardError.disconnected.name: return .disconnected(text)
        case StandardError.timeout.name, StandardError.timedOut.name: return .timeout(text)
        default: return .remote(name: name, message: text)
        }
    }

    /// Turns a reply (or error reply) message into arguments or an error. A `NoReply` error
    /// made locally by libdbus (it has no sender) means our timeout expired.
    package static func result(of reply: BusMessage, call: String) -> Result<[DBusValue], BusError> {
        if reply.kind == .error {
            let name = reply.errorName ?? StandardError.failed.name
            if name == StandardError.noReply.name, reply.sender == nil {
                return .failure(.timeout(call))
            }
            if name == StandardError.disconnected.name, reply.sender == nil {
                return .failure(.disconnected(reply.arguments.first?.string ?? "the connection is closed"))
            }
            return .failure(.remote(name: name, message: reply.arguments.first?.string ?? ""))
        }
        return .success(reply.arguments)
    }
}
