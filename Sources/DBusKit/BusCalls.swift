import CDBus
import Glibc

/// The client side: method calls (async, blocking, with a completion), signals sent.
extension Bus {
    /// Calls a method and waits (without blocking a thread) for the reply.
    public func call(
        destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        timeout: CallTimeout = .default, autoStart: Bool = true
    ) async throws(BusError) -> [DBusValue] {
        let message = try BusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        message.autoStart = autoStart
        return try await call(message, timeout: timeout)
    }

    public func call(_ message: BusMessage, timeout: CallTimeout = .default) async throws(BusError) -> [DBusValue] {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[DBusValue], BusError>, Never>) in
            send(message, timeout: timeout) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Calls a method and blocks this thread for the reply. Not from a handler.
    public func callBlocking(
        destination: String, path: String, interface: String, member: String, _ arguments: [DBusValue] = [],
        timeout: CallTimeout = .default, autoStart: Bool = true
    ) throws(BusError) -> [DBusValue] {
        precondition(!isLoopThread, "callBlocking from the loop thread would wait for itself")
        let message = try BusMessage.methodCall(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        message.autoStart = autoStart
        let box = ResultBox<[DBusValue]>()
        let done = Semaphore()
        send(message, timeout: timeout) {
            box.result = $0
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    /// Sends a method call; `completion` runs on the loop thread with the reply or error.
    public func send(
        _ message: BusMessage, timeout: CallTimeout = .default,
        completion: @escaping @Sendable (Result<[DBusValue], BusError>) -> Void
    ) {
        perform { [self] in
            let label = "\(message.interface ?? "").\(message.member ?? "") on \(message.destination ?? "")"
            var pending: OpaquePointer?
            guard dbus_connection_send_with_reply(connection, message.raw, &pending, timeout.milliseconds) != 0 else {
                completion(.failure(.outOfMemory))
                return
            }
            guard let pending else {
                completion(.failure(.disconnected(closedReasonText)))
                return
            }
            let box = Unmanaged.passRetained(PendingBox(label: label, completion: completion)).toOpaque()
            let installed = dbus_pending_call_set_notify(
                pending,
                { pending, data in
                    guard let pending, let data else { return }
                    Unmanaged<PendingBox>.fromOpaque(data).takeUnretainedValue().complete(pending)
                },
                box,
                { data in
                    if let data { Unmanaged<PendingBox>.fromOpaque(data).release() }
                })
            if installed == 0 {
                Unmanaged<PendingBox>.fromOpaque(box).release()
                dbus_pending_call_cancel(pending)
                dbus_pending_call_unref(pending)
                completion(.failure(.outOfMemory))
                return
            }
            // The reply may already be there (the notify would then never fire).
            if dbus_pending_call_get_completed(pending) != 0 {
                Unmanaged<PendingBox>.fromOpaque(box).takeUnretainedValue().complete(pending)
            }
            dbus_pending_call_unref(pending)
        }
    }

    /// Sends a message that needs no reply (a signal, or a call flagged no-reply).
    public func send(_ message: BusMessage) {
        perform { [self] in
            _ = dbus_connection_send(connection, message.raw, nil)
        }
    }

    /// Emits a signal from `path`.
    public func emit(path: String, interface: String, member: String, _ arguments: [DBusValue] = []) throws(BusError) {
        send(try BusMessage.signal(path: path, interface: interface, member: member, arguments: arguments))
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged` (signature `sa{sv}as`).
    public func emitPropertiesChanged(
        path: String, interface: String, changed: [(String, DBusValue)], invalidated: [String] = []
    ) throws(BusError) {
        try emit(
            path: path, interface: StandardNames.properties, member: "PropertiesChanged",
            [.string(interface), .vardict(ordered: changed), .strings(invalidated)])
    }
}

/// A pending call's completion, kept alive by libdbus until the call ends.
final class PendingBox: @unchecked Sendable {
    let label: String
    var completion: (@Sendable (Result<[DBusValue], BusError>) -> Void)?
    init(label: String, completion: @escaping @Sendable (Result<[DBusValue], BusError>) -> Void) {
        self.label = label
        self.completion = completion
    }

    func complete(_ pending: OpaquePointer) {
        guard let completion else { return }
        self.completion = nil
        guard let reply = dbus_pending_call_steal_reply(pending) else {
            completion(.failure(.disconnected("no reply to \(label)")))
            return
        }
        completion(RawConnection.result(of: BusMessage(owning: reply), call: label))
    }
}

/// Carries a result from the loop thread to a waiting thread (ordered by a semaphore).
final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, BusError>?
}
