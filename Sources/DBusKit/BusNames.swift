import CDBus
import Glibc

/// Well-known names: requesting, releasing, and naming the owner when one is taken.
extension Bus {
    /// Requests a well-known name as its single owner. Another owner makes this fail with
    /// `.nameTaken` naming it, unless `replace` is set (and the owner allows replacement, as
    /// every `Bus` does). `onLost` runs on the loop thread if the name is later taken away.
    public func requestName(_ name: String, replace: Bool = false, onLost: (@Sendable () -> Void)? = nil) throws(BusError)
    {
        try Validate.name(.busName, name)
        try sync { [self] () throws(BusError) in
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            var flags = UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE | DBUS_NAME_FLAG_ALLOW_REPLACEMENT)
            if replace { flags |= UInt32(DBUS_NAME_FLAG_REPLACE_EXISTING) }
            let reply = dbus_bus_request_name(connection, name, flags, &error)
            if dbus_error_is_set(&error) != 0 { throw RawConnection.busError(error) }
            switch reply {
            case Int32(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER), Int32(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER):
                if let onLost { nameLostHandlers[name] = onLost }
            default:
                throw .nameTaken(name: name, owner: describeOwnerBlocking(name))
            }
        }
    }

    public func releaseName(_ name: String) throws(BusError) {
        try Validate.name(.busName, name)
        try sync { [self] () throws(BusError) in
            nameLostHandlers[name] = nil
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            _ = dbus_bus_release_name(connection, name, &error)
            if dbus_error_is_set(&error) != 0 { throw RawConnection.busError(error) }
        }
    }

    /// "`:1.5` (pid 1234)" for a name's owner; loop thread only (makes blocking calls).
    func describeOwnerBlocking(_ name: String) -> String {
        func ask(_ member: String, _ arg: String) -> DBusValue? {
            guard
                let message = try? BusMessage.methodCall(
                    destination: StandardNames.bus, path: StandardNames.busPath,
                    interface: StandardNames.bus, member: member, arguments: [.string(arg)])
            else { return nil }
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            guard let reply = dbus_connection_send_with_reply_and_block(connection, message.raw, 2000, &error) else {
                return nil
            }
            return BusMessage(owning: reply).arguments.first
        }
        guard let owner = ask("GetNameOwner", name)?.string else { return "another process" }
        if let pid = ask("GetConnectionUnixProcessID", owner)?.int64 { return "\(owner) (pid \(pid))" }
        return owner
    }
}
