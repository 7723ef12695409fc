import CDBus

/// Calls made in the service's own process (the daemon running a command line for its
/// caller): the same dispatch as a call over the bus — the object, the method, its argument
/// types, the strings libdbus would refuse, the output types — without a message.
extension Bus {
    /// Calls `member` of `interface` on the object at `path` exported on this bus, for
    /// `sender`, and waits for its answer. From another thread the call runs on the loop
    /// (while the loop is held for bulk work, only a call that reads does; the rest wait for
    /// it) and a deferred method's later answer is waited for too. On the loop thread the call
    /// runs at once, and a deferred method finishes in place.
    public func callLocally(
        path: String, interface: String, member: String, arguments: [DBusValue], sender: String
    ) throws -> [DBusValue] {
        if isLoopThread {
            // Nothing can be waited for here: a deferred method is asked to finish in place
            // (`EventLoop.finishesInPlace`), holding the loop as long as it takes.
            let box = Answer()
            try BusMessage.validateArguments(arguments)
            loop.inPlace += 1
            defer { loop.inPlace -= 1 }
            dispatchLocally(path, interface, member, arguments, sender: sender) { box.result = $0 }
            guard let result = box.result else {
                throw DBusMethodError.failed("internal error: \(member) did not finish in place")
            }
            return try result.get()
        }
        // The checks sending them would make (strings libdbus refuses), here on the caller's
        // thread: an import's megabytes are not scanned on the loop.
        try BusMessage.validateArguments(arguments)
        let box = Answer()
        let done = Semaphore()
        let answer: @Sendable (Result<[DBusValue], any Error>) -> Void = { result in
            box.result = result
            done.signal()
        }
        // Looked at on the loop: a call that does not only read waits for a held loop's release
        // (work queued meanwhile runs after it, in order).
        let queued = loop.performIfRunning(whileHeld: true) { [self] in
            if loop.held && !onlyReads(path, interface, member) {
                loop.later { [self] in dispatchLocally(path, interface, member, arguments, sender: sender, answer: answer) }
            } else {
                dispatchLocally(path, interface, member, arguments, sender: sender, answer: answer)
            }
        }
        // A loop that has stopped (the daemon exiting) runs no handler: not on this thread
        // either, beside the tear-down.
        guard queued else { throw BusError.disconnected("the daemon is stopping") }
        done.wait()
        return try box.result!.get()
    }

    /// On the loop thread: the call dispatched as one over the bus is (`dispatch`), `answer`
    /// told once.
    private func dispatchLocally(
        _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue], sender: String,
        answer: @escaping @Sendable (Result<[DBusValue], any Error>) -> Void
    ) {
        let call = IncomingCall(
            path: path, interface: interface, member: member, signature: DBusType.signature(of: arguments.map(\.type)),
            carriesFileDescriptors: false, arguments: { arguments },
            methodCall: { arguments in
                // The arguments were checked by `callLocally`; the message only names the call:
                // the handler takes the values as they are.
                let message = try BusMessage.methodCall(destination: nil, path: path, interface: interface, member: member)
                return MethodCall(message: message, arguments: arguments)
            },
            pendingReply: { PendingReply(local: $0, sender: sender, answer) }, answer: answer)
        if !dispatch(call) { answer(Self.peer(member)) }
    }

    /// `org.freedesktop.DBus.Peer` as libdbus answers it on a connection, for a call in process.
    static func peer(_ member: String) -> Result<[DBusValue], any Error> {
        switch member {
        case "Ping": return .success([])
        case "GetMachineId":
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            guard let id = dbus_try_get_local_machine_id(&error) else {
                return .failure(DBusMethodError.failed("cannot read the machine id"))
            }
            defer { dbus_free(id) }
            return .success([.string(String(cString: id))])
        default:
            return .failure(DBusMethodError.unknownMethod("Unknown method invoked on \(StandardNames.peer) interface"))
        }
    }
}

/// A local call's answer, written on the loop thread and read by the caller after the signal.
private final class Answer: @unchecked Sendable {
    var result: Result<[DBusValue], any Error>?
}
