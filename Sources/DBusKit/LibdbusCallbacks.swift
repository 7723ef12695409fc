import CDBus
import Glibc

/// libdbus callbacks (all on the loop thread, or during init before it starts): watches,
/// timeouts, wake-ups and the message filter.
extension Bus {
    func installCallbacks() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_watch_functions(
            connection,
            { watch, data in
                guard let watch, let data else { return 0 }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().watches.append(watch)
                return 1
            },
            { watch, data in
                guard let watch, let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().watches.removeAll { $0 == watch }
            },
            { _, data in
                // Enabled state is read on every iteration; just make the loop look again.
                guard let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().wake()
            }, me, nil)
        dbus_connection_set_timeout_functions(
            connection,
            { timeout, data in
                guard let timeout, let data else { return 0 }
                let bus = Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue()
                bus.timeouts[timeout] = Bus.monotonicMilliseconds() + UInt64(max(0, dbus_timeout_get_interval(timeout)))
                bus.wake()
                return 1
            },
            { timeout, data in
                guard let timeout, let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().timeouts[timeout] = nil
            },
            { timeout, data in
                guard let timeout, let data else { return }
                let bus = Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue()
                bus.timeouts[timeout] = Bus.monotonicMilliseconds() + UInt64(max(0, dbus_timeout_get_interval(timeout)))
                bus.wake()
            }, me, nil)
        dbus_connection_set_wakeup_main_function(
            connection,
            { data in
                guard let data else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().wake()
            }, me, nil)
        dbus_connection_set_dispatch_status_function(
            connection,
            { _, status, data in
                guard let data, status == DBUS_DISPATCH_DATA_REMAINS else { return }
                Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().wake()
            }, me, nil)
        _ = dbus_connection_add_filter(connection, Bus.filter, me, nil)
    }

    /// The message filter, one function, so that `removeCallbacks` names the one it added.
    static let filter: DBusHandleMessageFunction = { _, message, data in
        guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        return Unmanaged<Bus>.fromOpaque(data).takeUnretainedValue().handle(BusMessage(borrowing: message))
    }

    /// Takes back every callback `installCallbacks` gave libdbus (each holds this object
    /// unretained); the watches and timeouts it still has are removed through the old ones
    /// first. After this the connection never calls into this object.
    func removeCallbacks() {
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
        dbus_connection_remove_filter(connection, Bus.filter, Unmanaged.passUnretained(self).toOpaque())
    }

    func handle(_ message: BusMessage) -> DBusHandlerResult {
        if loop.held, !admittedWhileHeld(message) {
            kept.append(message)
            return DBUS_HANDLER_RESULT_HANDLED
        }
        return dispatch(message)
    }

    /// While the loop is held for bulk work, only what cannot touch the store is handled:
    /// property reads, introspection, `Peer`, methods declared `reads`, and the bus's own
    /// signals (a caller leaving, a name lost, the connection closing). The rest is kept.
    func admittedWhileHeld(_ message: BusMessage) -> Bool {
        switch message.kind {
        case .signal:
            return message.sender == StandardNames.bus || message.interface == StandardNames.local
        case .methodCall:
            return onlyReads(message.path ?? "", message.interface, message.member ?? "")
        default:
            return true
        }
    }

    /// Whether a call only reads, the rule for a message and for a call made in process alike:
    /// property reads, `Introspect`, `Peer`, methods declared `reads`, and a call to an object
    /// or method that does not exist (answered with its error at once).
    func onlyReads(_ path: String, _ interface: String?, _ member: String) -> Bool {
        switch interface {
        case StandardNames.properties: return member == "Get" || member == "GetAll"
        case StandardNames.introspectable, StandardNames.peer: return true
        default: return objects[path].flatMap { Self.method(in: $0, interface, member) }?.reads ?? true
        }
    }

    /// Handles the messages kept while the loop was held, in the order they came; one of
    /// them that holds the loop again leaves the rest kept.
    func dispatchKept() {
        while !kept.isEmpty, !loop.held {
            _ = dispatch(kept.removeFirst())
        }
    }

    private func dispatch(_ message: BusMessage) -> DBusHandlerResult {
        switch message.kind {
        case .signal:
            handleSignal(message)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .methodCall:
            return handleMethodCall(message)
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    func handleSignal(_ message: BusMessage) {
        if message.interface == StandardNames.local, message.member == "Disconnected" {
            markClosed("the bus closed the connection")
            return
        }
        if message.sender == StandardNames.bus, message.interface == StandardNames.bus,
            message.member == "NameLost", let name = message.firstStringArgument,
            let handler = nameLostHandlers.removeValue(forKey: name)
        {
            handler()
        }
        for (_, sub) in subscriptions.sorted(by: { $0.key < $1.key }) where sub.rule.matches(message) {
            sub.handler(message)
        }
    }
}
